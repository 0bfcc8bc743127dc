"""A device that missed writes comes back: its DTL, and the resilver the import asks for.

A write to a mirror or RAID-Z group whose member could not be opened fails on that member,
and vdev_stat_update() (module/zfs/vdev.c, 2.1.11 and 2.3.9) records the write's txg in
the member's DTL_MISSING ("dirty time log"), which vdev_dtl_sync() keeps in the MOS. When
the pool is imported with the member back, spa_load_impl() (module/zfs/spa.c) finds it
needs resilvering (vdev_resilver_needed(): a writeable leaf with a non-empty DTL_MISSING)
and calls spa_async_request(SPA_ASYNC_RESILVER). spa_import() keeps async tasks suspended
until it has done (spa_async_suspend() ... spa_async_resume()), and they are only started
at the end of a spa_sync() (spa_async_dispatch()): the resilver (dsl_scan_restart_resilver())
begins once the imported pool has synced a txg. So a `zpool wait -t resilver` right after
the import finds nothing resilvering and returns at once, and a `zpool status` then still
shows the previous scan; a later one shows "resilvered N". Recorded on 2.3.9 and 2.1.11:
generated tuning seeds 0040, 0045 and 0078 (the status after `zpool wait -t resilver`
shows the old scan line, a later one "resilvered ..."; in 0078 the scrub after it repairs
0B: the resilver had copied what the member missed).

The resilver copies every block born in the DTL's txgs and still allocated when it runs
(live_stale_bytes()): the blocks written while the member was away and not freed since,
whole on a mirror's member, the member's columns of RAID-Z blocks, each copy once for
every copy its block has (labsim.zfs.scan.resilver_writes(): what vdev_stat_update() adds
to scn_processed, the repair writes to the leaf). Until then
those blocks are stale on the member (labsim.zfs.import_config.mark_stale); a scrub that
comes first repairs them and its end empties the DTL (vdev_dtl_reassess() with the scrub
done), so no resilver follows (labsim.zfs.scan_sync.scrub).

The resilver syncs a scrub's txgs (labsim.zfs.txg.scan_txgs()), which write the MOS anew.
Not modelled: their history records ("scan setup", "scan done"), and the checksum errors
the import's own reads of stale blocks on the member count (0 to 3 in the recordings,
varying from run to run).
"""

from __future__ import annotations

from labsim.zfs import scan
from labsim.zfs.pool import Pool
from labsim.zfs.resilver_state import PendingResilver, StaleLeaf
from labsim.zfs.vdevs import TopVdev


def request(pool: Pool, stale: StaleLeaf, now: float) -> None:
    """spa_async_request(SPA_ASYNC_RESILVER) for a member back. Its DTL is never empty:
    the import that found it missing synced txgs that wrote (spa_load_impl() updating the
    config, spa_import() logging to the history), even if labsim, which does not place
    those blocks, finds no block written meanwhile (no ``stale.blocks``: "resilvered 0B",
    as one of the recordings of seed 0045 shows)."""
    pending = pool.resilver_pending
    if pending is None:
        pending = pool.resilver_pending = PendingResilver(now, None)
    pending.requested_at, pending.txg = now, None
    pending.leaves = [s for s in pending.leaves if s.guid != stale.guid] + [stale]


def resume(pool: Pool) -> None:
    """spa_async_resume() at the end of spa_import(): a resilver asked for during the
    import may start at the end of the next txg synced."""
    if pool.resilver_pending is not None:
        pool.resilver_pending.txg = pool.txg


def sync_txg(pool: Pool, txg: int) -> bool:
    """The end of spa_sync() of ``txg`` (labsim.zfs.txg.advance_txg()): a resilver an
    import requested before this txg starts (spa_async_dispatch()), and labsim completes
    it: the members' stale ranges are good again, and zpool status reports the bytes.
    Returns whether a resilver ran (its txgs are the caller's to sync)."""
    pending = pool.resilver_pending
    if pending is None or pending.txg is None or txg < pending.txg:
        return False
    pool.resilver_pending = None
    leaves = {leaf.guid: (vdev, leaf) for vdev in [*pool.vdevs, *pool.logs]
              for leaf in vdev.leaves}
    copied, resilvered = 0, False
    for stale in pending.leaves:
        if stale.guid not in leaves:
            continue
        vdev, leaf = leaves[stale.guid]
        if leaf.not_present:  # gone again: vdev_writeable() is false
            continue
        leaf.damaged = scan.subtract(leaf.damaged, scan.merged(stale.ranges))
        copied += live_stale_bytes(pool, vdev, vdev.leaves.index(leaf), stale)
        resilvered = True
    if resilvered:
        scan.resilver(pool, copied, pending.requested_at)
    return resilvered


def live_stale_bytes(pool: Pool, vdev: TopVdev, child: int, stale: StaleLeaf) -> int:
    """What the resilver writes to the member: the blocks it missed that are still
    allocated when the resilver runs. dsl_scan traverses the pool as it is then
    (dsl_scan_visitbp(), module/zfs/dsl_scan.c), so a file written while the member was
    away and removed before the resilver started is not copied: generated seed 146
    (2.3.9) removes it right after `zpool wait -t resilver` and real OpenZFS resilvers 96K
    in all five runs, where labsim, copying what the member missed at the import, said
    918K. Recorded without the removal (tests/fixtures/real/2.3.9/probes/
    lab15-degraded-window.txt) the same writes resilver 1.83M: the file's records have
    two copies, and each copy the member missed is written twice."""
    if not stale.blocks:
        return 0
    return scan.resilver_writes(vdev, child, scan.scanned_by_resilver(pool, vdev),
                                stale.blocks)
