"""The fill's incremental bookkeeping agrees with counting from scratch: a vdev's FRAG memo
(metaslab.FragmentationMemo, told of changed metaslabs) with group_fragmentation() over
all its metaslabs, the pool's count of metaslab space maps (spacemaps.PoolSpaceMaps.
metaslab_maps) with the metaslabs that have one, and freeing a txg's deferred blocks a run
at a time (txg.release_runs) with freeing them one by one."""

from __future__ import annotations

import contextlib
import copy

from labsim.zfs.errors import NoSpace
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.metaslab import Metaslab, group_fragmentation
from labsim.zfs.pool import Extent
from labsim.zfs.txg import release_runs
from labsim.zfs.versions import GiB, MiB, get_version
from labsim.zfs.write_path import remove_file, write_file


def _pool():
    return create_pool("p", [("/var/tmp/a.raw", 4 * GiB), ("/var/tmp/b.raw", 2 * GiB)],
                       get_version("2.3"))


def _check(pool) -> None:
    for vdev in pool.vdevs:
        assert vdev.fragmentation == group_fragmentation(vdev.metaslabs, vdev.ashift,
                                                         vdev.rules)
    mapped = sum(1 for v in pool.vdevs for ms in v.metaslabs if ms.sm_object)
    assert pool.space_maps.metaslab_maps == mapped


def test_frag_memo_and_space_map_count_follow_writes_and_frees():
    pool = _pool()
    _check(pool)
    for i in range(6):
        write_file(pool, pool.root, f"f{i}", 300 * MiB, "random")
        _check(pool)
    for i in range(0, 6, 2):  # holes between the files left
        remove_file(pool, pool.root, f"f{i}")
        _check(pool)
    with contextlib.suppress(NoSpace):  # fills the pool
        write_file(pool, pool.root, "big", 8 * GiB, "random")
    _check(pool)
    assert any(v.fragmentation for v in pool.vdevs)  # the frees left holes to count


def test_frag_memo_of_a_deep_copy_follows_the_copy():
    pool = _pool()
    write_file(pool, pool.root, "a", 500 * MiB, "random")
    _check(pool)
    twin = copy.deepcopy(pool)
    remove_file(twin, twin.root, "a")
    write_file(twin, twin.root, "b", 100 * MiB, "random")
    _check(twin)
    _check(pool)


def test_frag_memo_counts_metaslabs_added_at_the_end():
    pool = _pool()
    write_file(pool, pool.root, "a", 500 * MiB, "random")
    vdev = pool.vdevs[0]
    _check(pool)
    vdev.metaslabs.append(Metaslab.empty(len(vdev.metaslabs) << vdev.ms_shift,
                                         1 << vdev.ms_shift))
    vdev.free += 1 << vdev.ms_shift
    _check(pool)


def test_releasing_runs_frees_what_releasing_each_extent_frees():
    pool = _pool()
    write_file(pool, pool.root, "a", 200 * MiB, "random")
    vdev = pool.vdevs[0]
    pieces = vdev.take(64 * 4096, 4096)
    extents = [Extent(vdev.id, offset + k, 4096)
               for offset, length in pieces for k in range(0, length, 4096)]
    extents = extents[::2] + extents[1::2]  # not all end to end: several runs
    one_by_one = copy.deepcopy(pool)
    release_runs(pool, extents)
    for e in extents:
        one_by_one.vdevs[e.vdev].release(e.offset, e.length)
    for mine, theirs in zip(pool.vdevs, one_by_one.vdevs, strict=True):
        assert mine.free == theirs.free
        assert [(m.free_starts, m.free_lengths) for m in mine.metaslabs] == \
            [(m.free_starts, m.free_lengths) for m in theirs.metaslabs]
