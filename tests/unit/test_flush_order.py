"""spa_metaslabs_by_flushed (labsim.zfs.flush_order) is only a faster way to read the
metaslabs' own fields: txg after txg, the space maps it drives end exactly as when every
txg sorts all the metaslabs afresh (the way spa_flush_metaslabs() and
spa_cleanup_old_sm_logs() are specified), whatever happens between the txgs: metaslabs
changed at random, later passes, an export's flush of all, metaslabs added to a vdev, a
vdev added, the pool copied or pickled, a txg taken twice."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from labsim.zfs import spacemaps
from labsim.zfs.metaslab import Metaslab


def _sorted_flush(groups: list[list[Metaslab]], txg: int) -> None:
    """spa_flush_metaslabs() read from a full sort by (unflushed txg, vdev, metaslab)."""
    mapped = sorted(((ms.unflushed_txg, v, i) for v, group in enumerate(groups)
                     for i, ms in enumerate(group) if ms.sm_object))
    want = spacemaps.MIN_METASLABS_TO_FLUSH
    for unflushed_txg, v, i in mapped:
        if unflushed_txg == txg:
            break
        ms = groups[v][i]
        if ms.unflushed_dirty:
            spacemaps.flush_metaslab(ms, txg)
            want -= 1
            if not want:
                break
        else:
            ms.unflushed_txg = txg


def _sorted_sync_txg(groups: list[list[Metaslab]], txg: int,
                     maps: spacemaps.PoolSpaceMaps) -> int:
    """spacemaps.sync_txg() with the full sort and the full scan for the oldest."""
    for vdev_id in range(len(groups)):
        if vdev_id not in maps.unflushed_phys:
            maps.unflushed_phys[vdev_id] = maps.new_object()
    changed = [ms for group in groups for ms in group if ms.dirty]
    if changed:
        _sorted_flush(groups, txg)
    new_maps = spacemaps._sync_changed(changed, txg, maps, 0)
    oldest = min((ms.unflushed_txg for group in groups for ms in group if ms.sm_object),
                 default=None)
    maps.logs = (maps.logs[-1:] if oldest is None
                 else [log for log in maps.logs if log.txg >= oldest])
    return new_maps


def _change(rng: random.Random, groups: list[list[Metaslab]]) -> None:
    for _ in range(rng.randrange(4)):
        group = rng.choice(groups)
        ms = rng.choice(group)
        if ms.free >= 4096 and rng.random() < 0.7:
            ms.allocate(4096)
        elif ms.alloc:
            ms.release(ms.start + ms.size - ms.free_lengths[-1] - 4096
                       if ms.free_lengths else ms.start, 4096)


def _state(groups, maps):
    return ([[repr(ms) for ms in group] for group in groups], repr(maps))


@pytest.mark.parametrize("seed", range(12))
def test_the_flush_order_ends_as_a_full_sort_does(seed):
    rng = random.Random(seed)
    fast_groups = [[Metaslab.empty(i << 24, 1 << 24) for i in range(rng.randrange(1, 9))]
                   for _ in range(rng.randrange(1, 4))]
    fast_maps = spacemaps.PoolSpaceMaps()
    slow_groups, slow_maps = copy.deepcopy((fast_groups, fast_maps))
    txg = 4
    for _ in range(300):
        seed_of_change = rng.random()
        _change(random.Random(seed_of_change), fast_groups)
        _change(random.Random(seed_of_change), slow_groups)
        event = rng.random()
        if event < 0.03:  # an export: every metaslab flushed
            spacemaps.flush_all(fast_groups, txg, fast_maps)
            spacemaps.flush_all(slow_groups, txg, slow_maps)
        elif event < 0.06:  # a vdev grows by a metaslab (vdev_expand())
            v = rng.randrange(len(fast_groups))
            for groups in (fast_groups, slow_groups):
                groups[v].append(Metaslab.empty(len(groups[v]) << 24, 1 << 24))
        elif event < 0.08:  # zpool add
            for groups in (fast_groups, slow_groups):
                groups.append([Metaslab.empty(i << 24, 1 << 24) for i in range(3)])
        elif event < 0.12:  # the pool copied (a scenario's reused pool) or pickled
            copied = (copy.deepcopy if rng.random() < 0.5
                      else lambda x: pickle.loads(pickle.dumps(x)))
            fast_groups, fast_maps = copied((fast_groups, fast_maps))
        assert (spacemaps.sync_txg(fast_groups, txg, fast_maps)
                == _sorted_sync_txg(slow_groups, txg, slow_maps))
        if rng.random() < 0.2:  # a later pass of the same txg
            seed_of_change = rng.random()
            _change(random.Random(seed_of_change), fast_groups)
            _change(random.Random(seed_of_change), slow_groups)
            assert (spacemaps.sync_pass(fast_groups, txg, fast_maps)
                    == spacemaps._sync_changed([ms for g in slow_groups for ms in g
                                                if ms.dirty], txg, slow_maps, 0))
        assert _state(fast_groups, fast_maps) == _state(slow_groups, slow_maps)
        # Now and then a txg is taken again (a caller's test, an import), or skipped.
        txg += rng.choice((0, 1, 1, 1, 1, 2, 3)) if rng.random() > 0.02 else -2
