"""labsim.zfs.compressors against ZFS's own C code, and ZFS's rules around them.

The sizes below were produced by OpenZFS's compressors compiled from the sources
(module/zfs/lz4_zfs.c, lzjb.c and zle.c at zfs-2.3.9) by tools/compression_exactness.py;
labsim's ports must give them exactly. zstd and gzip run libraries (zstd 1.5.7, zlib): their
sizes are pinned as those libraries give them, so a change of library shows here (and the
page must give the same, tests/browser/test_compression_backends.py)."""

from __future__ import annotations

import pytest
from test_compression import lz4_reference

from labsim import Session
from labsim.content import model
from labsim.content.seq import SeqText
from labsim.zfs import compression, compressors
from labsim.zfs.versions import MinSavings

KiB, MiB = 1 << 10, 1 << 20
SEQ = model.of_source(SeqText(1, 1, 1_000_000))
YES = b"ZFS Field Labs\n" * 70_000
MIXED_ZEROS = (b"abc" + bytes(300)) * 20

# (offset, size) of a record of `seq 1 1000000`: ZFS's lz4 (d_len 7/8 of the record, and
# unbounded), lzjb and zle (d_len 7/8), as the C code returns them
SEQ_RECORDS = [
    ((0, 4 * KiB), 4096, 4032, 3427, 4096),
    ((333_333, 16 * KiB), 11109, 11109, 9271, 16384),
    ((777_777, 128 * KiB), 77236, 77236, 63105, 131072),
    ((2_000_000, MiB), 617336, 617336, 504568, MiB),
]


@pytest.mark.parametrize(("where", "lz4", "lz4_unbounded", "lzjb", "zle"), SEQ_RECORDS)
def test_seq_records_as_zfs_compresses_them(where, lz4, lz4_unbounded, lzjb, zle):
    data = model.read(SEQ, *where)
    n = len(data)
    assert compressors.lz4_compress(data, n - n // 8) == lz4
    assert compressors.lz4_compress(data, n + 1024) == lz4_unbounded
    assert compressors.lzjb_compress(data, n - n // 8) == lzjb
    assert compressors.zle_compress(data, n - n // 8) == zle


@pytest.mark.parametrize(("n", "lz4", "lzjb"), [(4 * KiB, 45, 209), (128 * KiB, 543, 4288),
                                               (MiB, 4141, 33799)])
def test_repeated_text_as_zfs_compresses_it(n, lz4, lzjb):
    data = YES[:n]
    assert compressors.lz4_compress(data, n) == lz4
    assert compressors.lzjb_compress(data, n) == lzjb
    assert compressors.zle_compress(data, n) == n  # no zeros: zle cannot shrink it


def test_zeros_between_text():
    n = len(MIXED_ZEROS)
    assert compressors.zle_compress(MIXED_ZEROS, n - n // 8) == 120
    assert compressors.lzjb_compress(MIXED_ZEROS, n - n // 8) == 260
    assert compressors.lz4_compress(MIXED_ZEROS, n) == 45


def test_the_port_agrees_with_the_statement_by_statement_port_of_lz4_c():
    for where in [(5_000, 70_000), (100, 65_546), (100, 65_547), (9_999, 200_000)]:
        data = model.read(SEQ, *where)
        assert compressors.lz4_compress(data, 2 * len(data)) == 4 + lz4_reference(data)


@pytest.mark.parametrize(("where", "gzip1", "gzip6", "gzip9"), [
    ((0, 4 * KiB), 1840, 1949, 1949), ((333_333, 16 * KiB), 5785, 5279, 5279),
    ((777_777, 128 * KiB), 41299, 38832, 38825), ((2_000_000, MiB), 330171, 315974, 315984)])
def test_gzip_levels(where, gzip1, gzip6, gzip9):
    data = model.read(SEQ, *where)
    n = len(data)
    assert [compressors.gzip_compress(data, n, level) for level in (1, 6, 9)] == \
        [gzip1, gzip6, gzip9]
    # compress2() into a buffer one byte too small fails: the block is stored as is
    assert compressors.gzip_compress(data, gzip6 - 1, 6) == n


needs_zstd = pytest.mark.skipif(compressors.zstd_backend() is None,
                                reason="no zstd (pip install labsim[compress])")


@needs_zstd
@pytest.mark.parametrize(("where", "frames"), [
    ((0, 4 * KiB), [1733, 1778, 1733, 4101]),
    ((333_333, 16 * KiB), [1058, 1701, 1042, 9604]),
    ((777_777, 128 * KiB), [8773, 8523, 5726, 78438]),
    ((2_000_000, MiB), [431778, 43033, 32618, 705140])])
def test_zstd_frames_with_zfs_header(where, frames):
    assert compressors.zstd_backend() == "zstd 1.5.7"
    data = model.read(SEQ, *where)
    n = len(data)
    assert [compressors.zstd_frame_size(data, level) for level in (1, 3, 19, -5)] == frames
    # zfs_zstdhdr_t: 8 bytes before the frame; no room for them and it fails
    assert compressors.zstd_compress_impl(data, n, 3) == frames[1] + 8
    assert compressors.zstd_compress_impl(data, frames[1] + 7, 3) == n


@needs_zstd
def test_zstd_early_abort_only_gives_up_what_lz4_and_zstd_1_cannot_shrink():
    # Seq output at 1M: zstd-3 fits 7/8 easily, so does zstd-1: no change.
    data = model.read(SEQ, 2_000_000, MiB)
    d_len = MiB - MiB // 8
    assert compressors.zstd_compress(data, d_len, 3, early_abort=True) == 43033 + 8
    # zstd-19 at 4M of seq would fit a tighter limit than zstd-1 or LZ4 do: with the
    # early abort (2.2 and later) the block is stored as is, without it compressed.
    tight = 40_000
    assert compressors.lz4_compress(data, tight) == MiB
    assert compressors.zstd_compress_impl(data, tight, 1) == MiB
    assert compressors.zstd_compress(data, tight, 19, early_abort=False) == 32618 + 8
    assert compressors.zstd_compress(data, tight, 19, early_abort=True) == MiB
    # below 128K or below zstd-3 there is no early abort
    small = data[:64 * KiB]
    assert compressors.zstd_compress(small, 1200, 19, early_abort=True) == \
        compressors.zstd_compress(small, 1200, 19, early_abort=False)


def test_property_values_name_algorithm_and_level():
    assert [compressors.parse(v) for v in ("on", "lz4", "gzip", "gzip-9", "zstd", "zstd-19",
                                           "zstd-fast", "zstd-fast-500", "zle", "lzjb")] == [
        ("lz4", 0), ("lz4", 0), ("gzip", 6), ("gzip", 9), ("zstd", 3), ("zstd", 19),
        ("zstd", -1), ("zstd", -500), ("zle", 0), ("lzjb", 0)]


# ------------------------------------------------------------------ ZFS's rules, per record

def block(content, offset, size, compression_name, ashift=12, rule=MinSavings.SEVEN_EIGHTHS):
    return compression.block_of(content, offset, size, size, compression_name, ashift, rule)


@pytest.mark.parametrize("name", ["lz4", "gzip", "zle", "lzjb"] +
                         (["zstd"] if compressors.zstd_backend() else []))
def test_an_all_zero_record_is_a_hole_whatever_makes_it(name):
    zeros = model.concat(model.of_source(model.Literal(bytes(1000))), model.zeros(127 * KiB))
    assert block(zeros, 0, 128 * KiB, name) == compression.HOLE
    assert block(zeros, 0, 128 * KiB, "off").psize == 128 * KiB


def test_random_records_are_stored_as_is_without_a_compressor():
    random_data = model.of_source(model.RandomBytes(5), MiB)
    for name in ("lz4", "gzip", "lzjb"):
        assert block(random_data, 0, 128 * KiB, name).psize == 128 * KiB


def test_a_record_of_random_bytes_and_text_is_compressed_for_real():
    mix = model.concat(model.of_source(model.RandomBytes(5), 64 * KiB),
                       model.of_source(model.Repeat(b"y\n"), 64 * KiB))
    data = model.read(mix, 0, 128 * KiB)
    expected = compressors.gzip_compress(data, 112 * KiB, 6)
    assert block(mix, 0, 128 * KiB, "gzip").psize == compression.round_to_sectors(expected, 12)
    assert block(mix, 0, 128 * KiB, "lz4").psize == 68 * KiB  # 64K + a little, in 4K


def test_2_3_needs_a_whole_sector_saved_2_1_does_not():
    # seq output in 4K records at ashift 9: lzjb makes 3427 bytes of a record (7 sectors
    # of 512: saved). At ashift 12, 7/8 of 4K rounds down to no sector at all in 2.3, so
    # only an embedded block could be stored compressed; 2.1 still needs the 4K sector.
    assert block(SEQ, 0, 4 * KiB, "lzjb", ashift=9).psize == 3584
    assert block(SEQ, 0, 4 * KiB, "lzjb", 12, MinSavings.SEVEN_EIGHTHS).psize == 4096
    assert block(SEQ, 0, 4 * KiB, "lzjb", 12, MinSavings.SEVEN_EIGHTHS_IN_SECTORS).psize == 4096
    # 16K records of seq under lzjb: 2.1 stores 12K (9271 bytes rounded up); 2.3's
    # target, 14K rounded down to 12K, still admits it
    assert block(SEQ, 333_333, 16 * KiB, "lzjb", 12,
                 MinSavings.SEVEN_EIGHTHS_IN_SECTORS).psize == 12 * KiB


def test_zle_keeps_the_unrounded_target_in_2_3():
    assert compression.max_compressed_size(40 * KiB, 12, MinSavings.SEVEN_EIGHTHS_IN_SECTORS,
                                           "zle") == 35 * KiB
    assert compression.max_compressed_size(40 * KiB, 12, MinSavings.SEVEN_EIGHTHS_IN_SECTORS,
                                           "lz4") == 32 * KiB


def test_tiny_compressed_records_are_embedded_and_count_their_logical_size():
    yes = model.of_source(model.Repeat(b"ZFS Field Labs\n"), MiB)
    # 45 bytes (ZFS's 4-byte header included), the payload of the block pointer
    assert block(yes, 0, 4 * KiB, "lz4") == compression.Block(0, embedded=True, payload=45)
    assert block(yes, 0, 128 * KiB, "lz4").psize == 4 * KiB  # 543 bytes, one sector


# ------------------------------------------------------------------ through the shell

def run(lines: list[str], version: str = "2.3") -> Session:
    from labsim.zfs.versions import get_version

    session = Session(version=get_version(version))
    for line in ["truncate -s 1G /var/tmp/c.raw", "zpool create -o ashift=12 c /var/tmp/c.raw",
                 *lines]:
        result = session.run(line)
        assert result.status == 0, (line, result.stderr)
    return session


def used(session: Session, dataset: str) -> list[int]:
    out = session.run(f"zfs get -Hp -o value used,logicalused {dataset}").stdout.split()
    return [int(v) for v in out]


def test_seq_output_compresses_and_travels_with_cat():
    session = run(["zfs create -o compression=lz4 c/a", "zfs create -o compression=lz4 c/b",
                   "zfs create -o compression=off c/off",
                   "seq 1 500000 > /c/a/seq.txt", "cat /c/a/seq.txt > /c/b/copy.txt",
                   "seq 1 500000 > /c/off/seq.txt", "zpool sync c"])
    assert used(session, "c/a") == used(session, "c/b")
    lz4_used, logical = used(session, "c/a")
    off_used, _ = used(session, "c/off")
    assert logical > 3_400_000 and lz4_used < 0.8 * off_used
    ls = session.run("ls -l /c/b/copy.txt").stdout
    assert " 3388895 " in ls  # seq 1 500000 | wc -c


def test_yes_through_head_and_appending():
    session = run(["zfs create -o compression=lz4 c/y", "yes abc | head -c 1M > /c/y/y.txt",
                   "echo end >> /c/y/y.txt", "zpool sync c"])
    assert " 1048580 " in session.run("ls -l /c/y/y.txt").stdout
    assert session.run("head -c 9 /c/y/y.txt").stdout == "abc\nabc\na"
    assert session.run("cat /c/y/y.txt | head -n 1").stdout == "abc\n"


def test_dd_overwrite_keeps_the_rest_of_the_file():
    session = run(["zfs create -o compression=lz4 -o recordsize=128K c/d",
                   "seq 1 1000000 > /c/d/f", "zpool sync c"])
    before, logical = used(session, "c/d")
    session.run("dd if=/dev/urandom of=/c/d/f bs=128K count=4 seek=2 conv=notrunc status=none")
    session.run("zpool sync c")
    after, logical_after = used(session, "c/d")
    assert logical_after == logical  # same size, same records
    assert after > before  # 4 records of seq became random
    assert session.run("head -c 8 /c/d/f").stdout == "1\n2\n3\n4\n"


def test_output_to_the_terminal_is_printed_up_to_a_limit():
    session = Session()
    assert session.run("seq 3").stdout == "1\n2\n3\n"
    big = session.run("yes")
    assert big.status == 0 and "not simulated" in big.stderr and big.stdout == ""
    assert session.run("seq 5 > /dev/null").stdout == ""
    assert session.run("seq 1.5 3").stderr.startswith("labsim: seq")
    assert session.run("seq x").stderr == ("seq: invalid floating point argument: 'x'\n"
                                           "Try 'seq --help' for more information.\n")
    assert session.run("printf '%s=%d\\n' a 1 b 2").stdout == "a=1\nb=2\n"
    assert session.run("seq -f 'pool %g of 3' 2 3").stdout == "pool 2 of 3\npool 3 of 3\n"
    assert session.run("seq -f '%g%%' 1 2").stdout == "1%\n2%\n"
    assert "not simulated" in session.run("seq -f '%g' 999999 1000000").stderr
