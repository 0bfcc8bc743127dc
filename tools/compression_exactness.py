"""How exactly labsim's compressors reproduce OpenZFS's: compiles ZFS's own C compressors
from the OpenZFS sources (lz4_zfs.c, lzjb.c and zle.c of zfs-2.3.9, and the zstd 1.4.5
that zfs-2.1.11 to 2.3.9 embed) with the host's gcc, runs them and labsim's on the same
records (seq output, yes, words, a mix, fio's half-random buffers; 4K to 1M) and prints
one JSON object: per algorithm, how many records gave the same size and the spread of
the differences, and for reference what LZ4 1.9 (the `lz4` package, if installed) gives.

    python tools/compression_exactness.py [/path/to/openzfs.git]

Needs gcc and a clone of OpenZFS (default /work/.mirror/openzfs+zfs/repo). Not part of the
test suite (it needs a compiler); its findings are quoted in labsim.zfs.compressors."""

from __future__ import annotations

import ctypes
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("LABSIM_SRC") or str(REPO / "sim" / "src"))

from labsim.content import model  # noqa: E402
from labsim.content.seq import SeqText  # noqa: E402
from labsim.zfs import compressors  # noqa: E402

SHIMS = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#define _LP64 1
typedef unsigned char uchar_t;
typedef struct kmem_cache kmem_cache_t;
#define KM_SLEEP 0
#define KMC_RECLAIMABLE 0
#define NBBY 8
#define ASSERT(x)
#define ASSERT3U(a, op, b)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define BE_32(x) __builtin_bswap32(x)
#define BE_IN32(p) __builtin_bswap32(*(uint32_t *)(p))
static size_t refsize = 65536;
static void *kmem_cache_alloc(kmem_cache_t *c, int f) { return malloc(refsize); }
static void kmem_cache_free(kmem_cache_t *c, void *p) { free(p); }
static kmem_cache_t *kmem_cache_create(const char *n, size_t s, int a, void *b, void *c,
    void *d, void *e, void *f, int g) { refsize = s; return (kmem_cache_t *)1; }
static void kmem_cache_destroy(kmem_cache_t *c) {}
static void *kmem_zalloc(size_t n, int f) { return calloc(1, n); }
static void kmem_free(void *p, size_t n) { free(p); }
int LZ4_uncompress_unknownOutputSize(const char *s, char *d, int i, int m) { return -1; }
"""

# ZFS's data buffers are page-aligned (zio_buf_alloc()); lzjb keeps the low bits of
# addresses, so the block is copied into an aligned buffer first.
WRAPPERS = r"""
static char out[(1 << 21) + 4096];
static char in[(1 << 21)] __attribute__((aligned(4096)));
int ref_lz4(const char *src, int n, int d_len) {
    lz4_cache = (kmem_cache_t *)1;
    memcpy(in, src, n);
    return (int)zfs_lz4_compress_buf(in, out, n, d_len, 0);
}
int ref_lzjb(const char *src, int n, int d_len) {
    memcpy(in, src, n);
    return (int)zfs_lzjb_compress_buf(in, out, n, d_len, 0);
}
int ref_zle(const char *src, int n, int d_len) {
    memcpy(in, src, n);
    return (int)zfs_zle_compress_buf(in, out, n, d_len, 64);
}
"""


def _source(git: str, tag: str, path: str) -> str:
    text = subprocess.run(["git", "-C", git, "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("#include") and "_WRAP_DECL" not in line)


def build(git: str, work: Path) -> tuple[ctypes.CDLL, ctypes.CDLL]:
    c_file = work / "zfs_compress.c"
    c_file.write_text(SHIMS + _source(git, "zfs-2.3.9", "module/zfs/lz4_zfs.c")
                      + _source(git, "zfs-2.3.9", "module/zfs/lzjb.c")
                      + _source(git, "zfs-2.3.9", "module/zfs/zle.c") + WRAPPERS)
    lib = work / "libzfscompress.so"
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-w", "-o", str(lib), str(c_file)],
                   check=True)
    for name in ("zstd.c", "zstd.h", "zstd_errors.h"):
        (work / name).write_text(subprocess.run(
            ["git", "-C", git, "show", f"zfs-2.1.11:module/zstd/lib/{name}"], check=True,
            capture_output=True, text=True).stdout)
    zlib_so = work / "libzstd145.so"
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-w", "-DZSTD_STATIC_LINKING_ONLY",
                    f"-I{work}", "-o", str(zlib_so), str(work / "zstd.c")], check=True)
    zfs, zstd = ctypes.CDLL(str(lib)), ctypes.CDLL(str(zlib_so))
    for fn in (zfs.ref_lz4, zfs.ref_lzjb, zfs.ref_zle):
        fn.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    zstd.ZSTD_createCCtx.restype = ctypes.c_void_p
    zstd.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    zstd.ZSTD_compress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.c_char_p, ctypes.c_size_t]
    zstd.ZSTD_compress2.restype = ctypes.c_size_t
    zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]
    zstd.ZSTD_freeCCtx.argtypes = [ctypes.c_void_p]
    return zfs, zstd


def zstd145(lib: ctypes.CDLL, data: bytes, level: int) -> int:
    """zfs_zstd_compress_impl()'s frame: level, magicless, no checksum, no content size."""
    cctx = lib.ZSTD_createCCtx()
    for param, value in ((100, level), (10, 1), (201, 0), (200, 0)):
        lib.ZSTD_CCtx_setParameter(cctx, param, value)
    cap = 2 * len(data) + 1024
    buf = ctypes.create_string_buffer(cap)
    size = lib.ZSTD_compress2(cctx, buf, cap, data, len(data))
    lib.ZSTD_freeCCtx(cctx)
    return -1 if lib.ZSTD_isError(size) else size


def records() -> list[tuple[str, bytes]]:
    rng = random.Random(1)
    seq = model.read(model.of_source(SeqText(1, 1, 1_500_000)), 0, 1 << 24)
    vocab = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(2000)]
    words = b" ".join(rng.choice(vocab) for _ in range(400_000))
    fio = model.read(model.of_source(model.FioBuffers(50, 4096, seed=3), 1 << 22), 0, 1 << 22)
    streams = {"seq": seq, "yes": b"ZFS Field Labs\n" * 200_000, "words": words,
               "mix": rng.randbytes(300_000) + seq[:300_000] + bytes(200_000) + words[:600_000],
               "fio50": fio}
    out = []
    for name, data in streams.items():
        for size in (4096, 16384, 131072, 1 << 20):
            for offset in (0, 333_333, 777_777):
                record = data[offset:offset + size]
                if len(record) == size:
                    out.append((f"{name}/{size}@{offset}", record))
    return out


def summary(diffs: list[float]) -> dict:
    same = sum(1 for d in diffs if d == 0)
    return {"records": len(diffs), "same_size": same,
            "mean_diff_percent": round(statistics.mean(diffs), 2),
            "min_diff_percent": round(min(diffs), 2), "max_diff_percent": round(max(diffs), 2)}


def main() -> int:
    git = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/openzfs+zfs/repo"
    with tempfile.TemporaryDirectory() as tmp:
        zfs, zstd = build(git, Path(tmp))
        diffs: dict[str, list[float]] = {}

        def note(key: str, ours: int, theirs: int) -> None:
            diffs.setdefault(key, []).append(0.0 if ours == theirs
                                             else 100 * (ours - theirs) / theirs)

        try:
            import lz4.block as lz4_block
        except ImportError:
            lz4_block = None
        for _, data in records():
            n = len(data)
            for d_len in (n - n // 8, n + 1024):
                note(f"lz4 (d_len {'7/8' if d_len < n else 'unbounded'})",
                     compressors.lz4_compress(data, d_len), zfs.ref_lz4(data, n, d_len))
            note("lzjb", compressors.lzjb_compress(data, n - n // 8),
                 zfs.ref_lzjb(data, n, n - n // 8))
            note("zle", compressors.zle_compress(data, n - n // 8),
                 zfs.ref_zle(data, n, n - n // 8))
            if lz4_block is not None:
                note("LZ4 1.9 library vs ZFS's lz4",
                     len(lz4_block.compress(data, store_size=False)),
                     zfs.ref_lz4(data, n, n + 1024) - 4)
            if compressors.zstd_backend() is not None:
                for level in (1, 3, 9, 19):
                    if level == 19 and n > 131072:
                        continue
                    note(f"zstd-{level} ({compressors.zstd_backend()} vs zstd 1.4.5)",
                         compressors.zstd_frame_size(data, level), zstd145(zstd, data, level))
    print(json.dumps({key: summary(values) for key, values in diffs.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
