"""Layouts of N equal disks (labsim.zfs.tradeoffs): exact survival odds, space as the
pool model computes it, and the teaching models of IOPS, resilver and scrub."""

from fractions import Fraction

import pytest

from labsim.zfs.layouts import Layout
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.space import dataset_available
from labsim.zfs.tradeoffs import (
    LayoutError,
    PoolLayout,
    block_charge,
    data_that_fits,
    empty_pool_space,
    mirrors,
    raidz_groups,
    random_iops,
    raw_efficiency,
    resilver,
    scrub,
    stripe,
    survival_monte_carlo,
    survival_probability,
    surviving_failure_sets,
    vdev_space,
)
from labsim.zfs.vdevs import mirror, raidz, single
from labsim.zfs.versions import ZFS_0_6_5, ZFS_2_1, GiB, KiB, MiB

TB = 10**12

# ---------------------------------------------------------------- surviving failures


@pytest.mark.parametrize(
    ("pool", "failures", "probability"),
    [
        # Of the C(4, 2) = 6 pairs of failed disks, the 2 that are a whole mirror lose it.
        (mirrors(4, 2), 2, Fraction(2, 3)),
        (raidz_groups(6, 6, 2), 2, Fraction(1)),  # raidz2 survives any two
        (raidz_groups(6, 6, 2), 3, Fraction(0)),
        # 6 of the 66 pairs of 12 disks are one of the 6 mirrors: 1 - 6/66 = 10/11.
        (mirrors(12, 2), 2, Fraction(10, 11)),
        (raidz_groups(4, 4, 1), 1, Fraction(1)),
        (raidz_groups(4, 4, 1), 2, Fraction(0)),
        # Two raidz1 of 6: lost when both failures hit one group, 2 * C(6, 2) = 30 of 66.
        (raidz_groups(12, 6, 1), 2, Fraction(36, 66)),
        # Two raidz2 of 6 and 3 failures: lost when all 3 are in one group, 2 * C(6, 3) = 40
        # of C(12, 3) = 220.
        (raidz_groups(12, 6, 2), 3, Fraction(180, 220)),
        # Four 3-way mirrors, 3 failures: lost only if they are one whole mirror, 4 of 220.
        (mirrors(12, 3), 3, Fraction(216, 220)),
        # Two 2-way mirrors and k = 3: every triple takes a whole mirror.
        (mirrors(4, 2), 3, Fraction(0)),
        (stripe(5), 0, Fraction(1)),
        (stripe(5), 1, Fraction(0)),
        (mirrors(6, 2), 6, Fraction(0)),
        (mirrors(6, 2), 0, Fraction(1)),
    ],
)
def test_survival_probability(pool, failures, probability):
    assert survival_probability(pool, failures) == probability


def test_failure_sets_of_mixed_groups():
    # A 2-way mirror (tolerates 1) and a 3-disk raidz2 (tolerates 2): 5 disks.
    groups = [(2, 1), (3, 2)]
    assert surviving_failure_sets(groups, 0) == 1
    assert surviving_failure_sets(groups, 1) == 5
    assert surviving_failure_sets(groups, 2) == 10 - 1  # only the mirror pair loses
    # 10 triples: 3 contain the mirror pair, 1 is the whole raidz2.
    assert surviving_failure_sets(groups, 3) == 6
    assert surviving_failure_sets(groups, 5) == 0


def test_failures_outside_the_pool_are_refused():
    with pytest.raises(ValueError, match="cannot fail 5 disks in a pool of 4"):
        survival_probability(mirrors(4, 2), 5)
    with pytest.raises(ValueError, match="negative"):
        survival_probability(mirrors(4, 2), -1)


@pytest.mark.parametrize(
    ("pool", "failures"),
    [(mirrors(12, 2), 2), (mirrors(12, 2), 3), (raidz_groups(12, 6, 1), 2),
     (raidz_groups(12, 4, 2), 3), (mirrors(12, 3), 4), (raidz_groups(24, 6, 3), 4)],
)
def test_monte_carlo_agrees_with_the_exact_count(pool, failures):
    exact = survival_probability(pool, failures)
    estimate = survival_monte_carlo(pool, failures, trials=20_000, seed=2)
    # 20 000 trials: the standard error is at most 0.0036, so 0.015 is over 4 of them.
    assert abs(float(estimate - exact)) < 0.015


def test_monte_carlo_is_reproducible():
    pool = mirrors(8, 2)
    assert (survival_monte_carlo(pool, 2, 500, seed=7)
            == survival_monte_carlo(pool, 2, 500, seed=7))


# ---------------------------------------------------------------- layouts


def test_layout_names_and_tolerances():
    assert stripe(12).label == "stripe 12×1"
    assert mirrors(12, 3).label == "mirror 4×3"
    assert raidz_groups(12, 6, 2).label == "raidz2 2×6"
    assert [p.tolerance for p in (stripe(4), mirrors(6, 3), raidz_groups(8, 8, 3))] == [0, 2, 3]
    assert raidz_groups(12, 4, 1).disks == 12


def test_impossible_layouts_say_why():
    with pytest.raises(LayoutError, match="5 disks do not split into 2-way mirrors"):
        mirrors(5, 2)
    with pytest.raises(LayoutError, match=r"raidz2 vdevs of 5 disks \(needs a multiple of 5\)"):
        raidz_groups(12, 5, 2)
    with pytest.raises(LayoutError, match="raidz3 requires at least 4 devices"):
        raidz_groups(9, 3, 3)
    with pytest.raises(LayoutError, match="parity is 1 to 3"):
        raidz_groups(8, 8, 4)


def test_zpool_create_lines():
    devices = ["sda", "sdb", "sdc", "sdd"]
    assert stripe(4).zpool_create("tank", devices, 12) == (
        "zpool create -o ashift=12 tank sda sdb sdc sdd")
    assert mirrors(4, 2).zpool_create("tank", devices, 12) == (
        "zpool create -o ashift=12 tank mirror sda sdb mirror sdc sdd")
    assert raidz_groups(4, 4, 1).zpool_create("tank", devices, 9) == (
        "zpool create -o ashift=9 tank raidz1 sda sdb sdc sdd")
    with pytest.raises(LayoutError, match="needs 6 devices"):
        mirrors(6, 2).zpool_create("tank", devices, 12)


# ---------------------------------------------------------------- space


def _specs(pool: PoolLayout, size: int):
    paths = [(f"/var/tmp/d{i}.raw", size) for i in range(pool.disks)]
    width = pool.vdev.width
    groups = [paths[i * width:(i + 1) * width] for i in range(pool.vdev_count)]
    if pool.vdev.kind == "mirror":
        return [mirror(*g) for g in groups]
    if pool.vdev.kind == "raidz":
        return [raidz(pool.vdev.nparity, *g) for g in groups]
    return [single(*g[0]) for g in groups]


@pytest.mark.parametrize("pool", [stripe(3), mirrors(4, 2), mirrors(6, 3),
                                  raidz_groups(6, 3, 1), raidz_groups(6, 6, 2),
                                  raidz_groups(10, 5, 3)])
@pytest.mark.parametrize("size", [256 * MiB, 1 * GiB, 3 * GiB + 100 * KiB])
@pytest.mark.parametrize("ashift", [9, 12])
@pytest.mark.parametrize("version", [ZFS_2_1, ZFS_0_6_5])
def test_empty_pool_space_is_what_the_pool_model_shows(pool, size, ashift, version):
    model = create_pool("tank", _specs(pool, size), version, ashift)
    space = empty_pool_space(pool, size, ashift, version)
    assert space.size == model.space  # zpool list SIZE
    assert space.dspace == model.dspace
    assert space.slop == model.slop_space
    assert space.avail == dataset_available(model, model.root)  # zfs list AVAIL


def test_four_terabyte_disks():
    # 4 TB = 3.64 TiB per disk; with 16 GiB metaslabs (vdev.c caps the shift at 34) a
    # vdev keeps only whole metaslabs: 232 of them on one disk, 1397 on a 6-wide raidz2.
    assert vdev_space(Layout(), 4 * TB, ZFS_2_1) == 232 * 16 * GiB
    assert vdev_space(Layout("raidz", 6, 2), 4 * TB, ZFS_2_1) == 1396 * 16 * GiB
    space = empty_pool_space(raidz_groups(12, 6, 2), 4 * TB, 12, ZFS_2_1)
    # A 128 KiB block takes 192 KiB on a 6-wide raidz2 (32 data + 16 parity sectors),
    # so AVAIL is 341/512 of the raw space less 128 GiB of slop (spa_max_slop).
    assert space.dspace == 2 * (1396 * 16 * GiB >> 9) * 341
    assert space.slop == 128 * GiB
    with pytest.raises(LayoutError, match="at least 64 MiB"):
        vdev_space(Layout(), 10 * MiB, ZFS_2_1)


@pytest.mark.parametrize(
    ("layout", "block", "efficiency"),
    [
        (Layout(), 4 * KiB, Fraction(1)),
        (Layout(), 2 * KiB, Fraction(1, 2)),  # a partial sector costs a whole one
        (Layout("mirror", 2), 128 * KiB, Fraction(1, 2)),
        (Layout("mirror", 3), 16 * KiB, Fraction(1, 3)),
        # 6-wide raidz1: 4 data + 1 parity sectors, padded to 6 -> 16K of 24K.
        (Layout("raidz", 6, 1), 16 * KiB, Fraction(2, 3)),
        # 128 KiB: 32 data sectors in 7 rows of 5, 7 parity, 39 padded to 40 sectors.
        (Layout("raidz", 6, 1), 128 * KiB, Fraction(32, 40)),
        # 4 KiB on raidz2: 1 data + 2 parity sectors, a third of the raw space.
        (Layout("raidz", 6, 2), 4 * KiB, Fraction(1, 3)),
        # 16 KiB on 6-wide raidz3: 4 data in 2 rows, 6 parity, padded to 12 sectors.
        (Layout("raidz", 6, 3), 16 * KiB, Fraction(1, 3)),
    ],
)
def test_raw_efficiency(layout, block, efficiency):
    assert raw_efficiency(layout, block, 12) == efficiency


def test_small_blocks_on_raidz_use_up_avail_faster():
    pool = raidz_groups(6, 6, 2)
    # 4 KiB takes 12 KiB raw, deflated with 341/512: it counts as 8184 bytes of AVAIL.
    assert block_charge(pool.vdev, 4 * KiB, 12) == 24 * 341
    avail = 10 * GiB
    assert data_that_fits(pool, avail, 4 * KiB, 12) == avail // 8184 * 4096
    # 128 KiB blocks are what the deflate ratio assumes: they fit about as AVAIL says.
    assert abs(data_that_fits(pool, avail, 128 * KiB, 12) - avail) < avail // 500
    # A mirror charges a block its rounded size, whatever the block.
    assert data_that_fits(mirrors(4, 2), avail, 4 * KiB, 12) == avail


# ---------------------------------------------------------------- IOPS, resilver, scrub


def test_random_iops_teaching_model():
    assert random_iops(stripe(12), 200) == random_iops(stripe(12), 200)
    assert (random_iops(stripe(12), 200).read, random_iops(stripe(12), 200).write) == (
        2400, 2400)
    two_way = random_iops(mirrors(12, 2), 200)
    assert (two_way.read, two_way.write) == (2400, 1200)  # reads from any child
    three_way = random_iops(mirrors(12, 3), 200)
    assert (three_way.read, three_way.write) == (2400, 800)
    groups = random_iops(raidz_groups(12, 6, 2), 200)
    assert (groups.read, groups.write) == (400, 400)  # about one disk per vdev


def test_resilver_copies_only_allocated_data():
    rate = 100 * 10**6
    # A mirror vdev of 1000 GB raw, half full: the surviving child's 500 GB is read and
    # written to the new disk.
    two_way = resilver(mirrors(4, 2), 1000 * 10**9, 0.5, rate)
    assert (two_way.bytes_read, two_way.bytes_written) == (500 * 10**9, 500 * 10**9)
    assert two_way.hours == pytest.approx(500 * 10**9 / rate / 3600)
    # A 6-wide raidz vdev of 6000 GB raw, half full: 500 GB on each child; rebuilding
    # one reads the other five.
    group = resilver(raidz_groups(6, 6, 2), 6000 * 10**9, 0.5, rate)
    assert (group.bytes_read, group.bytes_written) == (2500 * 10**9, 500 * 10**9)
    assert group.hours == pytest.approx(two_way.hours)
    empty = resilver(raidz_groups(6, 6, 2), 6000 * 10**9, 0.0, rate)
    assert empty.bytes_read == 0 and empty.hours == 0
    assert resilver(stripe(4), 1000 * 10**9, 0.5, rate) is None  # nothing left to copy from


def test_scrub_reads_every_copy_and_parity():
    rate = 100 * 10**6
    assert scrub(mirrors(4, 2), 1000, 1.0, rate).bytes_read == 4000
    assert scrub(raidz_groups(6, 6, 2), 6000, 0.5, rate).bytes_read == 3000
    with pytest.raises(ValueError, match="fraction"):
        scrub(stripe(2), 1000, 1.5, rate)
    with pytest.raises(ValueError, match="positive"):
        resilver(mirrors(2, 2), 1000, 0.5, 0)
