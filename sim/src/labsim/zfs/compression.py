"""What a block shrinks to, and ZFS's rules around it.

``block_of`` sizes one record of a file's content (labsim.content.model): an all-zero
record is a hole; a record of only zeros and random bytes (dd from /dev/zero or
/dev/urandom, fio's buffers) goes through the exact LZ4 model below without its bytes,
and under other algorithms is stored as is when it is all random (random bytes never
save 1/8) or compressed for real when mixed; any other record (seq, yes, text) is
compressed for real by the dataset's algorithm (labsim.zfs.compressors), cached by what
its bytes are made of.

For data known only by its *shape* (runs of incompressible "random" bytes and runs of
zeros), this module computes what OpenZFS stores for a block under LZ4:

* ``lz4_output_size``: the bytes LZ4_compressCtx()/LZ4_compress64kCtx()
  (module/zfs/lz4.c) emit, following their match search over the runs;
* ``compressed_size``: zio_compress_data() (module/zfs/zio_compress.c): an all-zero
  block is a hole (0), and a block must shrink by at least 1/8 or it is stored as is;
* ``block_psize``: zio_write_compress() (module/zfs/zio.c): the compressed size is
  rounded up to the smallest vdev ashift, and if that is not smaller than the
  logical size the block is written uncompressed.

The LZ4 size of a run-shaped buffer. An LZ4 block is a list of sequences, each
``token (1) + extra literal-length bytes + literals + offset (2) + extra match-length
bytes``, and a last sequence of literals only (token, length bytes, at least the final
LASTLITERALS = 5 bytes). A length field holds up to 14 in the token's nibble; from 15
on, ``(n - 15) // 255 + 1`` extra bytes follow (for a match, n counts beyond MINMATCH =
4). ZFS prepends the compressed length as a 4-byte big-endian word (lz4_compress_zfs).
For a buffer of random runs R_i each followed by a zero run Z_i:

    size = 4 + sum_i [1 + ext(R_i + d_i) + R_i + d_i + 2 + ext(Z_i - d_i - 4)] + last

where ``d_i`` is how many zeros stay literals before the match starts. For the first
zero run of a block LZ4 only finds the match at its second probe into the zeros, so
``d`` is the probe step there (lz4.c accelerates through incompressible data: the step
is ``findMatchAttempts++ >> 6``, starting at 67, so it grows by one every 64 probes);
later zero runs match the previous one (offset < 64 KiB) at once and ``d`` is 0, up to a
few bytes where the two runs' probe points differ. ``lz4_output_size`` follows the
search exactly under two assumptions: random bytes never produce a 4-byte match, and
never evict the hash-table slot of four zero bytes (a 1 in 4096 chance per probe).
tests/unit/test_compression.py checks it against a byte-level port of lz4.c.

fio's data (lib/rand.c __fill_random_buf_percentage(), io_u.c fill_io_buffer()): with
buffer_compress_percentage=P and buffer_compress_chunk=C, every C bytes of the write
buffer are filled by a separate call, so each chunk is ``C * (100 - P) // 100`` bytes
of fresh random data followed by zeros (or the buffer_pattern) to the chunk's end. P =
100 is all zeros; P = 0 does not take that path at all (plain random buffers).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from labsim.content import model
from labsim.content.fio import RANDOM, ZERO, fio_runs
from labsim.content.model import Content
from labsim.zfs import compressors
from labsim.zfs.versions import MinSavings

# module/zfs/lz4.c constants
MINMATCH = 4
LASTLITERALS = 5
MFLIMIT = 12  # COPYLENGTH + MINMATCH: no match may start in the last 12 bytes
MINLENGTH = MFLIMIT + 1
MAX_DISTANCE = (1 << 16) - 1
SKIPSTRENGTH = 6
RUN_MASK = 15  # the token's 4-bit length fields
ZFS_LZ4_HEADER = 4  # lz4_compress_zfs(): the compressed length, a big-endian uint32

# include/sys/spa.h: BPE_PAYLOAD_SIZE, what fits in an embedded block pointer
BPE_PAYLOAD_SIZE = 112

OFF = "off"


@dataclass(frozen=True)
class DataPattern:
    """What a file holds, as far as compression can tell: ``kind`` is "zero",
    "random" or "fio"; for "fio", each ``chunk`` bytes are ``(100 - percent)`` %
    random bytes then zeros (``percent`` = buffer_compress_percentage)."""

    kind: str
    percent: int = 0
    chunk: int = 512  # fio's default buffer_compress_chunk

    def runs(self, offset: int, length: int) -> tuple[tuple[str, int], ...]:
        """The runs of bytes ``[offset, offset + length)`` of a file of this data."""
        if length <= 0:
            return ()
        if self.kind == ZERO or (self.kind == "fio" and self.percent >= 100):
            return ((ZERO, length),)
        if self.kind != "fio" or self.percent <= 0:
            return ((RANDOM, length),)
        out: list[tuple[str, int]] = []
        for kind, _, n in fio_runs(self.percent, self.chunk, offset, length):
            _append(out, kind, n)
        return tuple(out)


def pattern_of(content: str | DataPattern) -> DataPattern:
    """dd's sources are named by a word ("zero", "random"); fio gives a DataPattern."""
    return content if isinstance(content, DataPattern) else DataPattern(content)


def _append(runs: list[tuple[str, int]], kind: str, length: int) -> None:
    if length <= 0:
        return
    if runs and runs[-1][0] == kind:
        runs[-1] = (kind, runs[-1][1] + length)
    else:
        runs.append((kind, length))


def record_runs(pattern: DataPattern, offset: int, data_len: int,
                block_size: int) -> tuple[tuple[str, int], ...]:
    """A block of ``block_size`` bytes at file ``offset`` holding ``data_len`` bytes
    of the file: a block past the end of the file is padded with zeros (the last
    record of a file is a whole record, dmu_buf_will_dirty() zero-fills it)."""
    runs = list(pattern.runs(offset, min(data_len, block_size)))
    _append(runs, ZERO, block_size - min(data_len, block_size))
    return tuple(runs)


def length_bytes(n: int) -> int:
    """Extra bytes of an LZ4 length field (literal run, or match length less
    MINMATCH): none below 15, then one per 255 started."""
    return 0 if n < RUN_MASK else (n - RUN_MASK) // 255 + 1


def _last_literals(n: int) -> int:
    return 1 + length_bytes(n) + n


def _probe_offset(j: int) -> int:
    """Distance from where a search starts to its j-th probe. Probe i advances by
    ``(67 + i) >> 6`` (findMatchAttempts starts at (1 << SKIPSTRENGTH) + 3), so the
    offset is S(67 + j) - S(67) with S(n) = sum of floor(x / 64) for x < n."""
    def s(n: int) -> int:
        a, b = divmod(n, 64)
        return 64 * a * (a - 1) // 2 + a * b

    return s(67 + j) - s(67)


def _probe_step(j: int) -> int:
    return (67 + j) >> SKIPSTRENGTH


def _first_probe_at_or_after(start: int, target: int, low: int) -> int:
    """The smallest probe number j >= low with start + offset(j) >= target."""
    hi = max(low, 1)
    while start + _probe_offset(hi) < target:
        hi *= 2
    lo = low
    while lo < hi:
        mid = (lo + hi) // 2
        if start + _probe_offset(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


@lru_cache(maxsize=4096)
def lz4_output_size(runs: tuple[tuple[str, int], ...]) -> int:
    """Bytes LZ4 (module/zfs/lz4.c) writes for a buffer of these (kind, length) runs,
    without ZFS's 4-byte header (see the module docstring for the assumptions)."""
    starts: list[int] = []
    ends: list[int] = []
    zero: list[bool] = []
    pos = 0
    for kind, length in runs:
        if length <= 0:
            continue
        if zero and zero[-1] == (kind == ZERO):
            ends[-1] += length
        else:
            starts.append(pos)
            ends.append(pos + length)
            zero.append(kind == ZERO)
        pos += length
    total = pos
    if total < MINLENGTH:
        return _last_literals(total)
    mflimit, matchlimit = total - MFLIMIT, total - LASTLITERALS

    def zero_span(p: int) -> tuple[int, int] | None:
        """The zero run whose first four bytes at ``p`` are all zero."""
        i = bisect_right(starts, p) - 1
        if i >= 0 and zero[i] and p + MINMATCH <= ends[i]:
            return starts[i], ends[i]
        return None

    out = 0
    # The hash-table slot of four zero bytes. Empty slots hold offset 0 (the table is
    # zeroed, and LZ4_compressCtx stores the first byte there), so a buffer that starts
    # with zeros finds them from the start.
    zero_slot = 0
    anchor, ip = 0, 1

    def matching(ref: int, at: int) -> bool:
        return at - ref <= MAX_DISTANCE and ref < at and zero_span(ref) is not None

    while True:
        # Find a match: probes at ip + offset(j) until one lands on four zero bytes
        # whose slot points at four zero bytes (or stores itself, and the next probe,
        # if still in the zeros, finds it).
        found = None
        j = 0
        span = bisect_right(starts, ip) - 1
        span = max(span, 0)
        while found is None and span < len(starts):
            if not zero[span] or ends[span] - MINMATCH < ip:
                span += 1
                continue
            lo, last = max(starts[span], ip), ends[span] - MINMATCH
            j = _first_probe_at_or_after(ip, lo, j)
            x = ip + _probe_offset(j)
            if x > last:
                span += 1
                continue
            if x + _probe_step(j) > mflimit:
                break
            ref, zero_slot = zero_slot, x
            if matching(ref, x):
                found = (x, ref)
                break
            x2 = x + _probe_step(j)
            j += 1
            if x2 <= last:
                if x2 + _probe_step(j) > mflimit:
                    break
                zero_slot = x2
                found = (x2, x)
                break
            span += 1
        if found is None:
            return out + _last_literals(total - anchor)
        x, ref = found
        # Catch up: extend the match backwards while both sides are zeros.
        x_span, ref_span = zero_span(x), zero_span(ref)
        assert x_span is not None and ref_span is not None
        back = min(x - anchor, ref, x - x_span[0], ref - ref_span[0])
        x, ref = x - back, ref - back
        literals = x - anchor
        out += 1 + length_bytes(literals) + literals
        while True:
            out += 2  # offset
            x_end = zero_span(x)
            ref_end = zero_span(ref)
            assert x_end is not None and ref_end is not None
            match = min(x_end[1] - x, ref_end[1] - ref, matchlimit - x)
            end = x + match
            out += length_bytes(match - MINMATCH)
            if end > mflimit:
                return out + _last_literals(total - end)
            if zero_span(end - 2) is not None:  # "Fill table" at ip - 2
                zero_slot = end - 2
            if zero_span(end) is not None:  # "Test next position"
                ref, zero_slot = zero_slot, end
                if matching(ref, end):
                    out += 1  # a token with no literals
                    x = end
                    continue
            anchor, ip = end, end + 1
            break


def lz4_zfs_size(runs: Sequence[tuple[str, int]]) -> int:
    """lz4_compress_zfs(): LZ4's output plus its 4-byte length header."""
    return ZFS_LZ4_HEADER + lz4_output_size(tuple(runs))


def is_all_zero(runs: Sequence[tuple[str, int]]) -> bool:
    return all(kind == ZERO for kind, length in runs if length > 0)


def max_compressed_size(lsize: int, ashift: int, rule: MinSavings,
                        algorithm: str = "lz4") -> int:
    """d_len, the most a compressed block may take: 7/8 of the block ("Compress at least
    12.5%": s_len - (s_len >> 3)); from 2.3 rounded down to whole sectors, and only an
    embedded block's BPE_PAYLOAD_SIZE where that leaves less than a sector
    (zio_get_compression_max_size(), labsim.zfs.versions.MinSavings), except for zle,
    which "can't use exactly d_len bytes" and keeps the plain 7/8."""
    d_len = lsize - (lsize >> 3)
    if rule is MinSavings.SEVEN_EIGHTHS or algorithm == "zle":
        return d_len
    sector = 1 << ashift
    d_len -= d_len % sector
    return BPE_PAYLOAD_SIZE if d_len < sector else d_len


def compressed_size(runs: Sequence[tuple[str, int]], compression: str, ashift: int = 9,
                    rule: MinSavings = MinSavings.SEVEN_EIGHTHS) -> int:
    """zio_compress_data() (module/zfs/zio_compress.c): 0 for an all-zero block (a
    hole: nothing is allocated), the compressed size when it is at most
    ``max_compressed_size``, else the block's own size (stored uncompressed).
    ``compression`` "off" never compresses. Every algorithm but LZ4 ("on" is LZ4 in
    pools with the lz4_compress feature) is treated as LZ4 here: labsim has no model of
    gzip or zstd."""
    lsize = sum(length for _, length in runs)
    if compression == OFF:
        return lsize
    if is_all_zero(runs):
        return 0
    d_len = max_compressed_size(lsize, ashift, rule)
    c_len = lz4_zfs_size(runs)
    return lsize if c_len > d_len else c_len


def round_to_sectors(psize: int, ashift: int) -> int:
    """P2ROUNDUP(psize, 1 << ashift)."""
    sector = 1 << ashift
    return -(-psize // sector) * sector


def block_psize(runs: Sequence[tuple[str, int]], compression: str, ashift: int,
                level: int = 0, rule: MinSavings = MinSavings.SEVEN_EIGHTHS) -> int:
    """The physical size a block gets in zio_write_compress() (module/zfs/zio.c, 2.1):
    the compressed size rounded up to 2^spa_min_ashift, the smallest ashift of the
    pool's vdevs; if that is not smaller than the logical size, the block is written
    uncompressed (psize = lsize). 0 is a hole; a level-0 block that compresses to
    BPE_PAYLOAD_SIZE (112) bytes or less is embedded in its block pointer and
    allocates nothing either (returned as 0 as well)."""
    lsize = sum(length for _, length in runs)
    psize = compressed_size(runs, compression, ashift, rule)
    if psize == 0 or psize >= lsize:
        return psize
    if level == 0 and psize <= BPE_PAYLOAD_SIZE:
        return 0
    rounded = round_to_sectors(psize, ashift)
    return lsize if rounded >= lsize else rounded


def psize_after_rounding(lsize: int, compressed: int, ashift: int,
                         rule: MinSavings = MinSavings.SEVEN_EIGHTHS) -> int:
    """The rounding rule alone, for a block of ``lsize`` bytes that compressed to
    ``compressed`` bytes: what the lesson's widget needs when it states the
    compressed size directly instead of the data's shape."""
    if compressed > max_compressed_size(lsize, ashift, rule):
        return lsize
    rounded = round_to_sectors(compressed, ashift)
    return lsize if rounded >= lsize else rounded


# ---------------------------------------------------------------- blocks of real content


@dataclass(frozen=True)
class Block:
    """What one data block costs: ``psize`` physical bytes (0 for a hole or an embedded
    block); ``embedded`` when its compressed bytes live in the block pointer itself
    (it then allocates nothing but counts its logical size, dsl_dataset_block_born()
    with BP_GET_PSIZE() 0 and BP_GET_LSIZE() the block's)."""

    psize: int
    embedded: bool = False
    # An embedded block's payload: its compressed bytes, BPE_PAYLOAD_SIZE at most
    # (labsim.zfs.indirect_blocks lays them out in the block pointer).
    payload: int = 0


HOLE = Block(0)


def as_content(content: str | DataPattern | Content, size: int) -> Content:
    """What write_file is given, as content of ``size`` bytes: dd's sources by name
    ("zero", "random"), fio's DataPattern, or content itself."""
    if isinstance(content, Content):
        return content
    pattern = pattern_of(content)
    if pattern.kind == ZERO or (pattern.kind == "fio" and pattern.percent >= 100):
        source: model.Source = model.Zeros()
    elif pattern.kind == "fio" and pattern.percent > 0:
        source = model.FioBuffers(pattern.percent, pattern.chunk)
    else:
        source = model.RandomBytes()
    return model.of_source(source, size)


def stationary_pattern(content: Content) -> DataPattern | None:
    """A file of one stream whose records all look alike from its start (zeros, random,
    fio's buffers) as a DataPattern, whose blocks repeat with its chunk."""
    if len(content.pieces) != 1 or content.pieces[0].start != 0:
        return None
    src = content.pieces[0].source
    if isinstance(src, model.Zeros):
        return DataPattern(ZERO)
    if isinstance(src, model.RandomBytes):
        return DataPattern(RANDOM)
    if isinstance(src, model.FioBuffers):
        return DataPattern("fio", src.percent, src.chunk)
    return None


def _finish(lsize: int, psize: int, ashift: int, level: int) -> Block:
    """zio_write_compress() after zio_compress_data(): stored as is when not smaller,
    embedded when 112 bytes or less (level 0), else rounded up to the sector, and stored
    as is when that is not smaller."""
    if psize == 0:
        return HOLE
    if psize >= lsize:
        return Block(lsize)
    if level == 0 and psize <= BPE_PAYLOAD_SIZE:
        return Block(0, embedded=True, payload=psize)
    rounded = round_to_sectors(psize, ashift)
    return Block(lsize if rounded >= lsize else rounded)


@lru_cache(maxsize=65536)
def _compressed(pieces: tuple, pad: int, algorithm: str, level: int, d_len: int,
                early_abort: bool) -> int:
    """zio_compress_data() on the bytes ``pieces`` make (content.model.record_key), with
    ``pad`` zeros after them: 0 for all zeros, else the compressor's verdict."""
    data = b"".join(model.source_bytes(src, start, n) for src, start, n in pieces)
    data += bytes(pad)
    if not data.strip(b"\0"):
        return 0
    return compressors.zfs_compress(algorithm, level, data, d_len, early_abort)


def block_of(content: Content, offset: int, data_len: int, block_size: int,
             compression: str, ashift: int, rule: MinSavings = MinSavings.SEVEN_EIGHTHS,
             zstd_early_abort: bool = False, level: int = 0) -> Block:
    """The block of ``block_size`` bytes at file ``offset`` holding ``data_len`` bytes of
    the file (zeros after them: the last record of a file is zero-filled)."""
    data_len = min(data_len, block_size)
    if compression == OFF:
        return Block(block_size)
    algorithm, complevel = compressors.parse(compression)
    shape = model.runs(content, offset, data_len)
    if shape is not None:
        runs = list(shape)
        _append(runs, ZERO, block_size - data_len)
        if is_all_zero(runs):
            return HOLE
        if algorithm == "lz4":
            psize = compressed_size(tuple(runs), "lz4", ashift, rule)
            return _finish(block_size, psize, ashift, level)
        if all(kind == RANDOM for kind, n in runs if n):
            return Block(block_size)  # random bytes never save 1/8: no compressor needed
    d_len = max_compressed_size(block_size, ashift, rule, algorithm)
    key = model.record_key(content, offset, data_len)
    psize = _compressed(key, block_size - data_len, algorithm, complevel, d_len,
                        zstd_early_abort)
    return _finish(block_size, psize, ashift, level)
