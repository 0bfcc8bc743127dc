"""Metaslab count and size: vdev_metaslab_set_size() in module/zfs/vdev.c."""

import pytest

from labsim.zfs.labels import leaf_asize
from labsim.zfs.metaslab import metaslab_count, metaslab_shift
from labsim.zfs.versions import ZFS_0_6_5, ZFS_2_1, GiB, MiB


@pytest.mark.parametrize(
    ("asize", "count", "size"),
    [
        # Vectors computed from the 2.x algorithm (reference notes, part C2).
        (100 * GiB, 200, 512 * MiB),
        (1000 * GiB, 125, 8 * GiB),
        (4000 * GiB, 250, 16 * GiB),
        (18000 * GiB, 1125, 16 * GiB),
        (leaf_asize(1 * GiB), 15, 64 * MiB),
        # The lesson-1 vdevs: 10 GiB and 2 GiB sparse files.
        (leaf_asize(10 * GiB), 19, 512 * MiB),
        (leaf_asize(2 * GiB), 15, 128 * MiB),
    ],
)
def test_openzfs_2_1_metaslab_sizing(asize, count, size):
    assert metaslab_count(asize, ZFS_2_1) == count
    assert 1 << metaslab_shift(asize, ZFS_2_1) == size


@pytest.mark.parametrize(
    ("file_size", "count", "size", "printed_size_gib"),
    [
        # ZoL 0.6.5 aimed for ~200 metaslabs; the published `zpool list -v` showed these
        # vdevs as 9.94G and 1.98G.
        (10 * GiB, 159, 64 * MiB, 9.94),
        (2 * GiB, 127, 16 * MiB, 1.98),
    ],
)
def test_legacy_metaslab_sizing_matches_published_sizes(file_size, count, size,
                                                         printed_size_gib):
    asize = leaf_asize(file_size)
    assert metaslab_count(asize, ZFS_0_6_5) == count
    assert 1 << metaslab_shift(asize, ZFS_0_6_5) == size
    assert round(count * size / GiB, 2) == printed_size_gib


def test_metaslabs_are_never_smaller_than_the_largest_block():
    assert 1 << metaslab_shift(64 * MiB, ZFS_2_1) == 16 * MiB
    assert 1 << metaslab_shift(64 * MiB, ZFS_0_6_5) == 16 * MiB


def test_huge_vdevs_cap_the_metaslab_count():
    asize = 1 << 52  # 4 PiB: 16 GiB metaslabs would be 262144 of them
    assert metaslab_count(asize, ZFS_2_1) <= 1 << 17


def test_labels_and_boot_block_take_4_5_mib():
    assert leaf_asize(10 * GiB) == 10 * GiB - 4 * MiB - 512 * 1024
    # the device size is first aligned down to a whole 256 KiB label
    assert leaf_asize(10 * GiB + 1000) == leaf_asize(10 * GiB)
