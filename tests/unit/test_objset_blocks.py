"""A file system's own objset blocks as REFER and logicalreferenced count them
(labsim.zfs.objset, labsim.zfs.metadata_blocks): the copies the SA layouts are written
with, and which chunk of object numbers a mountpoint directory takes. The figures are
those of the generated tuning recordings named in each test (OpenZFS 2.1.11 and 2.3.9
agree on them)."""

from __future__ import annotations

import pytest

from labsim import Session, run_script
from labsim.zfs.dnode_contents import first_block_compressed
from labsim.zfs.versions import get_version

V = "/var/tmp/labs/t/"


def run_all(session: Session, script: str) -> None:
    for line, result in run_script(script, session):
        assert result.status == 0, (line, result.stderr)


def column(session: Session, name: str, prop: str) -> int:
    result = session.run(f"zfs get -Hp -o value {prop} {name}")
    assert result.status == 0, result.stderr
    return int(result.stdout)


@pytest.mark.parametrize(("release", "data"), [("2.1", 61440), ("2.3", 0)])
def test_the_roots_first_file_writes_its_sa_layouts_with_the_copies_of_the_moment(
        release, data):
    # Generated seed 70: copies=3 set on a new pool's root, then its first file (20K of
    # zeros: three copies as it is under 2.1's compression=off, a hole under 2.3's
    # default lz4). 35840 bytes of the root's own: the SA layouts (4K a copy at ashift
    # 9) have three copies, the master node and SA registration the two they were made
    # with (31744 if the layouts kept theirs).
    session = Session(version=get_version(release))
    run_all(session, f"""
mkdir -p {V}
truncate -s 96M {V}d1.raw
truncate -s 128M {V}d2.raw
zpool create -o ashift=9 p {V}d1.raw {V}d2.raw
zfs set recordsize=1M p
zfs set copies=3 p
dd if=/dev/zero of=/p/f1 bs=4K count=5 status=none
zpool sync p
""")
    assert column(session, "p", "referenced") == 35840 + data
    assert column(session, "p", "logicalreferenced") == 12288 + data // 3


@pytest.mark.parametrize("release", ["2.1", "2.3"])
def test_an_import_opens_the_objset_anew_and_the_next_directory_takes_the_first_chunk(
        release):
    # Generated seed 52: a child's mountpoint directory made in the root before an
    # export, a clone's after the import: both in the first dnode block, so the root
    # keeps the 142848 bytes (raidz1 at ashift 12) its empty self had. Without the export
    # the second directory takes another CPU's chunk, a dnode block more (lab 6).
    session = Session(version=get_version(release))
    run_all(session, f"""
mkdir -p {V}
truncate -s 128M {V}d1.raw {V}d2.raw {V}d3.raw {V}d4.raw
zpool create -o ashift=12 p raidz1 {V}d1.raw {V}d2.raw {V}d3.raw {V}d4.raw
zfs snapshot p@s1
zfs create -o recordsize=16K -o compression=gzip p/fs2
""")
    empty = column(session, "p@s1", "referenced")
    assert empty == 142848
    run_all(session, f"""
zpool export p
zpool import -d {V} p
zfs clone p@s1 p/clone5
zpool sync p
""")
    assert column(session, "p", "referenced") == empty
    run_all(session, "zfs clone p@s1 p/clone6\nzpool sync p")
    assert column(session, "p", "referenced") > empty


def test_the_first_dnode_block_compresses_as_its_dnodes_hold():
    # zdb on 2.3.9 at ashift 9 (tests/fixtures/real/2.3.9/probes/lab15-objset-blocks.txt,
    # lab15-dataset-metadata.txt): the master node alone, and with a file of one data
    # block or of holes, one sector. Generated seed 66 (2.3.9): with a file embedded in its
    # pointer and one of one block, two.
    sector = 512
    assert first_block_compressed(()) <= sector
    assert first_block_compressed(("block",)) <= sector
    assert first_block_compressed(("hole",)) <= sector
    assert first_block_compressed(("embedded", "block")) > sector
    # What a dnode holds counts, not only how many there are: holes compress to less
    # than data blocks' pointers, whose checksums LZ4 cannot shorten.
    assert first_block_compressed(("hole",) * 8) < first_block_compressed(("block",) * 8)


def test_a_root_of_files_of_holes_and_a_directory_keeps_one_sector_of_dnodes():
    # Generated seed 32 (2.3.9): two files of zeros (holes under lz4) and a child's
    # mountpoint directory beside the master node: the root's REFER stays 24576 at
    # ashift 9, as an empty file system's.
    session = Session(version=get_version("2.3"))
    run_all(session, f"""
mkdir -p {V}
truncate -s 128M {V}d1.raw {V}d2.raw
zpool create -o ashift=9 p {V}d1.raw {V}d2.raw
zfs set recordsize=4K p
dd if=/dev/zero of=/p/f1 bs=4K count=75 status=none
dd if=/dev/zero of=/p/f2 bs=4K count=25 status=none
zfs create -o recordsize=64K p/fs3
zpool sync p
""")
    assert column(session, "p", "referenced") == 24576
    assert column(session, "p", "logicalreferenced") == 12288
