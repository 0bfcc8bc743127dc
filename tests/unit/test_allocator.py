"""The rotor, aliquot and free-space bias of metaslab_alloc_dva() (module/zfs/metaslab.c)."""

import dataclasses

import pytest

from labsim.zfs.allocator import (
    GroupState,
    Rotor,
    free_space_bias,
    group_allocatable,
    records_per_turn,
    rotor_shares,
)
from labsim.zfs.versions import KiB, MiB

ALIQUOT = 512 * KiB


@pytest.mark.parametrize(
    ("free1", "free2", "ratio1", "ratio2"),
    [
        # The worked examples in the comment above the bias code (used/size per vdev).
        (128 * MiB - 16 * MiB, 128 * MiB - 16 * MiB, 100, 100),
        (128 * MiB - 16 * MiB, 128 * MiB - 64 * MiB, 127, 72),
        (128 * MiB - 16 * MiB, 512 * MiB - 64 * MiB, 40, 160),
    ],
)
def test_bias_follows_the_free_space_ratio(free1, free2, ratio1, ratio2):
    total = free1 + free2

    def bias_for(ratio):
        # C integer division truncates toward zero; int() of the quotient does the same.
        return int((ratio - 100) * ALIQUOT / 100)

    # The comment ignores the "+ 1" that guards the division, which can cost a percent.
    assert free_space_bias(free1, total, 2, ALIQUOT) in (bias_for(ratio1), bias_for(ratio1 - 1))
    assert free_space_bias(free2, total, 2, ALIQUOT) in (bias_for(ratio2), bias_for(ratio2 - 1))


def test_empty_10g_and_2g_vdevs_take_seven_records_for_every_two():
    # 9.94G and 1.98G as ZoL 0.6.5 sized them; 128 KiB records at ashift=13.
    groups = [GroupState(free=159 * 64 * MiB), GroupState(free=127 * 16 * MiB)]
    assert rotor_shares(groups, ALIQUOT, 128 * KiB) == [7, 2]


def test_a_vdev_always_takes_at_least_one_block_per_turn():
    assert records_per_turn(-ALIQUOT, ALIQUOT, 128 * KiB) == 1


def test_full_vdevs_get_nothing():
    groups = [GroupState(free=0), GroupState(free=10 * MiB)]
    assert Rotor().distribute(groups, 100, ALIQUOT, 128 * KiB) == [0, 80]


def test_splitting_work_into_chunks_gives_the_same_totals():
    groups = [GroupState(free=1 << 34), GroupState(free=1 << 32), GroupState(free=1 << 33)]
    whole = Rotor().distribute(groups, 7000, ALIQUOT, 128 * KiB)
    rotor = Rotor()
    parts = [rotor.distribute(groups, 1000, ALIQUOT, 128 * KiB) for _ in range(7)]
    assert [sum(col) for col in zip(*parts, strict=True)] == whole


def test_throttle_moves_a_big_txg_toward_the_vdev_that_completes_writes_faster():
    groups = [GroupState(free=1 << 33, speed=1.0), GroupState(free=1 << 33, speed=9.0)]
    rotor = Rotor().distribute(groups, 1000, ALIQUOT, 128 * KiB)
    throttled = Rotor().distribute(groups, 1000, ALIQUOT, 128 * KiB, drain=0.1)
    assert rotor == [500, 500]
    # The slow vdev's queue fills (32, growing by one per completed write up to 100); from
    # then on it takes what it completes, and the fast one the rest.
    assert 100 < throttled[0] < 250 and sum(throttled) == 1000


def test_a_txg_split_in_chunks_follows_the_txg_not_the_chunks():
    groups = [GroupState(free=1 << 33, speed=1.0), GroupState(free=1 << 33, speed=9.0)]
    whole = Rotor().distribute(groups, 1000, ALIQUOT, 128 * KiB, drain=0.1, txg_blocks=500)
    rotor = Rotor()
    parts = [rotor.distribute(groups, 500, ALIQUOT, 128 * KiB, drain=0.1) for _ in range(2)]
    assert [sum(col) for col in zip(*parts, strict=True)] == whole


def test_a_group_over_the_fragmentation_threshold_takes_nothing_while_another_can():
    # metaslab_group_alloc_update(): FRAG 96 % > zfs_mg_fragmentation_threshold (95).
    assert not group_allocatable(1 << 30, 1 << 29, 96)
    assert group_allocatable(1 << 30, 1 << 29, 95)
    assert group_allocatable(1 << 30, 1 << 29, None)  # ZFS_FRAG_INVALID counts as fine
    assert not group_allocatable(1 << 30, (1 << 30) - 4096, 10)  # 0 % free capacity
    groups = [GroupState(free=64 * MiB, allocatable=False), GroupState(free=64 * MiB)]
    # Skipped; the other takes every block (its bias still counts the skipped group's
    # free space in mc_free, which only shortens its turns).
    shares = rotor_shares(groups, ALIQUOT, 128 * KiB)
    assert shares[0] == 0 and shares[1] > 0
    # When no group is allocatable (mc_alloc_groups == 0) every group takes blocks again,
    # each one per turn (ratio 0: the bias cancels the aliquot).
    neither = [GroupState(free=64 * MiB, allocatable=False)] * 2
    assert rotor_shares(neither, ALIQUOT, 128 * KiB) == [1, 1]
    # The smallest block (SPA_MINBLOCKSIZE) is never refused.
    assert rotor_shares(groups, ALIQUOT, 512)[0] > 0


def test_distribute_copies_every_field_of_group_state():
    # Rotor.distribute() reads each GroupState field into a list of its own (faster than
    # new GroupStates at every txg of a fill): a new field must be read there too.
    assert [f.name for f in dataclasses.fields(GroupState)] == [
        "free", "speed", "asize", "aliquot", "allocatable"]


# 2.1.11 tuning seed 0019: 512M and 192M file vdevs, 9 records of 512K written into the new
# pool; each vdev's aliquot (1M) plus its bias is 1.46M and 0.53M, so turns of 3 and 2.
UNEQUAL = [GroupState(free=500 * MiB, aliquot=MiB), GroupState(free=183 * MiB, aliquot=MiB)]


@pytest.mark.parametrize(("allocator", "split"), [(0, [5, 4]), (1, [6, 3]), (3, [6, 3])])
def test_a_small_txg_goes_block_by_block_from_its_allocators_rotor(allocator, split):
    # metaslab_group_activate() starts allocator i's rotor at group (n - 1 + i) % n; the
    # real pool put 6 records on the large vdev (3214336 against 1646080 bytes).
    assert Rotor().distribute(UNEQUAL, 9, MiB, 512 * KiB, drain=0.4, txg_blocks=32,
                              allocator=allocator) == split


def test_an_allocators_turn_carries_over_to_its_next_txg_and_restarts_at_import():
    rotor = Rotor()
    first = rotor.distribute(UNEQUAL, 4, MiB, 512 * KiB, allocator=1)
    assert first == [3, 1]  # the small vdev's turn is half taken
    assert rotor.distribute(UNEQUAL, 4, MiB, 512 * KiB, allocator=1) == [3, 1]
    assert rotor.distribute(UNEQUAL, 4, MiB, 512 * KiB, allocator=2) == [2, 2]  # its own
    rotor.restart()
    assert rotor.distribute(UNEQUAL, 4, MiB, 512 * KiB, allocator=1) == [3, 1]


def test_a_txg_the_throttle_shapes_is_split_as_a_flow_whatever_the_allocator():
    groups = [GroupState(free=1 << 34), GroupState(free=1 << 32, speed=0.2)]
    flows = {tuple(Rotor().distribute(groups, 4000, ALIQUOT, 128 * KiB, drain=0.4,
                                      txg_blocks=4000, allocator=a)) for a in range(4)}
    assert flows == {tuple(Rotor().distribute(groups, 4000, ALIQUOT, 128 * KiB, drain=0.4,
                                              txg_blocks=4000))}


def test_ditto_copies_move_the_rotor_so_copies_3_puts_two_of_three_on_the_larger_vdev():
    # metaslab_alloc_dva() adds every DVA's asize to mca_aliquot and checks it against the
    # group that took that DVA: with copies=3 on a vdev of twice the free space and a small
    # one, the turn ends on the small vdev (its bias shrank its aliquot), the rotor goes to
    # the group after it, the large one, and each block's copies go large, small, large.
    # Generated script 69 on real 2.1.11: 38.3-39.4M on the 512M vdev, 19.4-20.4M on the
    # 256M one.
    groups = [GroupState(free=480 * MiB, aliquot=MiB), GroupState(free=240 * MiB, aliquot=MiB)]
    first = Rotor().distribute(groups, 40, MiB, 128 * KiB, allocator=0, copies=3)
    assert sum(first) == 40 and first[0] >= 38
    # One copy: the rotor hands out turns in the bias's proportion, about 2:1.
    single = Rotor().distribute(groups, 170, MiB, 128 * KiB, allocator=0)
    assert 1.5 < single[0] / single[1] < 2.5
