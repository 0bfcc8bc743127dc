"""A transaction group syncing (spa_sync()): deferred frees come back, changed metaslabs
get space maps, and a RAID-Z expansion moves on by a step."""

from __future__ import annotations

from labsim.zfs import dtl_resilver, raidz_expansion, scan, spacemaps
from labsim.zfs.metadata_blocks import SPACE_MAP_BLOCK
from labsim.zfs.metadata_rewrite import rewrite_metadata
from labsim.zfs.mos import add_mos_blocks, free_mos_blocks, mos_written_anew
from labsim.zfs.mos_dnodes import mos_objects_changed
from labsim.zfs.pool import TXG_DEFER_SIZE, Extent, MosBlocks, Pool
from labsim.zfs.vdevs import TopVdev


def space_map_objects(pool: Pool) -> int:
    """Space map objects holding a data block: metaslabs' own once flushed, and the log
    space maps still needed (each written in its txg)."""
    return pool.space_maps.flushed_maps + len(pool.space_maps.logs)


def sync_space_maps(pool: Pool) -> None:
    """A txg's space maps (labsim.zfs.spacemaps.sync_txg), and their MOS blocks: a space
    map object that got its first block (a metaslab's first flush, a new log space map)
    adds one, and a log space map freed (spa_cleanup_old_sm_logs()) gives its block back."""
    groups = [v.metaslabs for v in pool.vdevs]
    spacemaps.sync_txg(groups, pool.txg, pool.space_maps)
    if space_map_objects(pool) != pool.space_map_charged:
        charge_space_maps(pool)
        # The blocks are allocated and freed in the same txg, whose next pass syncs the
        # metaslabs they changed (spa_sync_iterate_to_convergence()): their changes go to
        # this txg's log space map, which holds a block already.
        spacemaps.sync_pass(groups, pool.txg, pool.space_maps)


def charge_space_maps(pool: Pool) -> None:
    """The MOS holds one block for each space map object that has data (a 128K block of
    a few entries, SPACE_MAP_BLOCK): a block is added for each new one, and the newest
    freed for each one gone (labsim does not track which object holds which block:
    which copies are freed only moves where later blocks go)."""
    count = space_map_objects(pool)
    blocks = pool.space_map_blocks
    for _ in range(count - pool.space_map_charged):
        owner = MosBlocks()
        add_mos_blocks(pool, (SPACE_MAP_BLOCK,), owner)
        blocks.append(owner)
    for _ in range(pool.space_map_charged - count):
        if blocks:
            free_mos_blocks(pool, blocks.pop())
    mos_objects_changed(pool, count - pool.space_map_charged)
    pool.space_map_charged = count


def advance_txg(pool: Pool) -> None:
    """One transaction group syncs: blocks freed TXG_DEFER_SIZE txgs ago become free
    space again (metaslab_sync_done() moving ms_defer back to the allocatable tree).
    Changed metaslabs get space maps, and one is flushed (labsim.zfs.spacemaps). At its
    end, async tasks start (spa_async_dispatch()): a resilver an import asked for
    (labsim.zfs.dtl_resilver)."""
    _log_frees(pool)
    sync_space_maps(pool)
    synced = pool.txg
    pool.txg += 1
    # metaslab_sync_done() (module/zfs/metaslab.c, 2.1.11 and 2.3.9) of txg T empties
    # ms_defer[T % TXG_DEFER_SIZE], which holds the frees of txg T - TXG_DEFER_SIZE, and
    # puts T's frees there; but when the normal class's free space is down to the slop
    # (defer_allowed false) T's frees go back at once.
    last = synced - TXG_DEFER_SIZE
    deferred = pool.deferred
    # pool.deferred is in txg order (each free is appended at the txg it happens in, and
    # pool.txg only grows), so the frees due are a prefix of it, and T's a suffix.
    due = 0
    for freed, _ in deferred:
        if freed > last:
            break
        due += 1
    now = len(deferred)
    if deferred and deferred[-1][0] == synced and _down_to_slop(pool):
        while now > due and deferred[now - 1][0] == synced:
            now -= 1
    if due or now < len(deferred):
        pool.deferred = deferred[due:now]
        release_runs(pool, [extent for _, extent in deferred[:due]]
                     + [extent for _, extent in deferred[now:]])
    if pool.expansion is not None or pool.scrub_pending is not None:
        raidz_expansion.sync_txg(pool, pool.txg - 1)
    if pool.resilver_pending is not None and dtl_resilver.sync_txg(pool, pool.txg - 1):
        # The resilver runs as a scrub does, through the same scan txgs (dsl_scan_sync(),
        # module/zfs/dsl_scan.c): its setup rewrites the object directory, and the txgs
        # that change the MOS write it anew. Recorded on 2.3.9 (tests/fixtures/real/
        # 2.3.9/probes/lab15-dtl-objects.txt): a mirror member back after a write held
        # five space maps more once resilvered.
        mos_written_anew(pool, scan_setup=True)
        scan_txgs(pool)


def scan_txgs(pool: Pool) -> None:
    """The txgs a scan syncs once it has read the pool (labsim.zfs.scan_sync), each that
    changes the MOS rewriting its path to the uberblock."""
    for changes_mos in scan.SCAN_TXGS_CHANGING_MOS:
        if changes_mos:
            rewrite_metadata(pool, scan.MOS_OBJSET)
        advance_txg(pool)



def _down_to_slop(pool: Pool) -> bool:
    """Whether the pool's free space is down to its slop (metaslab_sync_done()'s test,
    raw free space against spa_get_slop_space()). The slop is at most the larger of the
    pool's 1/2^slop_shift and the minimum slop: a pool with more free space than that is
    not, and the slop itself (deflated space of every vdev) is not worked out for it."""
    space = pool.space
    free = space - pool.alloc
    version = pool.version
    if free > max(space >> version.slop_shift, version.min_slop):
        return False
    return free <= pool.slop_space


def _log_frees(pool: Pool) -> None:
    """The metaslabs of the blocks freed in this txg write the frees to its log space map
    (metaslab_sync() writes ms_freeing, module/zfs/metaslab.c in 2.1.11 and 2.3.9), though
    the space comes back only TXG_DEFER_SIZE txgs later."""
    txg = pool.txg
    # The byte range of the metaslab last marked on each vdev (by id): a txg's frees lie
    # mostly in a few metaslabs (the copies of a block alternate between vdevs), and a
    # free inside one already marked needs nothing more.
    ids = pool.top_ids()
    marked_start = [-1] * ids
    marked_end = [-1] * ids
    tops = pool.tops_by_id()
    # This txg's frees are the tail of pool.deferred (it is in txg order, advance_txg());
    # marking is the same in any order (the dirty list is read sorted, DirtyMetaslabs).
    for freed, extent in reversed(pool.deferred):
        if freed != txg:
            break
        vdev_id, offset, length = extent.vdev, extent.offset, extent.length
        if not length or (marked_start[vdev_id] <= offset
                          and offset + length <= marked_end[vdev_id]):
            continue
        vdev = tops[vdev_id]
        shift = vdev.ms_shift
        first = offset >> shift
        last = (offset + length - 1) >> shift
        for ms in vdev.metaslabs[first:last + 1]:
            ms.mark_changed()
        if first == last:
            marked_start[vdev_id], marked_end[vdev_id] = first << shift, (first + 1) << shift


def _release(vdev: TopVdev, start: int, length: int) -> None:
    """Deferred frees put back in circulation (metaslab_sync_done() moving ms_defer to
    ms_allocatable): in memory only, so the metaslabs do not sync for it (their frees
    were logged in the txg of the free, _log_frees())."""
    shift = vdev.ms_shift
    first = start >> shift
    last = (start + length - 1) >> shift
    if first == last and length and first < len(vdev.metaslabs):  # most often: one metaslab
        ms = vdev.metaslabs[first]
        was = ms.dirty
        # TopVdev.release() of a run inside one metaslab, in place.
        ms.release(start, length)
        vdev.free += length
        ms.dirty = was
        return
    metaslabs = vdev.metaslabs[first:last + 1]
    dirty = [ms.dirty for ms in metaslabs]
    vdev.release(start, length)
    for ms, was in zip(metaslabs, dirty, strict=True):
        ms.dirty = was


def release_runs(pool: Pool, extents: list[Extent]) -> None:
    """Free ``extents``, each run of them that lie end to end on one vdev in one release:
    the free segments come out the same (they are kept sorted and merged), in fewer
    steps (a txg's metadata rewrite frees two dozen sectors, mostly in a handful of
    runs)."""
    if not extents:
        return
    tops = pool.tops_by_id()
    first = extents[0]
    vdev, start, end = first.vdev, first.offset, first.offset + first.length
    for extent in extents[1:]:
        if extent.vdev == vdev and extent.offset == end:
            end += extent.length
            continue
        _release(tops[vdev], start, end - start)
        vdev, start, end = extent.vdev, extent.offset, extent.offset + extent.length
    _release(tops[vdev], start, end - start)
