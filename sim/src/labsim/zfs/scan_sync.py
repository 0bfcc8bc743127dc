"""The transaction groups a scrub syncs, and what they change in the MOS.

labsim.zfs.scan decides what a scrub reads and repairs; this module adds what the scan's
bookkeeping writes. OpenZFS keeps the scan's state (dsl_scan_phys_t) as the "scan" entry of
the MOS's object directory, and the error logs' object numbers as two more entries of it;
each update is a zap_update() of that fat ZAP in syncing context, so the txg rewrites the
MOS blocks on the path to the uberblock (the ZAP's leaf, the MOS dnode block and
meta-dnode, the MOS objset_phys_t), allocates their new copies and frees the old, and the
metaslabs it touches get log space map entries, later their own space maps
(labsim.zfs.spacemaps). On a small pool (every lab's), the txgs of one scrub that change the
MOS are, in module/zfs/dsl_scan.c and spa.c (2.1.11 and 2.3.9 alike):

1. dsl_scan_setup_sync(), the sync task of `zpool scrub`: dsl_scan_sync_state(SYNC_MANDATORY)
   writes the new scan phys, and the history gets "scan setup".
2. The next txg, dsl_scan_sync() visits the whole pool (dsl_scan_visit()), queueing every
   block for sorted issue, and sets scn_done_txg to the txg after it; with queues pending
   dsl_scan_sync_state(SYNC_OPTIONAL) writes nothing, so the MOS is not changed.
3. The txg after, scan_io_queues_run() issues every queued read; the queues drain, and
   dsl_scan_sync_state() writes the scan phys again.
4. scn_done_txg has come: dsl_scan_done() writes the finished state, logs "scan done" and
   rotates the error logs in memory (spa_errlog_rotate(): spa_scrub_finished).
5. spa_errlog_sync() runs in pass 1 of spa_sync() before dsl_scan_sync(), so the rotation
   reaches the disk the txg after: zap_update() of DMU_POOL_ERRLOG_LAST and
   DMU_POOL_ERRLOG_SCRUB in the object directory.

txg_sync_thread() syncs txgs back to back while a scan is active (dsl_scan_active(),
module/zfs/txg.c), so `zpool scrub -w` returns after them. The scan phys and the error log
entries are fixed-size values in a ZAP leaf that has room for them, so the MOS keeps its
size; what grows is the space maps of the metaslabs the rewritten blocks went to.
"""

from __future__ import annotations

from labsim.zfs import scan
from labsim.zfs.mos import mos_written_anew
from labsim.zfs.pool import Pool, ScanRecord
from labsim.zfs.txg import scan_txgs

# Of the five txgs above, those that change the MOS (1, 3, 4, 5; the visit's, 2, does not)
# are labsim.zfs.scan.SCAN_TXGS_CHANGING_MOS, which a resilver syncs too.


def scrub(pool: Pool, now: float) -> ScanRecord:
    """zpool scrub, finished: labsim.zfs.scan.scrub(), and the txgs it syncs, each
    rewriting the MOS's path to the uberblock when it changed the MOS (the new copies are
    good bytes even where a device was overwritten)."""
    mos_written_anew(pool, scan_setup=True)  # the setup txg, before the scan reads
    record = scan.scrub(pool, now)
    # The scrub repaired what members back after an import had missed, and its end
    # empties their DTLs (vdev_dtl_reassess() with scrub_done, module/zfs/vdev.c), so
    # the resilver that import asked for has nothing left to do (labsim.zfs.dtl_resilver).
    pool.resilver_pending = None
    scan_txgs(pool)
    return record
