"""RAID-Z expansion (OpenZFS 2.3): ``zpool attach POOL raidzN-M NEWDEV`` widens a RAID-Z
vdev by one child, and a reflow moves every allocated sector to the wider layout.

From module/zfs/vdev_raidz.c at zfs-2.3.9 (and spa_vdev_attach() in module/zfs/spa.c):

* Attach (spa_vdev_attach()): the new child is added at once, after waiting for the
  youngest allocations and frees to sync (txg + TXG_CONCURRENT_STATES + TXG_DEFER_SIZE);
  vdev_raidz_attach_sync() then starts the expansion (DSS_SCANNING, its start time) in
  the next txg, and the command returns once that txg has synced. While expanding, the
  vdev keeps its size: vdev_raidz_open() counts ``children - 1`` children
  (vdev_rz_expanding).
* The reflow (spa_raidz_expand_thread()): raidz_reflow_scratch_sync() first moves the
  start of the vdev, ``P2ALIGN(VDEV_BOOT_SIZE, 1 << ashift) * children`` bytes, through
  the boot area (a sync task of its own; vre_bytes_copied does not count it). Then each
  metaslab that existed at the attach, in order: everything not free (its allocated
  segments, and whatever ms_defer still holds) plus its last sector, always
  (raidz_reflow_impl()). A copy may not overwrite a row whose old contents are still
  needed: it stops at ``next_overwrite_blkid = ubsync_blkid + ubsync_blkid /
  old_children - old_children`` sectors, computed from the progress the last synced
  uberblock records, records its progress there and waits for the txg to sync
  (raidz_reflow_record_progress(), raidz_reflow_sync()). Each txg therefore moves the
  reflow's offset to at most (1 + 1 / old_children) times where it was, and a reflow takes
  a number of txgs that grows with log(vdev size / scratch size): labsim does one such
  step per txg that syncs (sync_txg(), called by txg.advance_txg()), so ``zpool wait -t
  raidz_expand`` runs as many txgs as the real reflow needs. How long each takes (the copy
  rate) cannot be modelled; labsim copies each step's bytes within its txg and dates the
  end by REFLOW_BYTES_PER_SECOND.
* Progress (spa_raidz_expand_get_stats()): ``pres_to_reflow`` is the vdev's vs_alloc at
  the time of asking, ``pres_reflowed`` the bytes copied (vre_bytes_copied, written into
  the vdev's top ZAP by each txg's raidz_reflow_sync()).
* Completion (raidz_reflow_complete_sync(), one more sync task): a reflow node
  ``{re_txg = txg + TXG_CONCURRENT_STATES, re_logical_width = children}`` goes into
  vd_expand_txgs, the state becomes DSS_FINISHED with its end time, and a scrub is set up
  in the same txg (zfs_scrub_after_expand = 1), whose first pass runs in that txg too
  (spa_sync(): dsl_pool_sync() runs the sync tasks, then dsl_scan_sync()). The thread
  then calls vdev_online(ZFS_ONLINE_EXPAND): the vdev reopens with every child
  (vdev_raidz_open()), and the async config update (spa_config_update(), at
  spa_last_synced_txg() + 1) has vdev_expand() add metaslabs of the same vdev_ms_shift
  (vdev_metaslab_set_size() is not run again) up to ``asize >> ms_shift``. New metaslabs
  count only once their txg has synced (metaslab_sync_done(): ms_new), so SIZE grows
  one txg after the completion, by about one child.
* Block sizes (vdev_raidz_asize(), vdev_raidz_get_logical_width()): a block costs what
  the width in force at its birth txg says, the width of the newest reflow node with
  ``re_txg <= txg``, else vd_original_width. Old blocks keep their size; blocks born from
  the completion txg + 3 on use the new width.
* Space accounting (vdev_set_deflate_ratio(), module/zfs/vdev.c): the deflate ratio is
  computed with ``vdev_psize_to_asize_txg(vd, 1 << 17, 0)``, i.e. at txg 0, so from the
  original width, and never again: new raw space is converted to AVAIL at the old
  data:parity ratio, and new blocks (cheaper on disk) are charged as if written at the old
  width, which is why zpool-attach(8) warns that zfs list, df and ls -s report "slightly
  less space than is expected" for them.

The scrub set up at completion is modelled as labsim.zfs.scan does scrubs, whole, at the
txg it would end in (SCRUB_TXGS); until then zpool status shows it as it is once its
first pass has walked the pool: everything scanned, nothing issued (the state the 2.3.9
recording shows right after ``zpool wait -t raidz_expand``).

The attach and ``zpool wait`` drive txgs, so they are with the other commands that change
a pool's vdevs (labsim.zfs.lifecycle.attach_raidz_child, wait_for_expansion); the state
they change is in labsim.zfs.raidz_expansion_state.
"""

from __future__ import annotations

from labsim.zfs import scan, vdev_size
from labsim.zfs.labels import VDEV_BOOT_SIZE
from labsim.zfs.metaslab import Metaslab
from labsim.zfs.pool import TXG_CONCURRENT_STATES, Pool
from labsim.zfs.raidz_expansion_state import ExpandState, Expansion, PendingScrub
from labsim.zfs.vdevs import TopVdev
from labsim.zfs.versions import MiB

# zfs_scrub_after_expand (vdev_raidz.c): a scrub starts when an expansion completes.
ZFS_SCRUB_AFTER_EXPAND = True


# How long the reflow takes: labsim dates its end with this rate. The copy reads every
# allocated byte from the old children and writes it to the new places, with a txg sync
# per step; the 2.3.9 recording (lab VM, software emulation) copied 59.8M in 3 seconds.
# Neither the duration nor the rate is compared with real runs.
REFLOW_BYTES_PER_SECOND = 20 * MiB


# dsl_scan_sync() (module/zfs/dsl_scan.c): a sorted scrub of a small pool walks it in the
# txg that set it up (scn_done_txg = txg + 1, its blocks queued), issues the queued reads
# in the next, and ends (dsl_scan_done()) in the one after: it is done with the sync of
# its setup txg + 2, and no sooner.
SCRUB_TXGS = 2


# ---------------------------------------------------------------- the reflow, step by step


def scratch_size(ashift: int, children: int) -> int:
    """raidz_reflow_scratch_sync(): the logical bytes moved through the boot area first,
    P2ALIGN(VDEV_BOOT_SIZE, 1 << ashift) on each (new) child."""
    write_size = VDEV_BOOT_SIZE - VDEV_BOOT_SIZE % (1 << ashift)
    return write_size * children


def next_overwrite(offset: int, ashift: int, old_children: int) -> int:
    """raidz_reflow_impl(): how far a copy may go while the synced progress is ``offset``
    (next_overwrite_blkid, in bytes)."""
    blkid = offset >> ashift
    return (blkid + blkid // old_children - old_children) << ashift


def copy_bytes(metaslabs: list[Metaslab], start: int, end: int, ashift: int) -> int:
    """Bytes raidz_reflow_impl() copies from [start, end) of the vdev: in each metaslab,
    what is not in ms_allocatable (free segments) plus the metaslab's last sector, which
    is always copied (spa_raidz_expand_thread())."""
    sector = 1 << ashift
    total = 0
    for ms in metaslabs:
        lo, hi = max(start, ms.start), min(end, ms.start + ms.size)
        if lo >= hi:
            continue
        free = 0
        last = ms.start + ms.size - sector
        last_free = False
        for seg_start, seg_length in zip(ms.free_starts, ms.free_lengths, strict=True):
            a, b = max(lo, seg_start), min(hi, seg_start + seg_length)
            if a < b:
                free += b - a
            if seg_start <= last < seg_start + seg_length:
                last_free = True
        total += (hi - lo) - free
        if last_free and lo <= last < hi:
            total += sector
    return total


def reflow_step(vdev: TopVdev, expansion: Expansion) -> None:
    """What the reflow does in one txg: the scratch phase first, then copies up to the
    overlap limit, and records the progress the txg's sync commits."""
    if not expansion.scratch_done:
        expansion.scratch_done = True
        expansion.offset = min(scratch_size(vdev.ashift, len(vdev.leaves)),
                               expansion.reflow_end)
        return
    start = expansion.offset
    end = min(max(next_overwrite(start, vdev.ashift, expansion.old_children), start),
              expansion.reflow_end)
    old = vdev.metaslabs[:expansion.reflow_end >> vdev.ms_shift]
    expansion.bytes_copied += copy_bytes(old, start, end, vdev.ashift)
    expansion.offset = end


def reflowed_bytes(expansion: Expansion) -> int:
    """pres_reflowed."""
    return expansion.bytes_copied


def reflow_seconds(expansion: Expansion) -> int:
    return int(expansion.bytes_copied / REFLOW_BYTES_PER_SECOND)


# ---------------------------------------------------------------- the pool's side


def expanding(pool: Pool) -> bool:
    """spa->spa_raidz_expand != NULL (what zpool wait -t raidz_expand waits for)."""
    return pool.expansion is not None and pool.expansion.state is ExpandState.SCANNING


def sync_txg(pool: Pool, txg: int) -> None:
    """What syncing ``txg`` does for expansions (txg.advance_txg() calls this once the txg
    has synced and ``pool.txg`` is the next open one)."""
    for vdev in pool.vdevs:
        if vdev.geometry is not None:
            vdev.geometry.txg = pool.txg
    expansion = pool.expansion
    if expansion is not None:
        vdev = next(v for v in pool.vdevs if v.id == expansion.vdev)
        if expansion.state is ExpandState.SCANNING and txg > expansion.attach_txg:
            if expansion.scratch_done and expansion.offset >= expansion.reflow_end:
                _complete(pool, vdev, expansion, txg)
            else:
                reflow_step(vdev, expansion)
        elif expansion.grow_txg and txg >= expansion.grow_txg:
            expansion.grow_txg = 0
            _grow(vdev)
    pending = pool.scrub_pending
    if pending is not None and txg >= pending.setup_txg + SCRUB_TXGS:
        pool.scrub_pending = None
        scan.scrub(pool, pending.start_time)


def _complete(pool: Pool, vdev: TopVdev, expansion: Expansion, txg: int) -> None:
    """raidz_reflow_complete_sync() in ``txg``, and what the thread does after it."""
    assert vdev.geometry is not None
    vdev.geometry.nodes.append((txg + TXG_CONCURRENT_STATES, len(vdev.leaves)))
    expansion.state = ExpandState.FINISHED
    expansion.end_time = expansion.start_time + reflow_seconds(expansion)
    expansion.end_txg = txg
    # vdev_online(ZFS_ONLINE_EXPAND) then spa_config_update(): new metaslabs in the next
    # txg, counted once it has synced.
    expansion.grow_txg = txg + 1
    if ZFS_SCRUB_AFTER_EXPAND:
        pool.scrub_pending = PendingScrub(expansion.end_time, txg, pool.alloc)


def _grow(vdev: TopVdev) -> None:
    """vdev_online(ZFS_ONLINE_EXPAND) on the RAID-Z vdev, then vdev_expand(): reopened
    with every child counted, it takes the new size, and metaslabs of the same size are
    added up to it (labsim.zfs.vdev_size)."""
    vdev_size.reopen(vdev, lambda path: None, expanding=vdev)
    vdev_size.expand(vdev)
