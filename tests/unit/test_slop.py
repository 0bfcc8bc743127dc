"""Slop space: spa_get_slop_space() in module/zfs/spa_misc.c."""

import pytest

from labsim.zfs.slop import slop_space
from labsim.zfs.versions import ZFS_0_6_5, ZFS_2_1, GiB, MiB, TiB


@pytest.mark.parametrize(
    ("space", "slop"),
    [
        (1 * GiB, 128 * MiB),  # spa_min_slop, as long as it is under half the pool
        (4 * GiB, 128 * MiB),
        (100 * GiB, 100 * GiB // 32),
        (1000 * GiB, 31 * GiB + 256 * MiB),
        (4 * TiB, 128 * GiB),  # spa_max_slop
        (100 * TiB, 128 * GiB),
        (128 * MiB, 64 * MiB),  # never more than half the pool
    ],
)
def test_openzfs_2_1_slop(space, slop):
    assert slop_space(space, ZFS_2_1) == slop


def test_0_6_5_slop_had_no_cap():
    assert slop_space(100 * TiB, ZFS_0_6_5) == 100 * TiB // 32


def test_published_0_6_5_pool_stopped_at_its_slop():
    # 9.94G + 1.98G pool: FREE was 381M when dd hit "No space left on device".
    space = (159 * 64 + 127 * 16) * MiB
    assert round(slop_space(space, ZFS_0_6_5) / MiB) == 382


def test_embedded_log_counts_against_slop_but_at_most_half():
    assert slop_space(1000 * GiB, ZFS_2_1, embedded_log_space=1 * GiB) == 30 * GiB + 256 * MiB
    assert slop_space(1000 * GiB, ZFS_2_1, embedded_log_space=100 * GiB) == (
        (31 * GiB + 256 * MiB) // 2)
