"""The page compresses as CPython does: the same compressed sizes for a fixed set of
records (seq output, yes, zeros, words, random bytes, mixes; 4K to 1M) under every
algorithm, although the page runs other code for some of them (ZFS's LZ4 in JavaScript,
docs/javascripts/zfs-lz4.js, instead of the Python port; Pyodide's zlib and zstd instead of
the host's zlib and backports.zstd). One differing size fails the test. And the same
`seq 1 1000000 > f` through the shell gives the same `zfs get` figures in both."""

from __future__ import annotations

import json

from labsim.zfs import compressors

LESSON = "lessons/01-pools-vdevs/"
PYTHON_TIMEOUT = 90_000

# Runs unchanged in CPython (here) and in the page's worker (its _exec method); the last
# expression is the JSON of every size.
SIZES = r"""
import json as _json, random as _random
from labsim import Session as _Session
from labsim.content import model as _m
from labsim.content.seq import SeqText as _Seq
from labsim.zfs import compressors as _c
from labsim.zfs.lz4_zfs import lz4_backend as _lz4_backend

def _records():
    rng = _random.Random(15)
    vocab = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(500)]
    words = b" ".join(rng.choice(vocab) for _ in range(250_000))
    seq = _m.read(_m.of_source(_Seq(1, 1, 400_000)), 0, 1 << 21)
    seq_high = _m.read(_m.of_source(_Seq(5_000_000, 1, 5_300_000)), 0, 1 << 21)
    rand = _m.read(_m.of_source(_m.RandomBytes(9), 1 << 21), 0, 1 << 21)
    streams = {
        "seq": seq, "seq-5M": seq_high, "yes": b"ZFS Field Labs\n" * 150_000,
        "zeros": bytes(1 << 21), "words": words[:1 << 21], "random": rand,
        "random+seq": rand[:40_000] + seq[:1 << 21],
        "zeros+words": bytes(70_000) + words[:1 << 21],
        "fio50": _m.read(_m.of_source(_m.FioBuffers(50, 4096, 2), 1 << 21), 0, 1 << 21),
    }
    for name, data in streams.items():
        for size in (4096, 16384, 131072, 1 << 20):
            yield f"{name}/{size}", data[:size]

def _sizes():
    out = {"lz4 backend": _lz4_backend(), "zstd backend": _c.zstd_backend()}
    for key, data in _records():
        n = len(data)
        row = {"lz4": _c.lz4_compress(data, n + 64),
               "lz4 7/8": _c.lz4_compress(data, n - n // 8),
               "zle": _c.zle_compress(data, n)}
        for level in (1, 6, 9):
            row[f"gzip-{level}"] = _c.gzip_compress(data, n + 64, level)
        for level in (1, 3, -5) + ((19,) if n <= 131072 else ()):
            row[f"zstd {level}"] = _c.zstd_frame_size(data, level)
        row["zstd-19 early abort 7/8"] = _c.zstd_compress(data, n - n // 8, 19, True)
        if n <= 131072:
            row["lzjb"] = _c.lzjb_compress(data, n)
        out[key] = row
    s = _Session()
    for line in ("truncate -s 512M /var/tmp/b.raw", "zpool create -o ashift=12 b /var/tmp/b.raw",
                 "zfs create -o compression=lz4 b/lz4", "zfs create -o compression=gzip b/gz",
                 "zfs create -o compression=zstd b/zs", "seq 1 1000000 > /b/lz4/s",
                 "seq 1 1000000 > /b/gz/s", "seq 1 1000000 > /b/zs/s", "zpool sync b"):
        s.run(line)
    out["zfs get"] = s.run("zfs get -Hp -r -o name,property,value used,logicalused,"
                           "compressratio b").stdout
    return _json.dumps(out, sort_keys=True)

_sizes()
"""


def cpython_sizes() -> dict:
    scope: dict = {}
    exec(SIZES.rsplit("\n_sizes()", 1)[0], scope)  # noqa: S102 - our own test source
    return json.loads(scope["_sizes"]())


def test_page_and_cpython_compress_to_the_same_sizes(page, site):
    expected = cpython_sizes()
    assert expected["lz4 backend"] == "python"
    assert expected["zstd backend"] == compressors.zstd_backend() == "zstd 1.5.7"
    page.goto(site + LESSON)
    page.wait_for_function("() => window.labsim !== undefined")
    text = page.evaluate("(source) => window.labsim.call('_exec', source)", SIZES)
    got = json.loads(text)
    assert got["lz4 backend"] == "javascript"  # the page ran the other implementation
    assert got["zstd backend"] == expected["zstd backend"]
    differing = [(key, algorithm, expected[key][algorithm], sizes[algorithm])
                 for key, sizes in got.items() if isinstance(sizes, dict)
                 for algorithm in sizes if sizes[algorithm] != expected[key][algorithm]]
    assert not differing
    assert got.keys() == expected.keys()
    assert got["zfs get"] == expected["zfs get"]
