// ZFS's LZ4 compressor (module/zfs/lz4_zfs.c: LZ4_compressCtx and LZ4_compress64kCtx, "based
// on LZ4 r85"), counting its output: the same algorithm as labsim.zfs.lz4_zfs, which the
// page's worker calls instead of the Python port because it is ~100 times faster here
// (seq 1 10000000 > f under lz4 in seconds, not minutes). tests/browser/
// test_compression_backends.py checks that both give the same sizes.
//
// zfsLz4Size(src: Uint8Array, osize: number) -> bytes of the LZ4 block, 0 when it does
// not fit in osize bytes (the C code's conservative room checks included).

const MFLIMIT = 12;
const LASTLITERALS = 5;
const MINLENGTH = MFLIMIT + 1;
const LZ4_64KLIMIT = (1 << 16) + (MFLIMIT - 1);
const MAX_DISTANCE = (1 << 16) - 1;
const HASH_LOG = 12;
const RUN_MASK = 15;
const MULTIPLIER = 2654435761 | 0;

function lengthBytes(n) {
  return n < RUN_MASK ? 0 : Math.floor((n - RUN_MASK) / 255) + 1;
}

function lastLiterals(run, out, osize) {
  if (out + run + 1 + Math.floor((run + 255 - RUN_MASK) / 255) > osize) return 0;
  return out + 1 + lengthBytes(run) + run;
}

export function zfsLz4Size(src, osize) {
  const isize = src.length;
  if (isize < MINLENGTH) return lastLiterals(isize, 0, osize);
  const small = isize < LZ4_64KLIMIT;
  const log = small ? HASH_LOG + 1 : HASH_LOG;
  const shift = 32 - log;
  const table = new Int32Array(1 << log);
  const a32 = (p) => (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24));
  const hash = (p) => Math.imul(a32(p), MULTIPLIER) >>> shift;
  const mflimit = isize - MFLIMIT;
  const matchlimit = isize - LASTLITERALS;
  let out = 0;
  let anchor = 0;
  let ip = 1;
  let forwardH = hash(ip);
  for (;;) {
    let attempts = 67; // (1 << SKIPSTRENGTH) + 3
    let forward = ip;
    let ref;
    for (;;) { // find a match
      const h = forwardH;
      const step = attempts >> 6;
      attempts++;
      ip = forward;
      forward = ip + step;
      if (forward > mflimit) return lastLiterals(isize - anchor, out, osize);
      forwardH = hash(forward);
      ref = table[h];
      table[h] = ip;
      if (a32(ref) === a32(ip) && (small || ref >= ip - MAX_DISTANCE)) break;
    }
    while (ip > anchor && ref > 0 && src[ip - 1] === src[ref - 1]) { ip--; ref--; }
    const length = ip - anchor;
    if (out + 1 + length + 8 + (length >> 8) > osize) return 0;
    out += 1 + lengthBytes(length) + length;
    for (;;) { // a match at ip from ref
      out += 2;
      ip += 4;
      ref += 4;
      const start = ip;
      while (ip < matchlimit && src[ip] === src[ref]) { ip++; ref++; }
      const match = ip - start;
      if (out + 6 + (match >> 8) > osize) return 0;
      out += lengthBytes(match);
      if (ip > mflimit) return lastLiterals(isize - ip, out, osize);
      table[hash(ip - 2)] = ip - 2;
      const h = hash(ip);
      ref = table[h];
      table[h] = ip;
      if (a32(ref) === a32(ip) && (small || ref >= ip - MAX_DISTANCE)) {
        out += 1; // a token with no literals
        continue;
      }
      anchor = ip;
      ip++;
      forwardH = hash(ip);
      break;
    }
  }
}
