"""Space maps on disk, and the log space maps of OpenZFS 2.x: what zdb -m reads.

Each metaslab records its allocations and frees in its own space map object. Since the
log_spacemap feature (OpenZFS 2.0, active on every new pool), a txg's changes are first
appended to one pool-wide *log* space map and the metaslabs' own space maps are brought
up to date ("flushed") a few metaslabs per txg (spa_flush_metaslabs(),
module/zfs/spa_log_spacemap.c). So on a live pool `zdb -m` shows metaslabs whose free
column lags behind; exporting the pool flushes every metaslab (spa_unload_log_sm_flush_all())
and `zdb -e` on the exported pool shows them all up to date.

What labsim keeps: per metaslab, whether it has a space map, smp_alloc as of its last
flush, an estimate of its entries and its unflushed txg (labsim.zfs.metaslab); per pool,
the log space maps still needed. Object numbers and txgs cannot match a real pool (they
depend on every object the pool ever created and on how many txgs each command took):
labsim hands out plausible, deterministic ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.zfs.flush_order import MetaslabsByFlushed
from labsim.zfs.metaslab import Metaslab

# The first MOS object number labsim hands out for a space map. A new 2.1 pool's MOS
# already holds a few dozen objects (the pool directory, the root dataset, its
# properties, the feature tables); the lab's recordings show space maps numbered 64-160.
FIRST_SPACE_MAP_OBJECT = 64
# A log space map entry is one 64-bit word when it fits (space_map.h SM_PREFIX...), two
# for most; labsim counts two words, 16 bytes, an entry.
SM_ENTRY_BYTES = 16


class DirtyMetaslabs:
    """The metaslabs of a pool changed since their last sync, without reading every
    metaslab's flag at every txg (a 1 TiB fill is a thousand txgs over hundreds of
    metaslabs, of which a txg changes a few): each metaslab adds itself to ``reports``
    when it becomes dirty (Metaslab.mark_changed()), and a read looks at those alone. The
    metaslabs are registered, and read all, again whenever the groups are not those
    registered (a vdev or a metaslab added, the pool copied: a copy starts empty) or
    another pool's tracker took them over."""

    def __init__(self) -> None:
        self._groups: list[list[Metaslab]] = []  # kept so that their ids stay theirs
        self._shape: list[tuple[int, int]] = []  # (id, length) of each group
        self._places: dict[int, int] = {}  # id(metaslab) -> vdev << 32 | metaslab
        self._reports: list[Metaslab] = []

    def __reduce__(self) -> tuple[type[DirtyMetaslabs], tuple[()]]:
        return (DirtyMetaslabs, ())

    def __repr__(self) -> str:
        return "DirtyMetaslabs()"

    def read(self, metaslab_groups: list[list[Metaslab]]) -> list[Metaslab]:
        """The dirty metaslabs of ``metaslab_groups`` (by vdev), by vdev and metaslab."""
        reports = self._reports
        shape = [(id(group), len(group)) for group in metaslab_groups]
        if shape != self._shape or any(group[0]._dirty_reports is not reports
                                       for group in metaslab_groups if group):
            self._register(metaslab_groups, shape)
            return [ms for group in metaslab_groups for ms in group if ms.dirty]
        if not reports:
            return []
        changed = [ms for ms in reports if ms.dirty]
        for ms in reports:
            ms._dirty_reported = False
        reports.clear()
        if len(changed) > 1:
            places = self._places
            changed.sort(key=lambda ms: places[id(ms)])
        return changed

    def _register(self, metaslab_groups: list[list[Metaslab]],
                  shape: list[tuple[int, int]]) -> None:
        self._groups = list(metaslab_groups)
        self._shape = shape
        # A new list: metaslabs registered before with the old one no longer report to it.
        reports = self._reports = []
        places = self._places = {}
        for v, group in enumerate(metaslab_groups):
            for i, ms in enumerate(group):
                places[id(ms)] = v << 32 | i
                ms._dirty_reports = reports
                ms._dirty_reported = False


@dataclass
class LogSpaceMap:
    """One log space map: the txg it was written in, its MOS object, and its entries
    (allocations and frees of that txg, for every metaslab) and net allocated bytes."""

    object: int
    txg: int
    entries: int
    alloc: int


@dataclass
class PoolSpaceMaps:
    """A pool's space map bookkeeping: the object counter, the object holding each
    vdev's ms_unflushed_phys table (VDEV_TOP_ZAP_MS_UNFLUSHED_PHYS_TXGS), and the log
    space maps still needed."""

    next_object: int = FIRST_SPACE_MAP_OBJECT
    unflushed_phys: dict[int, int] = field(default_factory=dict)
    logs: list[LogSpaceMap] = field(default_factory=list)
    # Metaslabs of the pool that have a space map object (sync_metaslab() gives each its
    # one, never taken back): kept here so that a txg's sync does not count them again.
    metaslab_maps: int = field(default=0, repr=False, compare=False)
    # Of those, the ones flushed at least once: only a flush writes to a metaslab's own
    # space map (metaslab_flush(); with the log_spacemap feature metaslab_sync() writes to
    # the log), so until then its object has no data block (zdb -dd: "SPA space map" of
    # dsize 0, tests/fixtures/real/*/probes/lab15-mos-growth.txt).
    flushed_maps: int = field(default=0, repr=False, compare=False)
    # spa_metaslabs_by_flushed: those metaslabs in flush order (labsim.zfs.flush_order).
    by_flushed: MetaslabsByFlushed = field(default_factory=MetaslabsByFlushed, repr=False,
                                           compare=False)
    # The metaslabs changed since their last sync.
    dirty: DirtyMetaslabs = field(default_factory=DirtyMetaslabs, repr=False,
                                  compare=False)

    def new_object(self) -> int:
        number = self.next_object
        self.next_object += 1
        return number


# zfs_min_metaslabs_to_flush (module/zfs/spa_log_spacemap.c, 1 in 2.1.11 and 2.3.9): the
# metaslabs spa_flush_metaslabs() flushes a txg at least. It flushes more only when the
# log's blocks would pass their limit (spa_estimate_metaslabs_to_flush(): at least
# zfs_unflushed_log_block_min, 1000 blocks) or its memory its limit, which a lab's pool of
# a few GiB, one block of log a txg, never comes near.
MIN_METASLABS_TO_FLUSH = 1


def sync_metaslab(ms: Metaslab, txg: int, maps: PoolSpaceMaps) -> int:
    """metaslab_sync(): a metaslab with changes this txg gets a space map if it has none
    (space_map_alloc(), smp_alloc 0 until its first flush) and writes them to the txg's
    log space map; one that had nothing unflushed takes this txg as its unflushed txg
    (metaslab_unflushed_add(), or metaslab_unflushed_bump() with dirty set,
    module/zfs/metaslab.c in 2.1.11 and 2.3.9). Returns the entries this metaslab added
    to the txg's log space map."""
    if not ms.dirty:
        return 0
    ms.dirty = False
    moved = False
    if not ms.sm_object:
        ms.sm_object = maps.new_object()
        maps.metaslab_maps += 1
        moved = True
    if not ms.unflushed_dirty:
        moved = moved or ms.unflushed_txg != txg
        ms.unflushed_txg = txg
        ms.unflushed_dirty = True
    if moved:
        place = maps.by_flushed.place(ms)
        if place is not None:
            maps.by_flushed.add([(place, ms)], ms.unflushed_txg)
    return 2


def flush_metaslab(ms: Metaslab, txg: int) -> bool:
    """metaslab_flush(): the metaslab's changes kept in the log space maps are written to
    its own space map; smp_alloc catches up, and its unflushed txg is this one
    (metaslab_flush_update()). Its entries are an estimate: one for each allocated and
    each free run written. Called through flush_metaslabs() and flush_all(), which keep
    the pool's flush order (PoolSpaceMaps.by_flushed) in step with the txg it sets.
    Returns whether this was the space map's first write (its first data block)."""
    if not ms.sm_object:
        return False
    first = False
    if ms.unflushed:
        first = not ms.sm_entries
        ms.sm_entries += 2 * max(1, len(ms.free_lengths))
    ms.unflushed = False
    ms.unflushed_dirty = False
    ms.sm_alloc = ms.alloc
    ms.unflushed_txg = txg
    return first


def flush_metaslabs(metaslab_groups: list[list[Metaslab]], txg: int,
                    maps: PoolSpaceMaps) -> None:
    """spa_flush_metaslabs() (module/zfs/spa_log_spacemap.c, 2.1.11 and 2.3.9), run in a
    txg that writes, before the txg's metaslabs sync (spa_sync_iterate_to_convergence()):
    through the metaslabs that have a space map, oldest unflushed txg first (the AVL tree
    spa_metaslabs_by_flushed, by txg, vdev and metaslab: maps.by_flushed), one with
    unflushed changes is flushed and one without only takes this txg
    (metaslab_unflushed_bump(), dirty unset), until MIN_METASLABS_TO_FLUSH have been
    flushed or the next one already has this txg."""
    maps.by_flushed.ensure(metaslab_groups)
    _flush_oldest(maps, txg)


def _flush_oldest(maps: PoolSpaceMaps, txg: int) -> None:
    order = maps.by_flushed
    moved: list = []
    for _ in range(MIN_METASLABS_TO_FLUSH):
        entry = order.bump_to_dirty(txg, moved)
        if entry is None:
            break
        maps.flushed_maps += flush_metaslab(entry[1], txg)
        moved.append(entry)
    order.add(moved, txg)


def sync_txg(metaslab_groups: list[list[Metaslab]], txg: int, maps: PoolSpaceMaps,
             net_alloc: int = 0) -> int:
    """One txg syncs: in a txg that changes metaslabs, the oldest unflushed ones are
    flushed (flush_metaslabs()), then the changed metaslabs get space maps and write
    their changes to a new log space map (metaslab_sync()). Log space maps older than
    the oldest unflushed txg of any metaslab are freed (spa_cleanup_old_sm_logs()).
    Returns how many metaslabs got their first space map."""
    for vdev_id in range(len(metaslab_groups)):
        if vdev_id not in maps.unflushed_phys:
            maps.unflushed_phys[vdev_id] = maps.new_object()
    maps.by_flushed.ensure(metaslab_groups)
    changed = _dirty(metaslab_groups, maps)
    if changed:
        _flush_oldest(maps, txg)  # flush_metaslabs(), the order made above
    new_maps = _sync_changed(changed, txg, maps, net_alloc)
    _drop_old_logs(maps)
    return new_maps


def sync_pass(metaslab_groups: list[list[Metaslab]], txg: int, maps: PoolSpaceMaps) -> int:
    """A later pass of the same txg (spa_sync_iterate_to_convergence() syncs again while
    the MOS is dirty): the metaslabs the pass before changed (the blocks of new space
    maps) write their changes to the txg's log space map. Returns how many metaslabs got
    their first space map."""
    maps.by_flushed.ensure(metaslab_groups)
    return _sync_changed(_dirty(metaslab_groups, maps), txg, maps, 0)


def _dirty(metaslab_groups: list[list[Metaslab]], maps: PoolSpaceMaps) -> list[Metaslab]:
    """The metaslabs changed since their last sync, by vdev and metaslab."""
    return maps.dirty.read(metaslab_groups)




def _sync_changed(changed: list[Metaslab], txg: int, maps: PoolSpaceMaps,
                  net_alloc: int) -> int:
    entries = 0
    new_maps = 0
    for ms in changed:
        new_maps += not ms.sm_object
        entries += sync_metaslab(ms, txg, maps)
    if entries:
        if maps.logs and maps.logs[-1].txg == txg:  # the txg's log space map, one a txg
            maps.logs[-1].entries += entries
            maps.logs[-1].alloc += net_alloc
        else:
            maps.logs.append(LogSpaceMap(maps.new_object(), txg, entries, net_alloc))
    return new_maps


def flush_all(metaslab_groups: list[list[Metaslab]], txg: int, maps: PoolSpaceMaps) -> None:
    """spa_unload_log_sm_flush_all() at export: every metaslab is flushed in one last
    txg, whose own log space map is all that is left (the recordings show one). Its
    size stands in for that txg's metadata: four entries per metaslab with a space
    map, and six 4 KiB blocks (the recordings: 66 to 97 entries, 0x6000 to 0x12000)."""
    for group in metaslab_groups:
        for ms in group:
            sync_metaslab(ms, txg, maps)
            if ms.sm_object:
                maps.flushed_maps += flush_metaslab(ms, txg)
    maps.by_flushed.invalidate()
    mapped = sum(1 for group in metaslab_groups for ms in group if ms.sm_object)
    maps.logs = [LogSpaceMap(maps.new_object(), txg, 4 * mapped + 2, 6 << 12)]


def _drop_old_logs(maps: PoolSpaceMaps) -> None:
    """spa_cleanup_old_sm_logs(): the log space maps of txgs before the oldest unflushed
    txg of any metaslab with a space map are freed."""
    oldest = maps.by_flushed.oldest_txg()
    if oldest is None:
        maps.logs = maps.logs[-1:]
        return
    maps.logs = [log for log in maps.logs if log.txg >= oldest]
