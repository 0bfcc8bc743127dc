"""Partial overwrites (labsim.zfs.overwrite): ``dd ... seek=N count=M conv=notrunc`` into an
existing file copies on write only the records it touches (dmu_write() -> dbuf_dirty(),
dsl_dataset_block_kill()), so a snapshot or clone of the old file keeps only those
records, and the old indirect blocks, as its own.

Recorded figures: generated seed 5078 on 2.1.11 and 2.3.9 (tests/fixtures/real/<release>/
generated/seed-5078.txt, .run2.txt and .run3.txt agree to the byte on these).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labsim import Session, run_script
from labsim.zfs import overwrite
from labsim.zfs.versions import VERSIONS, KiB, MiB

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RELEASES = {"2.1": "2.1.11", "2.3": "2.3.9"}


def seed_5078(release: str) -> list[str]:
    """The recorded script of seed 5078, cut after each of its `zfs list -t all`."""
    parts, lines = [], []
    script = FIXTURES / release / "generated" / "seed-5078.sh"
    for line in script.read_text().splitlines():
        lines.append(line)
        if line.startswith("zfs list -p -r -t all"):
            parts.append("\n".join(lines))
            lines = []
    return parts


# One 16K record of random data on that RAID-Z3 of five disks at ashift 9: 32 data
# sectors in 16 rows of two, 48 parity sectors, 80 sectors = 40960 bytes, deflated
# (vdev_deflated_space()) to 16320.
RECORD_DSIZE = 16320


def run_all(session: Session, script: str) -> None:
    for line, result in run_script(script, session):
        assert result.status == 0, (line, result.stderr)


def used(session: Session, name: str) -> int:
    return int(session.run(f"zfs get -Hp -o value used {name}").stdout)


@pytest.mark.parametrize("version", sorted(RELEASES))
def test_a_snapshot_keeps_only_the_records_an_overwrite_touched(version):
    session = Session(version=VERSIONS[version])
    first_listing, second_listing, *_ = seed_5078(RELEASES[version])
    run_all(session, first_listing)
    # f1 keeps its 16K blocks after recordsize=64K (a file of many blocks never changes
    # its block size); the 256K written are 16 of them. Recorded: 329664 (three runs);
    # labsim: the 16 records, the old L1 block (two copies) and the metadata groups
    # (labsim.zfs.snapshots), 4080 bytes short of the recording. 2.1.11 recorded the
    # same figures. Before partial
    # overwrites were modelled the snapshot kept all 512 records (8420304).
    first = used(session, "labg5078@s3")
    assert first == pytest.approx(329664, rel=0.015)
    # A second overwrite, after a clone of the snapshot, touches records 421 to 488, of
    # which 456 to 471 are already the snapshot's own: 52 more records move to it (a
    # clone's hold does not change its origin's unique bytes). Recorded: 1178304, 848640
    # more, in all three runs.
    run_all(session, second_listing)
    assert used(session, "labg5078@s3") - first == 52 * RECORD_DSIZE == 848640
    assert used(session, "labg5078@s3") == pytest.approx(1178304, rel=0.01)


SINGLE = """
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/p.raw
zpool create -o ashift=12 p /var/tmp/labs/p.raw
zfs create -o compression=off p/d
dd if=/dev/urandom of=/p/d/f bs=1M count=8 status=none
zpool sync p
"""


@pytest.fixture
def session() -> Session:
    s = Session()
    run_all(s, SINGLE)
    return s


def test_without_a_snapshot_the_old_records_are_freed(session):
    refer = int(session.run("zfs get -Hp -o value referenced p/d").stdout)
    pool = session.pools["p"]
    alloc = pool.alloc
    run_all(session, "dd if=/dev/urandom of=/p/d/f bs=128K seek=10 count=3 conv=notrunc\n"
            "zpool sync p\nzpool sync p\nzpool sync p")
    # Random records replace random records of the same size: the file takes as much
    # as before (its new L1 block is the old one's size), and once the frees are no
    # longer deferred the pool holds about what it held (its metadata moves a little).
    assert int(session.run("zfs get -Hp -o value referenced p/d").stdout) == refer
    assert abs(pool.alloc - alloc) < 64 * KiB


def test_the_snapshot_keeps_the_records_and_the_old_indirect_block(session):
    run_all(session, "zfs snapshot p/d@s\n"
            "dd if=/dev/urandom of=/p/d/f bs=128K seek=10 count=3 conv=notrunc")
    dataset = session.pools["p"].datasets["p/d"]
    old = dataset.snapshots[0].files["f"]
    new = dataset.files["f"]
    # Records 0-9 and 13-63 are shared; 10-12 are new in the head.
    assert [(r.first, r.count) for r in old.runs] == [(0, 10), (10, 3), (13, 51)]
    assert [(r.first, r.count) for r in new.runs] == [(0, 10), (10, 3), (13, 51)]
    assert old.runs[0] is new.runs[0] and old.runs[2] is new.runs[2]
    assert old.runs[1] is not new.runs[1]
    # 3 records of 128K, the old L1 block of 64 pointers (4K, two copies) and the
    # metadata the head rewrote (labsim.zfs.snapshots: root group and the file's dnode
    # block, 16K at ashift 12 on 2.3).
    data = 3 * 128 * KiB + 2 * 4 * KiB
    assert data < used(session, "p/d@s") <= data + 64 * KiB


def test_ditto_copies_of_the_touched_records_stay_with_the_snapshot():
    def snapshot_used(copies: int) -> int:
        s = Session()
        run_all(s, SINGLE.replace("compression=off", f"compression=off -o copies={copies}"))
        run_all(s, "zfs snapshot p/d@s\n"
                "dd if=/dev/urandom of=/p/d/f bs=128K seek=10 count=3 conv=notrunc")
        return used(s, "p/d@s")

    # copies=2: each of the 3 records has a second copy, and the L1 block a third
    # (dmu_write_policy(): metadata gets copies + 1); so have the snapshot's own versions
    # of the objset block, the meta-dnode's five indirect blocks and the file's dnode
    # block, written after `-o copies=2` took effect (generated seed 55: a snapshot of a
    # file system under copies=2 keeps them three times, 2.1.11 and 2.3.9).
    assert snapshot_used(2) - snapshot_used(1) == 3 * 128 * KiB + 4 * KiB + 7 * 4 * KiB


def test_everything_is_freed_once_nothing_holds_it(session):
    pool = session.pools["p"]
    run_all(session, "rm /p/d/f\nzpool sync p\nzpool sync p\nzpool sync p")
    empty = pool.alloc
    run_all(session, "dd if=/dev/urandom of=/p/d/f bs=1M count=8 status=none\n"
            "zfs snapshot p/d@a\n"
            "dd if=/dev/urandom of=/p/d/f bs=128K seek=10 count=3 conv=notrunc\n"
            "zfs snapshot p/d@b\n"
            "dd if=/dev/urandom of=/p/d/f bs=4K seek=300 count=100 conv=notrunc\n"
            "dd if=/dev/urandom of=/p/d/f bs=1M seek=7 count=2 conv=notrunc\n"
            "zfs destroy p/d@a\nrm /p/d/f\nzfs destroy p/d@b\n"
            "zpool sync p\nzpool sync p\nzpool sync p")
    # Every run of records and every version's indirect blocks are gone (a leaked 128K
    # record would show); what is left is the metadata the txgs moved, and the MOS
    # objects the head keeps: its dsl_dir's ZAP (zapified by its first snapshot) and its
    # deadlist's bpobjs (dsl_deadlist_remove_key() makes a destroyed snapshot's entry's
    # bpobj a subobj of the previous entry's: kept until the head goes).
    head = pool.datasets["p/d"]
    kept = [*head.dir_blocks.extents,
            *(e for entry in head.deadlist_blocks.values() for e in entry.extents)]
    assert len(head.deadlist_blocks) == 2
    assert abs(pool.alloc - sum(e.length for e in kept) - empty) < 64 * KiB


def test_a_write_past_the_end_grows_the_file_with_holes_between(session):
    run_all(session, "dd if=/dev/urandom of=/p/d/f bs=128K seek=70 count=1 conv=notrunc")
    file = session.pools["p"].datasets["p/d"].files["f"]
    assert file.size == 71 * 128 * KiB
    assert [(r.first, r.count) for r in file.runs] == [(0, 64), (64, 6), (70, 1)]
    assert file.runs[1].extents == [] and file.runs[1].logical == 0  # never written
    assert session.run("ls -l /p/d/f").stdout.split()[4] == str(71 * 128 * KiB)


def test_a_block_cloned_file_loses_only_the_touched_records_references():
    session = Session(version=VERSIONS["2.3"])
    run_all(session, "mkdir -p /var/tmp/labs\ntruncate -s 512M /var/tmp/labs/c.raw\n"
            "zpool create -o ashift=12 c /var/tmp/labs/c.raw\n"
            "dd if=/dev/urandom of=/c/a.bin bs=1M count=8 status=none\n"
            "cp /c/a.bin /c/b.bin\n"
            "dd if=/dev/urandom of=/c/b.bin bs=128K seek=4 count=2 conv=notrunc\n"
            "zpool sync c")
    # brt_entry_decref() of the two records b.bin no longer points at: 62 of a.bin's 64
    # blocks are still cloned once (bcloneused and bclonesaved 62 x 128K, 2.00x).
    out = session.run("zpool get -Hp -o value bcloneused,bclonesaved,bcloneratio c").stdout
    assert out.split() == [str(62 * 128 * KiB), str(62 * 128 * KiB), "2.00"]


def test_single_block_files_are_rewritten_whole():
    # A file of one block is that block, which a write rewrites (and may grow up to the
    # recordsize, zfs_grow_blocksize()): write_file() handles it.
    from labsim.zfs.pool import File
    assert not overwrite.can_overwrite_in_place(File("f", size=64 * KiB,
                                                     block_size=64 * KiB), MiB)
    assert not overwrite.can_overwrite_in_place(None, MiB)


def test_appending_writes_only_the_last_record_and_the_new_ones(session):
    run_all(session, "zfs snapshot p/d@s\necho more >> /p/d/f")
    dataset = session.pools["p"].datasets["p/d"]
    new = dataset.files["f"]
    assert new.size == 8 * MiB + 5
    # The 64 records stay shared but the last, now partly written (record 63 is full,
    # so the append starts record 64): runs (0, 64) shared, (64, 1) new.
    assert [(r.first, r.count) for r in new.runs] == [(0, 64), (64, 1)]
    assert new.runs[0] is dataset.snapshots[0].files["f"].runs[0]


def test_level_one_blocks_over_untouched_records_stay_shared(session):
    # 4K records: 8M is 2048 of them, under two level-1 blocks of 1024 pointers and a
    # level-2 block of two. Records 1500-1509 are under the second L1 only.
    run_all(session, "zfs create -o recordsize=4K -o compression=off p/small\n"
            "dd if=/dev/urandom of=/p/small/f bs=1M count=8 status=none\n"
            "zfs snapshot p/small@s\n"
            "dd if=/dev/urandom of=/p/small/f bs=4K seek=1500 count=10 conv=notrunc")
    dataset = session.pools["p"].datasets["p/small"]
    old, new = dataset.snapshots[0].files["f"], dataset.files["f"]
    assert len(old.indirect_runs) == len(new.indirect_runs) == 2
    assert old.indirect_runs[0] is new.indirect_runs[0]
    assert old.indirect_runs[1] is not new.indirect_runs[1]
    # The snapshot's own: 10 records, the old second L1 (1024 pointers: 40K, two
    # copies) and the old L2 (2 pointers: one 4K sector, two copies), and the metadata
    # the head rewrote (below 64K); not the first L1.
    data = 10 * 4 * KiB + 2 * 40 * KiB + 2 * 4 * KiB
    assert data < used(session, "p/small@s") < data + 64 * KiB


def test_a_write_of_nothing_changes_nothing(session):
    file = session.pools["p"].datasets["p/d"].files["f"]
    run_all(session, "dd if=/dev/urandom of=/p/d/f bs=128K seek=3 count=0 conv=notrunc")
    assert session.pools["p"].datasets["p/d"].files["f"] is file


def test_records_written_after_copies_changed_get_the_new_copies_alone():
    # copies is per block pointer (dmu_write_policy() at each write): generated seed 0071
    # sets copies=3 after writing a 16M file and overwrites 2M of it with zeros (holes
    # under lz4); real ALLOC stayed at 23M where labsim, rewriting the whole file at
    # copies=3, made it 67M.
    session = Session()
    run_all(session, "truncate -s 512M /tmp/d1\nzpool create -o ashift=12 p /tmp/d1\n"
                     "dd if=/dev/urandom of=/p/f bs=1M count=16 status=none\n"
                     "zfs snapshot p@a\nzfs set copies=2 p\n"
                     "dd if=/dev/urandom of=/p/f bs=4K seek=100 count=64 conv=notrunc\n"
                     "zpool sync p")
    # Records 3-5 are new, with two copies each; the snapshot keeps the old ones (and the
    # old level-1 block) as its own.
    assert 3 * 128 * KiB <= used(session, "p@a") < 3 * 128 * KiB + 128 * KiB
    file = session.pools["p"].datasets["p"].files["f"]
    assert [len(group) for group in file.ditto] == [1] * 3 + [2] * 3 + [1] * 122
    run_all(session, "zfs set copies=1 p\n"
                     "dd if=/dev/urandom of=/p/f bs=128K seek=4 count=1 conv=notrunc\n"
                     "zpool scrub -w p")
    file = session.pools["p"].datasets["p"].files["f"]
    assert [len(group) for group in file.ditto][3:6] == [2, 1, 2]
    assert "with 0 errors" in session.run("zpool status p").stdout
    run_all(session, "zfs destroy p@a\nrm /p/f\nzpool sync p")
    assert used(session, "p") < 1 * MiB
