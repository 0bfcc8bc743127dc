"""Damage, scrub, resilver and the device commands (offline, online, attach, detach,
replace, clear, status -x), through the command line and the model."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsim import Session, run_script
from labsim.zfs import scan
from labsim.zfs.byte_ranges import intersect, subtract
from labsim.zfs.byte_ranges import merge as _merge
from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.scan import LeafDamage, child_sectors, damage_ranges
from labsim.zfs.vdevs import Leaf, raidz_child_rows

V = "/var/tmp/labs/"
FILES = f"""
mkdir -p /var/tmp/labs
truncate -s 512M {V}a {V}b {V}c {V}d {V}e {V}f {V}g
"""


@pytest.fixture
def session():
    s = Session()
    for line, result in run_script(FILES, s):
        assert result.status == 0, (line, result.stderr)
    return s


def ok(session, line):
    result = session.run(line)
    assert result.status == 0, (line, result.stderr)
    return result.stdout


def fails(session, line):
    result = session.run(line)
    assert result.status != 0, line
    return result.stderr


def filled_mirror(session):
    ok(session, f"zpool create -o ashift=12 m mirror {V}a {V}b")
    ok(session, "zfs set compression=off m")
    session.run("dd if=/dev/urandom of=/m/f bs=1M count=48")
    ok(session, "zpool sync m")


def test_damaging_a_mirror_child_then_scrub_repairs_every_block(session):
    filled_mirror(session)
    # dd over the whole data area of b, between its front labels and its back labels.
    session.run(f"dd if=/dev/zero of={V}b bs=1M seek=4 count=480 conv=notrunc")
    assert session.host_files[f"{V}b"].size == 512 << 20  # notrunc keeps the size
    assert ok(session, "zpool status m").count("ZFS-8000") == 0  # not noticed yet
    ok(session, "zpool scrub -w m")
    out = ok(session, "zpool status m")
    assert "status: One or more devices has experienced an unrecoverable error." in out
    assert "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-9P\n" in out
    # 48.2M as in the five real 2.3.9 recordings of lab 2 (every block whole, none split
    # over holes)
    assert "  scan: scrub repaired 48.2M in 00:00:01 with 0 errors on " in out
    # 384 data blocks of 128K, 2 copies of the file's indirect block and the metadata the
    # scrub's setup txg did not write anew (labsim.zfs.mos.mos_written_anew(); before it
    # did, labsim counted 476). Real: 434 on 2.3.9 (five runs of lab 2), 467-470 on
    # 2.1.11 (three).
    cksum = out.split(f"{V}b")[1].split()[3]
    assert cksum == "422"
    assert "errors: No known data errors" in out
    ok(session, "zpool clear m")
    assert ok(session, "zpool status -x m") == "pool 'm' is healthy\n"
    assert ok(session, "zpool status -x") == "all pools are healthy\n"
    # the damage was repaired: a second scrub finds nothing
    ok(session, "zpool scrub m")
    assert "scrub repaired 0B" in ok(session, "zpool status m")


def test_damage_done_while_the_pool_is_exported_is_found_after_import(session):
    filled_mirror(session)
    ok(session, "zpool export m")
    session.run(f"dd if=/dev/zero of={V}b bs=1M seek=4 count=480 conv=notrunc")
    ok(session, f"zpool import -d {V[:-1]} m")
    ok(session, "zpool scrub -w m")
    # what the scrub of the pool that stayed imported repairs: the import's txgs and the
    # scrub's setup write the same MOS blocks anew (labsim.zfs.mos.mos_written_anew())
    assert "  scan: scrub repaired 48.2M in " in ok(session, "zpool status m")


def test_damage_outside_allocated_blocks_is_harmless(session):
    filled_mirror(session)
    # the last 100 MiB of the data area hold nothing yet
    session.run(f"dd if=/dev/zero of={V}b bs=1M seek=400 count=100 conv=notrunc")
    ok(session, "zpool scrub m")
    assert "scrub repaired 0B" in ok(session, "zpool status m")
    assert ok(session, "zpool status -x m") == "pool 'm' is healthy\n"


def test_damage_on_a_single_device_is_a_permanent_error(session):
    ok(session, f"zpool create -o ashift=12 s {V}a")
    session.run("dd if=/dev/urandom of=/s/f bs=1M count=8")
    start = VDEV_LABEL_START_SIZE
    # 64 MiB: past the metadata (which has a ditto copy) into the file's own blocks
    session.run(f"dd if=/dev/zero of={V}a bs=4096 seek={start // 4096} count=16384 conv=notrunc")
    ok(session, "zpool scrub s")
    out = ok(session, "zpool status s")
    assert "ZFS-8000-8A" in out
    assert "with 0 errors" not in out
    assert "data errors, use '-v' for a list" in out


def test_offline_degrades_and_replace_resilvers_a_third_on_raidz1(session):
    ok(session, f"zpool create -o ashift=12 r raidz1 {V}c {V}d {V}e")
    ok(session, "zfs set compression=off r")
    session.run("dd if=/dev/urandom of=/r/f bs=1M count=48")
    ok(session, f"zpool offline r {V}e")
    out = ok(session, "zpool status r")
    assert " state: DEGRADED\n" in out
    assert "status: One or more devices has been taken offline by the administrator." in out
    assert f"{V}e  OFFLINE" in out
    assert "DEGRADED" in ok(session, "zpool list -H -o health r")
    # a second member cannot go: raidz1 survives one missing child
    assert fails(session, f"zpool offline r {V}d") == f"cannot offline {V}d: no valid replicas\n"
    ok(session, f"zpool replace -w r {V}e {V}f")
    out = ok(session, "zpool status r")
    assert " state: ONLINE\n" in out and f"{V}f  ONLINE" in out and f"{V}e" not in out
    # 48 MiB of data with parity is 72 MiB on the vdev; one child holds a third (24M),
    # and its share of the metadata the resilver scans, each copy written once per copy
    # of its block (scan.resilver_writes()): real 2.3.9 resilvered 24.3M-24.4M in lab 2's
    # runs
    assert re.search(r"  scan: resilvered 24\.[34]M in ", out)


def test_offline_then_online(session):
    ok(session, f"zpool create m mirror {V}a {V}b")
    ok(session, f"zpool offline m {V}b")
    assert fails(session, f"zpool offline m {V}a") == f"cannot offline {V}a: no valid replicas\n"
    assert fails(session, f"zpool detach m {V}a") == f"cannot detach {V}a: no valid replicas\n"
    ok(session, f"zpool online m {V}b")
    assert ok(session, "zpool status -x m") == "pool 'm' is healthy\n"


def test_detach_and_attach_turn_a_mirror_into_a_device_and_back(session):
    filled_mirror(session)
    ok(session, f"zpool detach m {V}b")
    assert f"\t  {V}a  ONLINE" in ok(session, "zpool status m")
    ok(session, f"zpool attach -w m {V}a {V}c")
    out = ok(session, "zpool status m")
    assert "\t  mirror-0  " in out and f"\t    {V}c  ONLINE" in out
    # the new child receives every block of the vdev the resilver scans, each copy of it
    # once per copy the block has (scan.resilver_writes()): data once, metadata two or
    # three times, so the resilver writes more than the vdev holds
    pool = session.pools["m"]
    blocks = list(scan.scanned_by_resilver(pool, pool.vdevs[0]))
    assert pool.scan.processed == pytest.approx(sum(e.length * e.dvas for e in blocks),
                                                rel=0.001)
    assert pool.scan.processed > pool.vdevs[0].alloc


def test_attach_writes_each_copy_of_a_copies_2_file_twice(session):
    # One device, copies=2: both copies of each record are on it, and the new mirror
    # child is written each copy once for each of the block's two reads
    # (scan.resilver_writes()). Real 2.3.9 resilvered 8.22M for 2M of records
    # (tests/fixtures/real/2.3.9/probes/lab15-whole-resilver.txt, two runs alike)
    ok(session, f"zpool create -o ashift=9 x {V}a")
    ok(session, "zfs set copies=2 x")
    session.run("dd if=/dev/urandom of=/x/f1 bs=128K count=16 status=none")
    ok(session, "zpool sync x")
    ok(session, f"zpool attach -w x {V}a {V}b")
    resilvered = re.search(r"scan: resilvered ([0-9.]+)M in ", ok(session, "zpool status x"))
    assert resilvered and 8 <= float(resilvered.group(1)) < 8.5


def test_device_command_errors(session):
    ok(session, f"zpool create r raidz1 {V}c {V}d {V}e")
    ok(session, f"zpool create s {V}a")
    assert fails(session, f"zpool detach r {V}c") == (
        f"cannot detach {V}c: only applicable to mirror and replacing vdevs\n")
    assert fails(session, f"zpool detach s {V}a") == (
        f"cannot detach {V}a: only applicable to mirror and replacing vdevs\n")
    assert fails(session, f"zpool attach r {V}c {V}f") == (
        f"cannot attach {V}f to {V}c: can only attach to mirrors and top-level disks\n")
    assert fails(session, f"zpool offline s {V}a") == f"cannot offline {V}a: no valid replicas\n"
    assert fails(session, f"zpool offline s {V}g") == (
        f"cannot offline {V}g: no such device in pool\n")
    assert fails(session, f"zpool attach s {V}g {V}f") == (
        f"cannot attach {V}f to {V}g: no such device in pool\n")
    assert fails(session, f"zpool attach s {V}a {V}c") == (
        "invalid vdev specification\nuse '-f' to override the following errors:\n"
        f"{V}c is part of active pool 'r'\n")
    run_script(f"truncate -s 256M {V}small", session)
    assert fails(session, f"zpool attach s {V}a {V}small") == (
        f"cannot attach {V}small to {V}a: device is too small\n")
    assert fails(session, "zpool attach s").startswith("missing <device> specification\n")
    assert fails(session, f"zpool attach s {V}a").startswith(
        "missing <new_device> specification\n")
    assert fails(session, "zpool scrub").startswith("missing pool name argument\n")
    assert fails(session, "zpool scrub -s s") == (
        "cannot cancel scrubbing s: there is no active scrub\n")


def test_create_file_and_mirror_needs_f_but_raidz_widths_may_differ(session):
    assert fails(session, f"zpool create t {V}a mirror {V}b {V}c") == (
        "invalid vdev specification\nuse '-f' to override the following errors:\n"
        "mismatched replication level: both file and mirror vdevs are present\n")
    # 2.1's is_raidz_draid(): a 3-wide and a 2-wide raidz1 are accepted (real 2.1.11)
    ok(session, f"zpool create t raidz1 {V}a {V}b {V}c raidz1 {V}d {V}e")


def test_cp_writes_a_new_file_through_the_pool(session):
    ok(session, f"zpool create -o ashift=12 p {V}a")
    ok(session, f"zpool create -o ashift=12 q {V}b")
    ok(session, "zfs set compression=off p")
    session.run("dd if=/dev/urandom of=/p/f bs=1M count=16")
    before = session.pools["q"].alloc
    ok(session, "cp /p/f /q/f")
    copy = session.pools["q"].root.files["f"]
    assert copy.size == 16 << 20 and copy.content == "random"
    assert session.pools["q"].alloc - before >= 16 << 20
    assert fails(session, "cp /p/nope /q/x") == (
        "cp: cannot stat '/p/nope': No such file or directory\n")


def test_child_sectors_counts_every_widthth_sector():
    assert [child_sectors(0, 48, c, 3) for c in range(3)] == [16, 16, 16]
    assert [child_sectors(1, 3, c, 3) for c in range(3)] == [0, 1, 1]
    assert sum(child_sectors(5, 17, c, 4) for c in range(4)) == 12


def test_every_device_in_use_gets_its_line(session):
    # check_in_use() reports each device (real 2.1.11, five files of an active pool)
    ok(session, f"zpool create t raidz1 {V}a {V}b {V}c")
    assert fails(session, f"zpool create u mirror {V}a {V}b") == (
        "invalid vdev specification\nuse '-f' to override the following errors:\n"
        f"{V}a is part of active pool 't'\n{V}b is part of active pool 't'\n")


ranges = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 30)).map(
    lambda t: (t[0], t[0] + t[1])), max_size=12)


def _bytes(spans) -> set[int]:
    return {b for lo, hi in spans for b in range(lo, hi)}


@given(ranges, ranges)
def test_subtract_keeps_exactly_the_bytes_no_cut_covers(damage, cuts):
    kept = subtract(_merge(damage), _merge(cuts))
    assert _bytes(kept) == _bytes(damage) - _bytes(cuts)
    assert kept == sorted(kept) and all(lo < hi for lo, hi in kept)
    assert all(a[1] < b[0] for a, b in zip(kept, kept[1:], strict=False))  # disjoint


@given(ranges, ranges)
def test_intersect_keeps_exactly_the_bytes_both_cover(blocks, within):
    kept = intersect(_merge(blocks), _merge(within))
    assert _bytes(kept) == _bytes(blocks) & _bytes(within)
    assert kept == sorted(kept) and all(lo < hi for lo, hi in kept)


@given(ranges, st.integers(0, 240), st.integers(1, 40))
def test_leaf_damage_hits_when_some_damaged_byte_is_in_the_range(damage, lo, length):
    leaf = Leaf("/d", 1 << 20)
    damage_ranges(leaf, damage)
    hit = bool(_bytes(damage) & set(range(lo, lo + length)))
    assert LeafDamage.of(leaf).hits(lo, lo + length) == hit


@pytest.mark.parametrize("layout", ["mirror", "raidz1"])
def test_blocks_written_after_the_damage_are_good(session, layout):
    """A block written over damaged bytes carries its new bytes and their checksum: a
    scrub finds nothing wrong with it (TopVdev.take clears the range: on RAID-Z the rows
    of each child the block's sectors use). What it repairs is the metadata the pool
    held before the damage."""
    members = f"{V}a {V}b" if layout == "mirror" else f"{V}a {V}b {V}c"
    ok(session, f"zpool create -o ashift=12 m {layout} {members}")
    ok(session, "zfs set compression=off m")
    ok(session, "zpool export m")
    # Damage all of b's data area while the pool holds (almost) nothing.
    session.run(f"dd if=/dev/zero of={V}b bs=1M seek=4 count=500 conv=notrunc")
    ok(session, f"zpool import -d {V[:-1]} m")
    session.run("dd if=/dev/urandom of=/m/g bs=1M count=48")
    ok(session, "zpool sync m")
    ok(session, "zpool scrub -w m")
    repaired = re.search(r"scrub repaired (\S+) in ", ok(session, "zpool status m")).group(1)
    assert repaired != "0B" and not repaired.endswith("M"), repaired  # metadata only


def test_raidz_rows_of_a_child_are_those_its_sectors_use():
    """raidz_child_rows(): vdev sector s is on child s % width, row s // width."""
    for width in (3, 4, 6):
        for first in range(12):
            for end in range(first, first + 20):
                for child in range(width):
                    lo, hi = raidz_child_rows(first, end, child, width)
                    rows = {s // width for s in range(first, end) if s % width == child}
                    assert set(range(lo, hi)) == rows
                    assert hi - lo == child_sectors(first, end, child, width)


def test_a_raidz_block_is_hit_only_by_its_own_sectors_in_the_damaged_rows():
    """Damage that starts on a child's row just after a block's sector on that child
    misses the block, even where the rows hold the block's other sectors (on other
    children): scan._damaged_blocks() narrows to the child's own sectors."""
    from labsim.zfs.lifecycle import create_pool
    from labsim.zfs.pool import Extent
    from labsim.zfs.scan import _damaged_blocks
    from labsim.zfs.vdevs import raidz
    from labsim.zfs.versions import ZFS_2_1, GiB

    pool = create_pool("t", [raidz(1, *[(f"/var/tmp/r{i}.raw", GiB) for i in range(4)])],
                       ZFS_2_1, 12)
    (vdev,) = pool.vdevs
    # Sectors 4000..4011: four blocks of 3 sectors; child 3's sectors are 4003 (block 1),
    # 4007 (block 2) and 4011 (block 3), on its rows 1000, 1001 and 1002.
    extent = Extent(0, 4000 << 12, 12 << 12, 3 << 12)
    leaf = vdev.leaves[3]

    def hit(first_row: int) -> list[tuple[int, int]]:
        damage_ranges(leaf, [])
        leaf.damaged = [(VDEV_LABEL_START_SIZE + (first_row << 12), 1 << 30)]
        return _damaged_blocks(vdev, 3, extent)

    assert hit(1000) == [(1, 4)]
    # Row 1001 holds sectors 4004-4007: block 1's 4004 and 4005 are on other children.
    assert hit(1001) == [(2, 4)]
    assert hit(1002) == [(3, 4)]
    assert hit(1003) == []
