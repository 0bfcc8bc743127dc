"""A transaction group syncing (spa_sync()): deferred frees come back, changed metaslabs
get space maps, and a RAID-Z expansion moves on by a step."""

from __future__ import annotations

from labsim.zfs import raidz_expansion, spacemaps
from labsim.zfs.pool import TXG_DEFER_SIZE, Pool
from labsim.zfs.versions import KiB

# A metaslab's first space map (space_map_alloc() when it is first synced with changes)
# adds blocks to the MOS: lab 7's recordings (2.1.11, ashift 12) show the root's USED grow
# by about 200K while 96M of writes put space maps on 8 more metaslabs. labsim counts them
# in USED and AVAIL (Pool.space_map_bytes) without placing them on the vdevs.
SPACE_MAP_MOS_BYTES = 24 * KiB


def sync_space_maps(pool: Pool, new_space_maps_cost: bool = True) -> None:
    new = spacemaps.sync_txg([v.metaslabs for v in pool.vdevs], pool.txg, pool.space_maps)
    if new_space_maps_cost:
        pool.space_map_bytes += new * SPACE_MAP_MOS_BYTES


def advance_txg(pool: Pool) -> None:
    """One transaction group syncs: blocks freed TXG_DEFER_SIZE txgs ago become free
    space again (metaslab_sync_done() moving ms_defer back to the allocatable tree).
    Changed metaslabs get space maps, and one is flushed (labsim.zfs.spacemaps)."""
    sync_space_maps(pool)
    pool.txg += 1
    keep = []
    for freed, extent in pool.deferred:
        if freed + TXG_DEFER_SIZE <= pool.txg:
            pool.vdevs[extent.vdev].release(extent.offset, extent.length)
        else:
            keep.append((freed, extent))
    pool.deferred = keep
    if pool.expansion is not None or pool.scrub_pending is not None:
        raidz_expansion.sync_txg(pool, pool.txg - 1)
