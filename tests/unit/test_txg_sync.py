"""What a transaction group writes when it syncs: `zpool sync` waits for the open txg and
the TXG_DEFER_SIZE after it, deferred frees come back without making their metaslabs sync
again, and the log space maps follow spa_flush_metaslabs() and spa_cleanup_old_sm_logs()
(labsim.zfs.spacemaps)."""

from __future__ import annotations

from labsim import Session
from labsim.zfs import spacemaps
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.metaslab import Metaslab
from labsim.zfs.pool import TXG_DEFER_SIZE
from labsim.zfs.txg import advance_txg
from labsim.zfs.versions import MiB, get_version
from labsim.zfs.write_path import write_file


def _pool():
    return create_pool("p", [("/var/tmp/a.raw", 512 * MiB)], get_version("2.3"))


def test_zpool_sync_brings_the_open_txgs_frees_back():
    session = Session()
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 512M /var/tmp/labs/a",
                 "zpool create p /var/tmp/labs/a",
                 "dd if=/dev/urandom of=/p/f bs=1M count=8"):
        assert session.run(line).status == 0, line
    pool = session.pools["p"]
    txg = pool.txg
    assert session.run("zpool sync p").status == 0
    # txg_wait_synced(dp, 0) waits for tx_open_txg + TXG_DEFER_SIZE.
    assert pool.txg == txg + 1 + TXG_DEFER_SIZE
    assert not pool.deferred  # the rewrite's frees are free space again


def test_returning_deferred_frees_syncs_no_metaslab():
    pool = _pool()
    write_file(pool, pool.root, "a", 1 * MiB, "random")
    assert pool.deferred  # the write's txg: its metadata rewrite freed the old copies
    for _ in range(TXG_DEFER_SIZE):
        advance_txg(pool)
    assert not pool.deferred
    # The frees were logged in their own txg; their return is in memory only.
    assert not [ms for v in pool.vdevs for ms in v.metaslabs if ms.dirty]


def _metaslabs(n: int) -> list[Metaslab]:
    return [Metaslab.empty(i << 24, 1 << 24) for i in range(n)]


def test_a_clean_metaslab_that_changes_takes_the_txg_it_syncs_in():
    maps = spacemaps.PoolSpaceMaps()
    group = _metaslabs(2)
    group[0].allocate(4096)
    group[1].allocate(4096)
    spacemaps.sync_txg([group], 10, maps)
    assert [ms.unflushed_txg for ms in group] == [10, 10]
    # txg 11 flushes the first (zfs_min_metaslabs_to_flush 1), which changed again in it
    group[0].allocate(4096)
    spacemaps.sync_txg([group], 11, maps)
    assert group[0].unflushed_txg == 11 and group[0].unflushed_dirty
    group[1].allocate(4096)
    spacemaps.sync_txg([group], 12, maps)  # flushes the second, the oldest
    assert (group[1].unflushed_txg, group[1].unflushed_dirty) == (12, True)
    # The log of txg 10 is no longer needed: every metaslab is unflushed from 11 on.
    assert [log.txg for log in maps.logs] == [11, 12]


def test_a_flush_passes_over_clean_metaslabs_and_bumps_them():
    maps = spacemaps.PoolSpaceMaps()
    group = _metaslabs(3)
    for ms in group:
        ms.allocate(4096)
    spacemaps.sync_txg([group], 5, maps)
    spacemaps.flush_metaslabs([group], 6, maps)  # the first, only
    assert [ms.unflushed_dirty for ms in group] == [False, True, True]
    group[2].allocate(4096)
    spacemaps.sync_txg([group], 7, maps)
    # txg 7 flushed the second; the third changed again (kept txg 5: still dirty).
    assert [ms.unflushed_txg for ms in group] == [6, 7, 5]
    spacemaps.sync_txg([group], 8, maps)  # nothing changed: no flush, no log
    group[1].allocate(4096)
    spacemaps.sync_txg([group], 9, maps)
    # The loop reached the third (txg 5, dirty) first and flushed it.
    assert [ms.unflushed_txg for ms in group] == [6, 9, 9]
    assert [log.txg for log in maps.logs] == [7, 9]
