"""RAID-Z expansion (module/zfs/vdev_raidz.c at zfs-2.3.9; labsim.zfs.raidz_expansion):
widths by birth txg, the deflate ratio at the original width, the reflow's steps and
what zpool attach, wait and status show on 2.3, and what 2.1 and 2.2 refuse."""

import pytest

from labsim import Session
from labsim.zfs import raidz_expansion as rx
from labsim.zfs import raidz_expansion_state as rxs
from labsim.zfs.layouts import Layout, deflate_ratio
from labsim.zfs.metaslab import Metaslab
from labsim.zfs.pool import TXG_CONCURRENT_STATES
from labsim.zfs.space import dataset_available, file_used_bytes
from labsim.zfs.versions import VERSIONS, KiB, MiB
from labsim.zfs.write_path import data_extents

# ---------------------------------------------------------------- pure functions


def test_width_by_birth_txg():
    geometry = rxs.Geometry(original_width=3, nodes=[(40, 4), (90, 5)])
    assert [rxs.logical_width(geometry, txg) for txg in (0, 39, 40, 89, 90, 1000)] == \
        [3, 3, 4, 4, 5, 5]


def test_old_blocks_keep_their_size_new_ones_use_the_new_width():
    geometry = rxs.Geometry(original_width=3, nodes=[(40, 4)])
    # 128K at ashift 12: 32 data sectors; 3-wide RAID-Z1 adds 16 parity (48 sectors),
    # 4-wide 11, padded to 12 (44 sectors).
    assert rxs.block_asize(128 * KiB, 12, 1, geometry, 39) == 192 * KiB
    assert rxs.block_asize(128 * KiB, 12, 1, geometry, 40) == 176 * KiB
    # One data sector costs P + 1 sectors whatever the width (vdev_gang_header_asize()).
    assert rxs.block_asize(4 * KiB, 12, 1, geometry, 39) == \
        rxs.block_asize(4 * KiB, 12, 1, geometry, 40) == 8 * KiB


def test_deflate_ratio_stays_at_the_original_width():
    geometry = rxs.Geometry(original_width=3, nodes=[(40, 4)])
    assert rxs.deflate_ratio(geometry, 1, 12) == deflate_ratio(Layout("raidz", 3, 1), 12) == 341
    # A vdev created 4 wide would have 372 (131072 / (176K >> 9)).
    assert deflate_ratio(Layout("raidz", 4, 1), 12) == 372


def test_scratch_and_overlap_limit():
    # P2ALIGN(VDEV_BOOT_SIZE = 3.5M, 4K) on each of 4 children
    assert rx.scratch_size(12, 4) == 14 * MiB
    # next_overwrite_blkid = blkid + blkid / old_children - old_children
    assert rx.next_overwrite(14 * MiB, 12, 3) == (3584 + 3584 // 3 - 3) << 12


def test_copy_bytes_counts_what_is_not_free_and_each_metaslab_s_last_sector():
    ms = Metaslab.empty(0, 64 * MiB)
    ms.allocate(10 * MiB)  # [0, 10M) allocated
    empty = Metaslab.empty(64 * MiB, 64 * MiB)
    assert rx.copy_bytes([ms, empty], 0, 128 * MiB, 12) == 10 * MiB + 2 * 4 * KiB
    # from the progress on: only what lies beyond it
    assert rx.copy_bytes([ms, empty], 4 * MiB, 128 * MiB, 12) == 6 * MiB + 2 * 4 * KiB
    assert rx.copy_bytes([ms, empty], 0, 64 * MiB - 4 * KiB, 12) == 10 * MiB


# ---------------------------------------------------------------- zpool on 2.3

SETUP = (
    "mkdir -p /var/tmp/labs",
    "truncate -s 256M /var/tmp/labs/r1.raw /var/tmp/labs/r2.raw /var/tmp/labs/r3.raw "
    "/var/tmp/labs/r4.raw",
    "zpool create -o ashift=12 -O compression=off r raidz1 /var/tmp/labs/r1.raw "
    "/var/tmp/labs/r2.raw /var/tmp/labs/r3.raw",
    "dd if=/dev/urandom of=/r/old.bin bs=1M count=48 status=none",
    "zpool sync r",
)
ATTACH = "zpool attach r raidz1-0 /var/tmp/labs/r4.raw"


def machine(version: str = "2.3") -> Session:
    session = Session(version=VERSIONS[version])
    for line in SETUP:
        result = session.run(line)
        assert result.status == 0, (line, result)
    return session


def status_lines(session: Session) -> list[str]:
    return session.run("zpool status r").stdout.splitlines()


def test_attach_starts_an_expansion_and_status_shows_it_running():
    session = machine()
    pool = session.pools["r"]
    size = pool.space
    assert session.run(ATTACH).status == 0
    lines = status_lines(session)
    # print_raidz_expand_status(): nothing copied yet counts as 1 byte at 1/s
    assert lines[2] == "expand: expansion of raidz1-0 in progress since Wed Nov 18 11:06:40 2026"
    assert lines[3].startswith("\t1 / 72.")
    assert lines[3].endswith(" copied at 1/s, 0.00% done, (copy is slow, no estimated time)")
    assert "\t    /var/tmp/labs/r4.raw  ONLINE       0     0     0" in lines
    assert pool.space == size  # vdev_raidz_open(): children - 1 while expanding
    result = session.run("zpool attach r raidz1-0 /var/tmp/labs/r4.raw")
    assert result.stderr.endswith("/var/tmp/labs/r4.raw is part of active pool 'r'\n")


def test_a_second_attach_waits_for_the_first():
    session = machine()
    session.run("truncate -s 256M /var/tmp/labs/r5.raw")
    session.run(ATTACH)
    result = session.run("zpool attach r raidz1-0 /var/tmp/labs/r5.raw")
    assert (result.status, result.stderr) == (
        1, "cannot attach /var/tmp/labs/r5.raw to raidz1-0: raidz expansion in progress\n")


def test_the_reflow_takes_as_many_txgs_as_the_overlap_limit_allows():
    session = machine()
    pool = session.pools["r"]
    session.run(ATTACH)
    start = pool.txg
    session.run("zpool wait -t raidz_expand r")
    expansion = pool.expansion
    # the scratch txg, then growth by 4/3 a txg from 14M to the end, then completion
    offset, steps = rx.scratch_size(12, 4), 0
    while offset < expansion.reflow_end:
        offset = min(rx.next_overwrite(offset, 12, 3), expansion.reflow_end)
        steps += 1
    assert pool.txg - start == 1 + steps + 1
    assert 10 <= steps <= 20
    # everything allocated beyond the scratch area, plus the metaslabs' last sectors
    alloc = pool.vdevs[0].alloc
    assert alloc - rx.scratch_size(12, 4) <= expansion.bytes_copied <= alloc


def test_after_the_expansion_size_grows_a_txg_later_and_new_blocks_are_cheaper():
    session = machine()
    pool = session.pools["r"]
    vdev = pool.vdevs[0]
    size, ms_shift = pool.space, vdev.ms_shift
    session.run(ATTACH)
    session.run("zpool wait -t raidz_expand r")
    lines = status_lines(session)
    assert lines[2] == "  scan: scrub in progress since Wed Nov 18 11:06:42 2026"
    assert lines[3].startswith("\t72.") and lines[3].endswith("M issued")
    assert lines[4] == "\t0B repaired, 0.00% done, no estimated completion time"
    assert lines[5].startswith("expand: expanded raidz1-0 copied ")
    assert lines[5].endswith(" in 00:00:02, on Wed Nov 18 11:06:42 2026")
    assert pool.space == size  # the new metaslabs come with the next txg
    avail = dataset_available(pool, pool.root)
    session.run("zpool wait -t scrub r")
    assert status_lines(session)[2].startswith("  scan: scrub repaired 0B in ")
    assert vdev.ms_shift == ms_shift  # vdev_expand() keeps vdev_ms_shift
    assert pool.space == (4 * (256 * MiB - 4 * MiB - 512 * KiB) >> ms_shift) << ms_shift
    # AVAIL grows by the new raw space at the original width's deflate ratio
    grown = dataset_available(pool, pool.root) - avail
    assert grown == ((pool.space - size) >> 9) * 341
    # Blocks born from the completion txg + 3 on use 4 columns (44 sectors per 128K);
    # the old ones keep 48, and both are charged at the 3-wide ratio.
    session.run("dd if=/dev/urandom of=/r/new.bin bs=1M count=48 status=none")
    old, new = pool.root.files["old.bin"], pool.root.files["new.bin"]
    assert new.birth >= pool.expansion.end_txg + TXG_CONCURRENT_STATES
    assert {e.block for e in data_extents(old)} == {192 * KiB}
    assert {e.block for e in data_extents(new)} == {176 * KiB}
    assert file_used_bytes(pool, new) < file_used_bytes(pool, old)
    assert (176 * KiB >> 9) * 341 * 384 <= file_used_bytes(pool, new)


def test_blocks_written_right_after_the_completion_keep_the_old_width():
    session = machine()
    pool = session.pools["r"]
    session.run(ATTACH)
    session.run("zpool wait -t raidz_expand r")
    # The next txg is completion + 1, before the reflow node's re_txg (completion + 3).
    session.run("dd if=/dev/urandom of=/r/soon.bin bs=1M count=8 status=none")
    soon = pool.root.files["soon.bin"]
    assert soon.birth < pool.expansion.end_txg + TXG_CONCURRENT_STATES
    assert {e.block for e in data_extents(soon)} == {192 * KiB}


def test_attach_w_waits_for_the_expansion_and_feature_goes_active():
    session = machine()
    get = "zpool get -H -o value feature@raidz_expansion r"
    assert session.run(get).stdout == "enabled\n"
    assert session.run("zpool attach -w r raidz1-0 /var/tmp/labs/r4.raw").status == 0
    assert session.pools["r"].expansion.state is rxs.ExpandState.FINISHED
    assert session.run(get).stdout == "active\n"
    result = session.run("zpool scrub r")  # the scrub the expansion started still runs
    assert result.stderr == ("cannot scrub r: currently scrubbing; use 'zpool scrub -s' to "
                             "cancel scrub\n")
    assert session.run("zpool wait r").status == 0  # every activity, the scrub included
    assert session.pools["r"].scrub_pending is None


def test_wait_refuses_unknown_activities_and_arguments():
    session = machine()
    result = session.run("zpool wait -t bogus r")
    assert (result.status, result.stderr) == (2, (
        "invalid activity 'bogus'\nusage:\n"
        "\twait [-Hp] [-T d|u] [-t <activity>[,...]] <pool> [interval]\n"))
    assert session.run("zpool wait").stderr.startswith("missing 'pool' argument\nusage:\n")
    assert session.run("zpool wait nosuch").stderr == "cannot open 'nosuch': no such pool\n"
    assert session.run("zpool wait -t raidz_expand r").status == 0  # nothing to wait for


def test_attach_checks_the_new_device_and_the_children():
    session = machine()
    session.run("truncate -s 128M /var/tmp/labs/small.raw")
    result = session.run("zpool attach r raidz1-0 /var/tmp/labs/small.raw")
    assert result.stderr == ("cannot attach /var/tmp/labs/small.raw to raidz1-0: "
                             "device is too small\n")
    session.run("zpool offline r /var/tmp/labs/r2.raw")
    result = session.run(ATTACH)
    assert result.stderr == ("cannot attach /var/tmp/labs/r4.raw to raidz1-0: raidz vdev has "
                             "devices that are are offline or being replaced\n")


# ---------------------------------------------------------------- 2.1 and 2.2


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_older_releases_cannot_attach_to_raidz(version):
    session = machine(version)
    result = session.run(ATTACH)
    assert (result.status, result.stderr) == (
        1, "cannot attach /var/tmp/labs/r4.raw to raidz1-0: can only attach to mirrors and "
           "top-level disks\n")
    assert session.pools["r"].expansion is None
    assert len(session.pools["r"].vdevs[0].leaves) == 3


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_older_releases_have_no_raidz_expand_activity(version):
    session = machine(version)
    result = session.run("zpool wait -t raidz_expand r")
    assert result.status == 2
    assert result.stderr.startswith("invalid activity 'raidz_expand'\nusage:\n")
    assert session.run("zpool wait -t scrub r").status == 0
