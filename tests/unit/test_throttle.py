"""The allocation throttle's queues (labsim.zfs.throttle): metaslab_group_allocatable(),
metaslab_class_throttle_reserve() and the queue depths of spa_sync_adjust_vdev_max_queue_depth()
(zfs-2.3.9 module/zfs/metaslab.c, spa.c)."""

import pytest

from labsim.zfs.throttle import (
    MAX_ALLOC_QUEUE_DEPTH,
    ZFS_VDEV_DEF_QUEUE_DEPTH,
    queues_fill,
    throttled_split,
)


def test_the_queue_depths_are_openzfs_defaults():
    # zfs_vdev_def_queue_depth = 32; async_write_max_active 10 * queue_depth_pct 1000 / 100.
    assert (ZFS_VDEV_DEF_QUEUE_DEPTH, MAX_ALLOC_QUEUE_DEPTH) == (32, 100)


def test_a_txg_the_vdevs_keep_up_with_is_split_by_the_rotor():
    # 13 blocks per turn to the big vdev, 4 to the small one; a 16 MiB txg (128 blocks).
    split = throttled_split((13, 4), (0.45, 0.45), 128)
    assert split == pytest.approx((13 / 17, 4 / 17))


def test_no_throttle_or_one_vdev_is_the_rotor():
    assert throttled_split((13, 4), (0.0, 0.0), 10_000) == pytest.approx((13 / 17, 4 / 17))
    assert throttled_split((0, 4), (0.1, 0.1), 10_000) == (0.0, 1.0)


def test_queues_that_never_drain_take_the_default_depth_each():
    # Nothing completes: each vdev holds 32 allocations, whatever the rotor's shares, and
    # the class's 64 slots are all the txg gets before it waits.
    split = throttled_split((13, 4), (1e-9, 1e-9), 64)
    assert split == pytest.approx((0.5, 0.5), abs=1e-6)


def test_a_big_txg_moves_toward_an_even_split_when_the_vdevs_complete_alike():
    rotor = 13 / 17
    splits = [throttled_split((13, 4), (0.4, 0.4), blocks)[0] for blocks in (128, 512, 2048)]
    assert splits[0] == pytest.approx(rotor)
    assert rotor > splits[1] > splits[2] > 0.5


def test_the_vdev_that_completes_faster_takes_more_of_a_saturated_stream():
    slow, fast = throttled_split((1, 1), (0.1, 0.3), 4096)
    assert fast > 2.5 * slow and slow + fast == pytest.approx(1.0)


def test_vdevs_that_hardly_complete_anything_still_get_the_whole_txg():
    # Past the 64 blocks the queues hold, the rest waits for completions: each vdev takes
    # them at its own pace.
    split = throttled_split((13, 4), (1e-7, 3e-7), 1000)
    assert sum(split) == pytest.approx(1.0)
    assert split[1] > split[0]


def test_queues_fill_only_in_a_txg_big_enough_for_them():
    # Turns of 3 and 2 blocks, each vdev completing 0.4 blocks per block issued: nine
    # blocks leave every queue short of its 32 (the rotor alone decides); thousands fill
    # the busier one's.
    assert not queues_fill((3, 2), (0.4, 0.4), 9)
    assert queues_fill((3, 2), (0.4, 0.4), 5000)
    # No throttle, or a single vdev taking blocks: nothing is ever held back.
    assert not queues_fill((3, 2), (0.0, 0.0), 5000)
    assert not queues_fill((3, 0), (0.4, 0.4), 5000)
