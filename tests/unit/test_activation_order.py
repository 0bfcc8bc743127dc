"""labsim.zfs.activation: the activation order kept between activations is the order
activation_order() sorts the metaslabs into afresh (metaslab_compare(), module/zfs/
metaslab.c), whatever allocations and frees changed the metaslabs in between."""

import copy
import random

from labsim.zfs.activation import ActivationOrder
from labsim.zfs.metaslab import Metaslab
from labsim.zfs.metaslab_group import activation_order
from labsim.zfs.versions import KiB


def _first_fitting(metaslabs: list[Metaslab], exclude: set[int], block: int) -> int | None:
    return next((i for i in activation_order(metaslabs, 12, exclude)
                 if max(metaslabs[i].free_lengths) >= block), None)


def test_the_kept_order_is_the_sorted_order_after_any_changes():
    rng = random.Random(7)
    metaslabs = [Metaslab.empty(i << 22, 1 << 22) for i in range(24)]
    order = ActivationOrder()
    allocated: list[tuple[Metaslab, int, int]] = []  # (metaslab, offset, length)
    for step in range(400):
        ms = rng.choice(metaslabs)
        if (rng.random() < 0.6 or not allocated) and ms.free >= 64 * KiB:
            for offset, length in ms.allocate(rng.choice((4, 16, 64)) * KiB, 4 * KiB):
                allocated.append((ms, offset, length))
        elif allocated:  # free one run again: holes between allocations
            owner, offset, length = allocated.pop(rng.randrange(len(allocated)))
            owner.release(offset, length)
        exclude = set(rng.sample(range(24), 3))
        block = rng.choice((4, 128, 1024)) * KiB
        expected = _first_fitting(metaslabs, exclude, block)
        got = order.first(metaslabs, 12, exclude,
                          lambda m, block=block: max(m.free_lengths) >= block)
        assert got == expected, step
    assert expected is not None


def test_a_copy_of_the_metaslabs_gets_an_order_of_its_own():
    metaslabs = [Metaslab.empty(i << 22, 1 << 22) for i in range(4)]
    order = ActivationOrder()
    assert order.first(metaslabs, 12, set(), lambda m: True) == 0
    copied = copy.deepcopy((metaslabs, order))
    metaslabs[0].allocate(4 * KiB)  # reported to ``order``, not to the copy's
    assert order.first(metaslabs, 12, set(), lambda m: True) == 1
    copied_metaslabs, copied_order = copied
    assert copied_order.first(copied_metaslabs, 12, set(), lambda m: True) == 0
    copied_metaslabs[1].allocate(4 * KiB)
    assert copied_order.first(copied_metaslabs, 12, set(), lambda m: True) == 0
    assert order.first(metaslabs, 12, set(), lambda m: True) == 1
