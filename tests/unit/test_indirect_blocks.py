"""Level-1 indirect blocks sized from their block pointers' bytes (labsim.zfs.indirect_blocks)."""

from __future__ import annotations

from labsim.content import model
from labsim.shell.session import Session
from labsim.zfs import compression, indirect_blocks, records
from labsim.zfs.versions import get_version

KiB, MiB = 1024, 1024 * 1024


def unique_pointers(count: int, psize: int = 128 * KiB) -> tuple:
    return tuple((i + 1, (128 * KiB, psize, False, 0)) for i in range(count))


def test_pointers_to_random_records_cost_what_lab_4_recorded():
    # Lab 4 (2.1.11, ashift 12): an indirect block of 32 pointers or fewer is 4K, of 128
    # 8K, of 256 12K. The laid-out pointers give those sectors without a fitted constant.
    for count, sectors in ((32, 1), (128, 2), (256, 3)):
        lz4 = indirect_blocks._level_one_compressed(unique_pointers(count), 1, 15, 12)
        assert compression.round_to_sectors(lz4, 12) == sectors * 4 * KiB, count


def test_unique_pointers_keep_the_measured_estimate():
    children = [indirect_blocks.Child(("random", i), 128 * KiB, compression.Block(128 * KiB))
                for i in range(100)]
    assert indirect_blocks.level_one_psize(children, 1, "lz4", 12) == \
        records.indirect_psize(100, 12)


def test_repeating_records_compress_their_level_one_block():
    # 64 records of 128K of "parity\n": seven phases, so seven distinct blocks of one
    # sector each; the pointers repeat every seven but for their DVA offsets.
    content = model.of_source(model.Repeat(b"parity\n"), 8 * MiB)
    psizes = indirect_blocks.file_level_one_psizes(8 * MiB, 128 * KiB, content, 64, "gzip",
                                                   9, 1)
    assert psizes is not None and psizes[0] < records.indirect_psize(64, 9)
    # 1024 embedded 8K records of "ashift\n": the block is its first seven pointers and
    # one long match
    content = model.of_source(model.Repeat(b"ashift\n"), 8 * MiB)
    assert indirect_blocks.file_level_one_psizes(8 * MiB, 8 * KiB, content, 1024, "lz4",
                                                 12, 1) == [4 * KiB]


def test_zeros_stored_as_they_are_repeat_in_their_level_one_block():
    # Generated seed 32 on 2.1.11 (compression=off by default): 300K of zeros in 4K
    # records, 75 pointers alike but for their DVA offsets (the checksum of zeros is
    # zero). The root's REFER (439296..440320 at ashift 9) leaves a level-1 block of
    # two sectors for them, not the seven of 75 pointers to random data.
    content = compression.as_content("zero", 300 * KiB)
    assert indirect_blocks.file_level_one_psizes(300 * KiB, 4 * KiB, content, 75, "off",
                                                 9, 1) == [1024]
    assert records.indirect_psize(75, 9) == 3584


def test_one_stream_files_keep_the_estimate():
    content = compression.as_content("random", 8 * MiB)
    assert indirect_blocks.file_level_one_psizes(8 * MiB, 128 * KiB, content, 64, "lz4",
                                                 12, 1) is None


def test_yes_in_small_records_as_real_openzfs_counts_it():
    # Generated seed 75 on 2.3.9 (tests/fixtures/real/2.3.9/generated/seed-0075.txt):
    # 16 MiB of "ashift\n" in 8K records under lz4, every record embedded, copies=2, on
    # RAID-Z3 at ashift 12: logicalused 16832512, compressratio 304.40 (the two level-1
    # blocks and the level-2 block, a sector each, and the file system's own 42K).
    session = Session(version=get_version("2.3"))
    disks = " ".join(f"/var/tmp/d{i}.raw" for i in range(5))
    for line in [f"truncate -s 512M {disks}",
                 f"zpool create -o ashift=12 p raidz3 {disks}",
                 "zfs set copies=2 p", "zfs create -o recordsize=8K p/fs",
                 "yes ashift | head -c 16777216 > /p/fs/f", "zpool sync p"]:
        assert session.run(line).status == 0, line
    out = session.run("zfs get -Hp -o value logicalused,compressratio p/fs").stdout.split()
    assert out == ["16832512", "304.40"]
