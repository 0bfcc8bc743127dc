"""The rotor, aliquot and free-space bias of metaslab_alloc_dva() (module/zfs/metaslab.c)."""

import pytest

from labsim.zfs.allocator import GroupState, Rotor, free_space_bias, records_per_turn, rotor_shares
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


def test_throttle_moves_a_saturated_stream_toward_the_faster_vdev():
    groups = [GroupState(free=1 << 33, speed=1.0), GroupState(free=1 << 33, speed=9.0)]
    light = Rotor().distribute(groups, 1000, ALIQUOT, 128 * KiB, throttle_pressure=0.0)
    saturated = Rotor().distribute(groups, 1000, ALIQUOT, 128 * KiB, throttle_pressure=1.0)
    assert light == [500, 500]
    assert saturated == [100, 900]
