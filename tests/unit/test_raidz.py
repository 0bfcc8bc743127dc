"""RAID-Z arithmetic: vdev_raidz_asize() and vdev_raidz_open() (module/zfs/vdev_raidz.c),
the deflate ratio of vdev_set_deflate_ratio() (module/zfs/vdev.c), and what they do to a
pool's sizes and to writes."""

import pytest

from labsim.zfs.labels import leaf_asize
from labsim.zfs.layouts import (
    Layout,
    deflate_ratio,
    deflated,
    psize_to_asize,
    raidz_asize,
    top_level_asize,
)
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.metaslab import metaslab_shift
from labsim.zfs.pool import TXG_DEFER_SIZE
from labsim.zfs.space import dataset_available
from labsim.zfs.txg import advance_txg
from labsim.zfs.vdevs import raidz
from labsim.zfs.versions import ZFS_2_1, GiB, KiB, MiB
from labsim.zfs.write_path import write_file


@pytest.mark.parametrize(
    ("psize", "ashift", "width", "nparity", "asize"),
    [
        (4 * KiB, 12, 3, 1, 8 * KiB),  # one data sector + one parity
        (128 * KiB, 12, 3, 1, 192 * KiB),  # 32 data + 16 parity
        (128 * KiB, 12, 7, 2, 192 * KiB),  # 32 data + 14 parity, padded to 48
        (128 * KiB, 9, 7, 2, 180 * KiB),  # 256 data + 86 parity, padded to 360 sectors
        (16 * KiB, 12, 6, 2, 24 * KiB),
        (8 * KiB, 12, 5, 1, 16 * KiB),
        (1024 * KiB, 12, 7, 2, 1440 * KiB),
    ],
)
def test_raidz_asize(psize, ashift, width, nparity, asize):
    assert raidz_asize(psize, ashift, width, nparity) == asize
    assert psize_to_asize(Layout("raidz", width, nparity), psize, ashift) == asize


def test_a_partial_sector_costs_a_whole_one():
    assert raidz_asize(1, 12, 3, 1) == raidz_asize(4 * KiB, 12, 3, 1) == 8 * KiB
    # 2 data + 1 parity = 3 sectors, padded to a multiple of nparity + 1 = 2
    assert raidz_asize(4 * KiB + 1, 12, 3, 1) == 16 * KiB
    # 3 data + 1 parity: already even
    assert raidz_asize(8 * KiB + 1, 12, 4, 1) == 16 * KiB


def test_single_and_mirror_round_to_sectors():
    assert psize_to_asize(Layout(), 5000, 12) == 8 * KiB
    assert psize_to_asize(Layout("mirror", 2), 5000, 9) == 5120
    assert psize_to_asize(Layout("mirror", 3), 0, 12) == 0


@pytest.mark.parametrize(
    ("layout", "ashift", "ratio"),
    [
        (Layout("raidz", 3, 1), 12, 341),  # 131072 / (192K >> 9)
        (Layout("raidz", 7, 2), 9, 364),  # 131072 / (180K >> 9)
        (Layout("raidz", 5, 1), 12, 409),  # 128K takes 160K
        (Layout("mirror", 2), 12, 512),  # no inflation
        (Layout(), 9, 512),
    ],
)
def test_deflate_ratio(layout, ashift, ratio):
    assert deflate_ratio(layout, ashift) == ratio


def test_deflated_space_is_in_512_byte_units():
    assert deflated(196608, 341) == 384 * 341
    assert deflated(1 * GiB, 512) == 1 * GiB


def test_top_level_asize_takes_the_smallest_child():
    one = leaf_asize(1 * GiB)
    assert one == 1 * GiB - 4608 * KiB
    assert top_level_asize(Layout(), [1 * GiB]) == one
    assert top_level_asize(Layout("mirror", 2), [1 * GiB, 512 * MiB]) == leaf_asize(512 * MiB)
    assert top_level_asize(Layout("raidz", 3, 1), [1 * GiB] * 3) == 3 * one
    assert top_level_asize(Layout("raidz", 3, 1), [1 * GiB, 1 * GiB, 768 * MiB]) == (
        3 * leaf_asize(768 * MiB))


def test_unaligned_children_are_cut_to_whole_labels():
    # 1 GiB + 100 KiB is aligned down to 1 GiB before the labels come off.
    assert top_level_asize(Layout("raidz", 3, 1), [1 * GiB + 100 * KiB] * 3) == (
        3 * leaf_asize(1 * GiB))


def three_gib_raidz1(ashift=12):
    devices = [(f"/var/tmp/r{i}.raw", 1 * GiB) for i in range(3)]
    return create_pool("t", [raidz(1, *devices)], ZFS_2_1, ashift)


def test_raidz1_of_three_1g_files():
    pool = three_gib_raidz1()
    (vdev,) = pool.vdevs
    asize = 3 * leaf_asize(1 * GiB)  # 3207069696
    shift = metaslab_shift(asize, ZFS_2_1)
    # Fewer than 16 metaslabs of 512 MiB: highbit64(asize / 16) gives 256 MiB (vdev.c).
    assert shift == 28
    assert pool.space == (asize >> shift) << shift == 11 * 256 * MiB
    assert vdev.name == "raidz1-0"
    assert vdev.deflate_ratio == 341
    # zfs sees the space without parity (deflated), zpool list the raw space.
    assert pool.dspace == (pool.space >> 9) * 341
    assert pool.dspace < pool.space * 2 // 3


def test_raidz_available_space_is_deflated_minus_slop():
    pool = three_gib_raidz1()
    slop = max(pool.dspace >> 5, 128 * MiB) if pool.dspace >> 1 > 128 * MiB else pool.dspace >> 1
    assert pool.slop_space == slop
    assert dataset_available(pool, pool.root) == pool.dspace - slop - pool.dsl_used


def test_writes_on_raidz_pay_parity():
    pool = three_gib_raidz1()

    def settle() -> None:  # frees made by the last txg come back TXG_DEFER_SIZE txgs later
        for _ in range(TXG_DEFER_SIZE):
            advance_txg(pool)

    settle()
    before_raw, before_used = pool.alloc, pool.dalloc
    write_file(pool, pool.root, "f", 64 * MiB, "random")
    settle()  # the metadata the write's txgs replaced
    raw = pool.alloc - before_raw
    used = pool.dalloc - before_used
    data_blocks = 512
    assert raw >= data_blocks * 192 * KiB  # each 128 KiB record takes 192 KiB
    assert raw < data_blocks * 192 * KiB + 256 * KiB  # plus its indirect blocks
    # Deflated, a 128 KiB record counts as ~128 KiB again (341/512 of 192 KiB).
    assert used == (raw >> 9) * 341
    assert abs(used - 64 * MiB) < 256 * KiB


def test_raidz_aliquot_counts_data_disks():
    from labsim.zfs.layouts import Layout as L
    assert L("raidz", 3, 1).data_disks == 2
    assert L("raidz", 7, 2).data_disks == 5
    assert L("mirror", 3).data_disks == 1
    assert L().data_disks == 1
