"""ZFS's LZ4 compressor, byte for byte: module/zfs/lz4.c in 2.1, module/zfs/lz4_zfs.c in
2.2 and 2.3 (the same LZ4_compressCtx() and LZ4_compress64kCtx(), "based on LZ4 r85").

``lz4_size`` returns what real_LZ4_compress() returns: the bytes of the LZ4 block, or 0
when it would not fit in ``osize`` bytes (the function checks its room before each
sequence, conservatively: ``op + length + (2 + 1 + LASTLITERALS) + (length >> 8) >
oend``, so a block can fail a little before its output reaches the limit). No output is
written, only counted.

ZFS's LZ4 is not today's: LZ4 1.9's block compressor starts its probe step 3 probes
sooner, hashes 5 bytes instead of 4 on 64-bit machines for blocks over 64 KiB, and so
finds other matches. Measured on text, seq output and mixes in 4K-1M records, its output
is 2.6 % larger on average (from 2.8 % smaller to 26 % larger), so labsim runs this port
rather than an LZ4 library; it agrees with ZFS's C code compiled from the OpenZFS
sources on every buffer tried (tools/compression_exactness.py).

Speed, CPython 3.11 on the course's reference machine: about 5 MB/s on seq output, 8 MB/s
on text, 30 MB/s and more on repetitive data (long matches are compared in slices). A
run of 4-byte words at every offset is built first, with memoryview casts, so the inner
loops compare integers. Under Pyodide the same Python is 5 times slower, so the page's
worker defines ``zfsLz4Size``, this function in JavaScript (docs/javascripts/zfs-lz4.js),
and ``lz4_block_size`` calls it there: tests/browser/test_compression_backends.py checks
that the two give the same sizes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

HASH_MULTIPLIER = 2654435761
MFLIMIT = 12
LASTLITERALS = 5
MINLENGTH = MFLIMIT + 1
LZ4_64KLIMIT = (1 << 16) + (MFLIMIT - 1)
MAX_DISTANCE = (1 << 16) - 1
HASH_LOG = 12  # COMPRESSIONLEVEL; LZ4_compress64kCtx uses HASH_LOG + 1
RUN_MASK = 15


def words_of(src: bytes) -> list[int]:
    """The little-endian 32-bit word at every offset of ``src`` (A32(p)), zeros past the
    end."""
    n = len(src)
    padded = src + bytes(8)
    words = [0] * n
    for r in range(4):
        count = (n - r + 3) // 4
        words[r::4] = memoryview(padded[r:r + 4 * count]).cast("I").tolist()
    return words


def _length_bytes(n: int) -> int:
    return 0 if n < RUN_MASK else (n - RUN_MASK) // 255 + 1


def _last_literals(run: int, out: int, osize: int) -> int:
    if out + run + 1 + (run + 255 - RUN_MASK) // 255 > osize:
        return 0
    return out + 1 + _length_bytes(run) + run


def lz4_size(src: bytes, osize: int) -> int:
    """Bytes real_LZ4_compress(src, dest, len(src), osize) writes, 0 if they do not fit."""
    return _compress(src, osize, None)


@dataclass(frozen=True)
class Lz4State:
    """The compressor between two sequences: ``anchor`` is where the next literals start
    (the search goes on from ``anchor + 1``), ``out`` the bytes written so far, ``table``
    the hash table. It follows from the first ``anchor + 5`` bytes of the input alone
    (the hash and the comparisons so far read no further), and from whether the input is
    under LZ4_64KLIMIT (``small``), so it holds for any input that starts with those bytes
    and is as large or larger."""

    small: bool
    anchor: int
    out: int
    osize: int
    table: tuple[int, ...]


def lz4_size_resumed(src: bytes, osize: int, state: Lz4State | None, keep: int,
                     words: list[int] | None = None) -> tuple[int, Lz4State | None]:
    """``lz4_size(src, osize)``, started from ``state`` (None: from the first byte), and
    the state at the last sequence boundary that depends only on ``src[:keep]``: what a
    later call on an input that differs from ``src`` only from ``keep`` on can start
    from. For a block that grows at its end, such as a micro ZAP gaining an entry, each
    call then compresses the new end instead of the whole block.

    The caller vouches that ``src`` starts with the bytes ``state`` was made from; a
    state made for another size class or a larger output limit is not used. ``words``,
    when given, are ``src``'s words (words_of()), which a caller that keeps them as its
    block grows need not have made again."""
    small = len(src) < LZ4_64KLIMIT
    if state is not None and (state.small != small or state.osize > osize
                              or state.anchor + 5 > len(src)):
        state = None
    w = words if words is not None else words_of(src)
    tops: list[int] = []
    size = _compress(src, osize, state, w, tops=tops)
    usable = [a for a in tops if a + 5 <= keep]
    if not usable or len(src) < MINLENGTH:
        return size, state
    table: list[int] = []
    out = _compress(src, osize, state, w, stop_at=usable[-1], table_out=table)
    return size, Lz4State(small, usable[-1], out, osize, tuple(table))


def _compress(src: bytes, osize: int, state: Lz4State | None,
              w: list[int] | None = None, *, tops: list[int] | None = None,
              stop_at: int | None = None, table_out: list[int] | None = None) -> int:
    """The compressor, from ``state`` or the start. ``tops`` collects the anchor of every
    sequence boundary passed; with ``stop_at`` it stops at the boundary of that anchor,
    returns the bytes written so far and leaves the hash table in ``table_out``."""
    isize = len(src)
    if isize < MINLENGTH:
        return _last_literals(isize, 0, osize)
    small = isize < LZ4_64KLIMIT  # LZ4_compress64kCtx: 16-bit offsets, no distance check
    log = HASH_LOG + 1 if small else HASH_LOG
    shift = 32 - log
    mul = HASH_MULTIPLIER
    if w is None:
        w = words_of(src)
    mflimit, matchlimit = isize - MFLIMIT, isize - LASTLITERALS
    if state is None:
        table = [0] * (1 << log)  # zeroed: an empty slot points at the first byte
        out = anchor = 0
    else:
        table = list(state.table)
        out, anchor = state.out, state.anchor
    ip = anchor + 1
    forward_h = ((w[ip] * mul) & 0xFFFFFFFF) >> shift
    while True:
        if tops is not None:
            tops.append(anchor)
        if anchor == stop_at and table_out is not None:
            table_out[:] = table
            return out
        attempts = 67  # (1 << SKIPSTRENGTH) + 3
        forward = ip
        while True:  # find a match
            h = forward_h
            step = attempts >> 6
            attempts += 1
            ip = forward
            forward = ip + step
            if forward > mflimit:
                return _last_literals(isize - anchor, out, osize)
            forward_h = ((w[forward] * mul) & 0xFFFFFFFF) >> shift
            ref = table[h]
            table[h] = ip
            if w[ref] == w[ip] and (small or ref >= ip - MAX_DISTANCE):
                break
        while ip > anchor and ref > 0 and src[ip - 1] == src[ref - 1]:  # catch up
            ip -= 1
            ref -= 1
        length = ip - anchor
        if out + 1 + length + 8 + (length >> 8) > osize:
            return 0
        out += 1 + _length_bytes(length) + length
        while True:  # a match at ip from ref
            out += 2
            ip += 4
            ref += 4
            start = ip
            while ip < matchlimit and w[ip] == w[ref]:
                ip += 4
                ref += 4
                if ip - start >= 32:  # a long match: compare in slices
                    k = 64
                    while ip + k <= matchlimit and src[ip:ip + k] == src[ref:ref + k]:
                        ip += k
                        ref += k
                        k *= 2
                    while k > 4:
                        k //= 2
                        if ip + k <= matchlimit and src[ip:ip + k] == src[ref:ref + k]:
                            ip += k
                            ref += k
                    break
            if ip > matchlimit:
                ip = matchlimit
            while ip < matchlimit and src[ip] == src[ref]:
                ip += 1
                ref += 1
            match = ip - start
            if out + 6 + (match >> 8) > osize:
                return 0
            out += _length_bytes(match)
            if ip > mflimit:
                return _last_literals(isize - ip, out, osize)
            table[((w[ip - 2] * mul) & 0xFFFFFFFF) >> shift] = ip - 2
            h = ((w[ip] * mul) & 0xFFFFFFFF) >> shift
            ref = table[h]
            table[h] = ip
            if w[ref] == w[ip] and (small or ref >= ip - MAX_DISTANCE):
                out += 1  # a token with no literals
                continue
            anchor = ip
            ip += 1
            forward_h = ((w[ip] * mul) & 0xFFFFFFFF) >> shift
            break


@cache
def _page_lz4() -> Callable[[bytes, int], int] | None:
    """The page worker's JavaScript twin of ``lz4_size`` (Pyodide only), or None.

    Looked up on first use, not on import: the page's worker starts from a memory snapshot
    taken in Node after labsim was imported (tools/pyodide_snapshot.mjs), where the worker's
    ``zfsLz4Size`` is not there."""
    try:
        import js  # type: ignore[import-not-found]
        from pyodide.ffi import to_js  # type: ignore[import-not-found]
    except ImportError:
        return None
    function = getattr(js, "zfsLz4Size", None)
    if function is None:
        return None
    return lambda src, osize: int(function(to_js(src), osize))



def lz4_backend() -> str:
    """Which implementation runs: "javascript" in the page's worker, else "python"."""
    return "javascript" if _page_lz4() is not None else "python"


def lz4_block_size(src: bytes, osize: int) -> int:
    """``lz4_size`` by the fastest implementation at hand (the same sizes either way)."""
    page = _page_lz4()
    if page is not None:
        return page(src, osize)
    return lz4_size(src, osize)
