"""What each of ZFS's compression algorithms makes of a block's bytes.

``zfs_compress(algorithm, level, data, d_len)`` is ci_compress() as
zio_compress_data() (module/zfs/zio_compress.c) calls it, with its verdict: the bytes
the compressed block takes, or ``len(data)`` when the result does not fit in ``d_len``
bytes (the most the block may take, labsim.zfs.compression.max_compressed_size). The
all-zero check (a hole) is the caller's.

* lz4 (module/zfs/lz4_zfs.c): a 4-byte big-endian length, then the LZ4 block of ZFS's
  own LZ4 (labsim.zfs.lz4_zfs, exact; in the page, its JavaScript twin).
* gzip-N (module/zfs/gzip.c): zlib's compress2() at level N into a d_len buffer (the
  kernel module calls z_compress_level(), module/os/linux/spl/spl-zlib.c, the Linux
  kernel's zlib; QAT offload is not modelled). labsim runs Python's zlib, a zlib 1.2/1.3;
  the kernel's lib/zlib_deflate derives from an older zlib and may choose differently on
  some inputs.
* zstd-N and zstd-fast-N (module/zstd/zfs_zstd.c): ZSTD_compress2() at the level, in the
  magicless frame format without checksum or content size, after an 8-byte header
  (zfs_zstdhdr_t: the compressed length and the version and level). OpenZFS 2.1, 2.2
  and 2.3 all embed zstd 1.4.5; labsim runs the zstd it can reach, 1.5.7 (Python 3.14's
  compression.zstd, in Pyodide too, or the backports.zstd package before 3.14), whose
  output differs from 1.4.5's: measured on text, seq output and mixes, within 1 % at
  levels 1-3 on most records but by up to 25 % on some (seq output in 1M records at
  zstd-3), and by much more at high levels (tools/compression_exactness.py). From 2.2,
  zstd at level 3 or more on blocks of 128K or more first tries LZ4, then zstd-1, and
  gives up when both fail (the "early abort", zstd_earlyabort_pass).
* lzjb (module/zfs/lzjb.c) and zle (module/zfs/zle.c): ported here, exact. lzjb keeps
  the low 16 bits of buffer addresses in its table; ZFS's data buffers are aligned to at
  least 1 KiB, so offsets into the block stand for them.
"""

from __future__ import annotations

import zlib
from typing import Any

from labsim.zfs.lz4_zfs import lz4_block_size

LZ4_HEADER = 4  # lz4_compress_zfs(): the LZ4 block's length, big-endian
ZSTD_HEADER = 8  # zfs_zstdhdr_t: c_len and raw_version_level
ZSTD_MAGIC = 4  # the magic number ZFS's magicless frames leave out
ZLE_N = 64  # zio_compress_table: zle's ci_level
ZSTD_DEFAULT_LEVEL = 3  # ZIO_ZSTD_LEVEL_DEFAULT
ZSTD_EARLY_ABORT_SIZE = 128 * 1024  # zstd_abort_size
ZSTD_CUTOFF_LEVEL = 3  # zstd_cutoff_level


class CompressorUnavailable(Exception):
    """The Python running labsim has no zstd (CPython before 3.14 without backports.zstd)."""


def _zstd_module() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]  # 3.14, Pyodide
    except ImportError:
        try:
            from backports import zstd  # the same module for Python 3.9 to 3.13
        except ImportError:
            return None
    return zstd


_ZSTD = _zstd_module()


def zstd_backend() -> str | None:
    """Which zstd labsim runs, "zstd 1.5.7", or None when there is none."""
    return None if _ZSTD is None else f"zstd {_ZSTD.zstd_version}"


def parse(name: str) -> tuple[str, int]:
    """A compression property value as (algorithm, level): "gzip" is gzip-6, "zstd"
    zstd-3, "zstd-fast" zstd-fast-1 (level -1), "on" lz4 (the lz4_compress feature is
    always active in labsim's pools)."""
    if name in ("on", "lz4"):
        return "lz4", 0
    if name == "gzip":
        return "gzip", 6
    if name.startswith("gzip-"):
        return "gzip", int(name[5:])
    if name == "zstd":
        return "zstd", ZSTD_DEFAULT_LEVEL
    if name == "zstd-fast":
        return "zstd", -1
    if name.startswith("zstd-fast-"):
        return "zstd", -int(name[10:])
    if name.startswith("zstd-"):
        return "zstd", int(name[5:])
    return name, 0


def lz4_compress(data: bytes, d_len: int) -> int:
    """zfs_lz4_compress_buf(): the LZ4 block into d_len - 4 bytes after its length."""
    size = lz4_block_size(data, d_len - LZ4_HEADER)
    return len(data) if size == 0 else size + LZ4_HEADER


def gzip_compress(data: bytes, d_len: int, level: int) -> int:
    """zfs_gzip_compress_buf(): compress2() fails (Z_BUF_ERROR) when the output does
    not fit in d_len bytes; the block is then stored as is."""
    size = len(zlib.compress(data, level))
    return size if size <= d_len else len(data)


def zstd_frame_size(data: bytes, level: int) -> int:
    """ZSTD_compress2()'s output in ZFS's magicless format, no checksum, no content size
    (the frame's window descriptor stays: ZFS's frames are not single-segment)."""
    if _ZSTD is None:
        raise CompressorUnavailable("zstd")
    param = _ZSTD.CompressionParameter
    frame = _ZSTD.compress(data, options={param.compression_level: level,
                                          param.content_size_flag: 0,
                                          param.checksum_flag: 0})
    return len(frame) - ZSTD_MAGIC


def zstd_compress_impl(data: bytes, d_len: int, level: int) -> int:
    """zfs_zstd_compress_impl(): the frame into d_len - 8 bytes after the header."""
    size = zstd_frame_size(data, level)
    return size + ZSTD_HEADER if size <= d_len - ZSTD_HEADER else len(data)


def zstd_compress(data: bytes, d_len: int, level: int, early_abort: bool) -> int:
    """zfs_zstd_compress_buf(). With the early abort (2.2 and later), a block of 128K or
    more at level 3 or more is given up, stored as is, when neither LZ4 nor zstd-1 fits
    it in d_len; otherwise it is compressed at its level. The level's own result decides
    in every other case, so LZ4 runs only when zstd-1 fails."""
    s_len = len(data)
    result = zstd_compress_impl(data, d_len, level)
    if not early_abort or level < ZSTD_CUTOFF_LEVEL or s_len < ZSTD_EARLY_ABORT_SIZE:
        return result
    if result >= s_len:
        return s_len
    fast = zstd_compress_impl(data, d_len, 1)
    if 0 < fast <= d_len and fast != s_len:
        return result
    return result if lz4_compress(data, d_len) < d_len else s_len


def lzjb_compress(data: bytes, d_len: int) -> int:
    """zfs_lzjb_compress_buf(), counting its output."""
    match_min, match_max, offset_mask = 3, (1 << 6) + 2, (1 << 10) - 1
    s_len = len(data)
    lempel = [0] * 1024
    out = 0
    copymask = 1 << 7
    src = 0
    tail = s_len - match_max
    while src < s_len:
        copymask <<= 1
        if copymask == 1 << 8:
            if out >= d_len - 1 - 16:
                return s_len
            copymask = 1
            out += 1  # the copymap byte
        if src > tail:
            out += 1
            src += 1
            continue
        a, b, c = data[src], data[src + 1], data[src + 2]
        h = (a << 16) + (b << 8) + c
        h += h >> 9
        h += h >> 5
        slot = h & 1023
        offset = (src - lempel[slot]) & offset_mask
        lempel[slot] = src & 0xFFFF
        cpy = src - offset
        if cpy >= 0 and cpy != src and data[cpy] == a and data[cpy + 1] == b \
                and data[cpy + 2] == c:
            mlen = match_min
            while mlen < match_max and data[src + mlen] == data[cpy + mlen]:
                mlen += 1
            out += 2
            src += mlen
        else:
            out += 1
            src += 1
    return out


def zle_compress(data: bytes, d_len: int, n: int = ZLE_N) -> int:
    """zfs_zle_compress_buf(): runs of up to 256 - n zeros take one byte; other bytes
    are copied in runs of up to n, a run ending before two zeros in a row. Fails (the
    block stays as is) unless all of the block fits in d_len."""
    s_len = len(data)
    src = dst = 0
    while src < s_len and dst < d_len - 1:
        dst += 1  # the length byte
        if data[src] == 0:
            last = min(src + 256 - n, s_len)
            chunk = data[src:last]
            src += len(chunk) - len(chunk.lstrip(b"\0"))
        else:
            if d_len - dst < n:
                break
            last = min(src + n, s_len)
            stop = data.find(b"\0\0", src, last)
            if stop < 0:
                stop = max(src, last - 1)
            if stop < s_len and data[stop]:
                stop += 1
            dst += stop - src
            src = stop
    return dst if src == s_len else s_len


def zfs_compress(algorithm: str, level: int, data: bytes, d_len: int,
                 zstd_early_abort: bool = True) -> int:
    """zio_compress_data() after its all-zero check: the compressed size, or len(data)
    when it exceeds d_len."""
    if algorithm == "lz4":
        size = lz4_compress(data, d_len)
    elif algorithm == "gzip":
        size = gzip_compress(data, d_len, level)
    elif algorithm == "zstd":
        size = zstd_compress(data, d_len, level, zstd_early_abort)
    elif algorithm == "lzjb":
        size = lzjb_compress(data, d_len)
    elif algorithm == "zle":
        size = zle_compress(data, d_len)
    else:
        raise ValueError(f"unknown compression {algorithm!r}")
    return len(data) if size > d_len else size
