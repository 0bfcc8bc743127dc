"""Snapshots, clones, promote and rollback, and the space accounting they change.

A snapshot keeps the files its dataset had (the same File objects, so their blocks are
shared, not copied); a clone starts with its origin snapshot's files. A file's blocks are
freed when nothing holds them any more (labsim.zfs.write_path.remove_file checks that).

How much space they hold is labsim.zfs.snapshot_space's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from labsim.zfs.mos import (
    ZAPIFIED_DIR,
    activate_feature,
    add_mos_blocks,
    child_map_changed,
    free_deadlist,
    free_mos_blocks,
)
from labsim.zfs.mos_dnodes import clone_made, snapshot_made, snapshots_destroyed
from labsim.zfs.objset import child_mounted, sync_objset, sync_task_synced
from labsim.zfs.pool import Dataset, File, Pool, Snapshot
from labsim.zfs.txg import advance_txg
from labsim.zfs.write_path import free_unheld


class SnapshotError(Exception):
    """An operation zfs refuses; ``message`` is its text (without the final newline)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


Objset = Dataset | Snapshot


# ---------------------------------------------------------------- finding things


def find_snapshot(pool: Pool, name: str) -> Snapshot | None:
    dataset = pool.datasets.get(name.split("@", 1)[0])
    if dataset is None:
        return None
    return next((s for s in dataset.snapshots if s.name == name), None)


def owner(pool: Pool, snap: Snapshot) -> Dataset:
    return pool.datasets[snap.dataset]


def clones_of(pool: Pool, snap: Snapshot) -> list[Dataset]:
    """Datasets whose origin is ``snap`` (ds_next_clones_obj), by name."""
    return sorted((d for d in pool.datasets.values() if d.origin == snap.name),
                  key=lambda d: d.name)


def children_of(pool: Pool, dataset: Dataset) -> list[Dataset]:
    """Direct child datasets, by name."""
    prefix = dataset.name + "/"
    return sorted((d for n, d in pool.datasets.items()
                   if n.startswith(prefix) and "/" not in n[len(prefix):]),
                  key=lambda d: d.name)


def descendants_of(pool: Pool, dataset: Dataset) -> list[Dataset]:
    prefix = dataset.name + "/"
    return sorted((d for n, d in pool.datasets.items() if n.startswith(prefix)),
                  key=lambda d: d.name)


def origin_of(pool: Pool, dataset: Dataset) -> Snapshot | None:
    return find_snapshot(pool, dataset.origin) if dataset.origin else None


def chain(pool: Pool, dataset: Dataset) -> list[Objset]:
    """The dataset's chain: its origin (for a clone), its snapshots, then its head."""
    origin = origin_of(pool, dataset)
    return [*([origin] if origin else []), *dataset.snapshots, dataset]


# ---------------------------------------------------------------- operations


def take_snapshot(pool: Pool, dataset: Dataset, short: str, now: float = 0.0) -> Snapshot:
    """zfs snapshot: the snapshot holds the head's files as they are; all snapshots of one
    command share a txg (dsl_dataset_snapshot_sync() runs in one sync task)."""
    name = f"{dataset.name}@{short}"
    if find_snapshot(pool, name) is not None:
        raise SnapshotError(f"cannot create snapshot '{name}': dataset already exists")
    snap = Snapshot(name, pool.txg, dict(dataset.files), now,
                    created_metadata_copies=dataset.created_metadata_copies,
                    changed_metadata_copies=dataset.changed_metadata_copies,
                    sa_settled=dataset.sa_settled,
                    sa_layouts_copies=dataset.sa_layouts_copies,
                    mountpoint_dirs=tuple(dataset.mountpoint_dirs),
                    mountpoint_other_chunk=tuple(dataset.mountpoint_other_chunk),
                    root_dir_atime_writes=dataset.root_dir_atime_writes,
                    root_dir_atime_names=dataset.root_dir_atime_names,
                    log_exists=dataset.log_exists,
                    objset_block_rewrites=dataset.objset_block_rewrites)
    dataset.snapshots.append(snap)
    snapshot_made(pool)
    sync_task_synced(pool)  # a sync task
    # dsl_dataset_snapshot_sync_impl() activates the head's active per-dataset features on
    # the snapshot's dsl_dataset object too (module/zfs/dsl_dataset.c, 2.1.11 and 2.3.9).
    features: set[str] = set()
    for feature in sorted(dataset.active_features):
        activate_feature(pool, features, feature, snap.ds_blocks)
    snap.active_features = frozenset(features)
    # The snapshot's own MOS objects (its dsl_dataset, deadlist, the snapshot names entry)
    # are micro ZAPs of a few entries, embedded in their block pointers: on 2.1.11 nothing
    # more (the MOS's growth that follows a snapshot there is its space maps and history,
    # labsim.zfs.txg and labsim.zfs.history). 2.2+: the first snapshot zapifies the dsl_dir
    # to record snapshots_changed (labsim.zfs.mos.ZAPIFIED_DIR).
    if ("snapshots_changed" in pool.version.dataset_properties_added
            and not dataset.dir_zapified):
        add_mos_blocks(pool, ZAPIFIED_DIR, dataset.dir_blocks)
        dataset.dir_zapified = True
    return snap


def clone(pool: Pool, snap: Snapshot, name: str) -> Dataset:
    """zfs clone: a new dataset whose head starts as the snapshot (dsl_dataset_create_sync()
    with an origin: it shares the origin's blocks and writes only what changes)."""
    source = owner(pool, snap)
    # It starts as the origin's objset, blocks and copies alike.
    dataset = Dataset(name, files=dict(snap.files), origin=snap.name,
                      next_object=source.next_object,
                      created_metadata_copies=snap.created_metadata_copies,
                      changed_metadata_copies=snap.changed_metadata_copies,
                      sa_settled=snap.sa_settled,
                      sa_layouts_copies=snap.sa_layouts_copies,
                      mountpoint_dirs=list(snap.mountpoint_dirs),
                      mountpoint_other_chunk=list(snap.mountpoint_other_chunk),
                      root_dir_atime_writes=snap.root_dir_atime_writes,
                      root_dir_atime_names=snap.root_dir_atime_names,
                      objset_block_rewrites=snap.objset_block_rewrites)
    # dsl_dataset_create_sync() with an origin calls dsl_dataset_zero_zil() on the clone
    # (module/zfs/dsl_dataset.c, 2.1.11 and 2.3.9): its objset_phys_t starts as the
    # origin's, ZIL header included, and one that is not zero is cleared and the objset
    # block written anew, the clone's own from the start.
    zero_zil(dataset, snap.log_exists)
    clone_made(pool, origin_first_clone=not clones_of(pool, snap))
    pool.datasets[name] = dataset
    child_map_changed(pool, name)
    sync_task_synced(pool)  # a sync task, before the mount
    child_mounted(pool, name)  # mounted: its mountpoint made in its parent
    # A clone's dsl_dir is zapified to hold its livelist (dsl_dataset_create_sync() with
    # an origin and the livelist feature enabled, which every 2.x pool has: dsl_dir_zapify()
    # and DD_FIELD_LIVELIST, module/zfs/dsl_dataset.c in 2.1.11 and 2.3.9), but the entry
    # is one uint64, which a micro ZAP holds (mzap_create_impl(); only an entry of another
    # size, as snapshots_changed's two words, upgrades it to a fat ZAP, zap_micro.c): the
    # zapified dir stays a micro ZAP like its other new MOS objects (dsl_dataset,
    # deadlist, livelist, the origin's next-clones and dir-clones maps), embedded in its
    # block pointer. Recorded on 2.3.9 at ashift 9
    # (tests/fixtures/real/2.3.9/probes/lab15-mos-lifecycle.txt): the clone's dir is a
    # "zap" of dsize 0, and the MOS grew by 6K (its dnode blocks and a bpobj), not 15K more.
    # The origin's active per-dataset features are activated on its dsl_dataset
    # (dsl_dataset_create_sync_dd(), same file).
    for feature in sorted(snap.active_features):
        activate_feature(pool, dataset.active_features, feature, dataset.ds_blocks)
    advance_txg(pool)
    return dataset


def zero_zil(dataset: Dataset, header_not_zero: bool) -> None:
    """dsl_dataset_zero_zil(): a ZIL header that is not zero is cleared, and the objset
    block written again to hold the cleared header (dsl_dataset_sync(), which rewrites
    the objset_phys_t alone: no dnode is dirty)."""
    dataset.log_exists = False
    if header_not_zero:
        dataset.objset_block_rewrites += 1


def _free_unheld(pool: Pool, files: Iterable[File]) -> None:
    free_unheld(pool, list(files))  # cloned blocks only lose a reference


def destroy_snapshots(pool: Pool, snaps: list[Snapshot]) -> None:
    """zfs destroy of snapshots without clones (dsl_destroy_snapshot_sync()): blocks no
    other snapshot, head or clone holds are freed."""
    for snap in snaps:
        if clones_of(pool, snap):
            raise SnapshotError(f"cannot destroy '{snap.name}': snapshot has dependent clones")
    freed: list[File] = []
    for snap in snaps:
        owner(pool, snap).snapshots.remove(snap)
        owner(pool, snap).destroyed_snapshots.append(snap)
        freed.extend(snap.files.values())
        free_mos_blocks(pool, snap.ds_blocks)  # its dsl_dataset object
    snapshots_destroyed(pool, len(snaps))
    _free_unheld(pool, freed)
    sync_task_synced(pool)  # a sync task
    advance_txg(pool)


def rename_snapshot(pool: Pool, snap: Snapshot, dataset: Dataset) -> None:
    """Move a snapshot to ``dataset`` (promote), renaming it and its clones' origin."""
    new = f"{dataset.name}@{snap.short}"
    for other in pool.datasets.values():
        if other.origin == snap.name:
            other.origin = new
    snap.name = new


def rename_snapshots(pool: Pool, dataset: Dataset, old: str, new: str,
                     recursive: bool) -> list[Snapshot]:
    """zfs rename [-r] FS@OLD FS@NEW: dsl_dataset_rename_snapshot() (module/zfs/dsl_dataset.c,
    2.1.11 and 2.3.9), one sync task. It checks every dataset first (with -r the file system
    and its descendants; one without FS@OLD is passed over) and renames only if none
    already has a snapshot NEW; clones' origins follow. Returns the snapshots renamed (by
    their new names); raises SnapshotError with the message zfs prints otherwise."""
    heads = [dataset, *(descendants_of(pool, dataset) if recursive else [])]
    renamed = [s for ds in heads for s in ds.snapshots if s.short == old]
    for ds in heads:
        if any(s.short == old for s in ds.snapshots) and \
                find_snapshot(pool, f"{ds.name}@{new}") is not None:
            detail = ("a child dataset already has a snapshot with the new name"
                      if recursive else "dataset already exists")
            raise SnapshotError(f"cannot rename '{dataset.name}@{old}': {detail}")
    for snapshot in renamed:
        head = snapshot.name.split("@")[0]
        new_name = f"{head}@{new}"
        for other in pool.datasets.values():
            if other.origin == snapshot.name:
                other.origin = new_name
        snapshot.name = new_name
    sync_task_synced(pool)  # a sync task (dsl_sync_task())
    advance_txg(pool)
    return renamed


def promote(pool: Pool, clone_ds: Dataset) -> None:
    """zfs promote CLONE (dsl_dataset_promote_sync()): the origin snapshot and every
    snapshot before it move from the origin's dataset to the clone, which takes over the
    origin's own origin; the old parent becomes a clone of the moved origin snapshot."""
    origin = origin_of(pool, clone_ds)
    if origin is None:
        raise SnapshotError(f"cannot promote '{clone_ds.name}': not a cloned filesystem")
    parent = owner(pool, origin)
    cut = parent.snapshots.index(origin) + 1
    moving = parent.snapshots[:cut]
    # dsl_dataset_promote_check() (module/zfs/dsl_dataset.c) refuses a moving snapshot
    # whose name the clone has (EEXIST); it walks them newest first (snaplist_make() follows
    # ds_prev_snap_obj) and zfs_promote() (lib/libzfs/libzfs_dataset.c, 2.1.11 and 2.3.9)
    # names the first found.
    taken = {s.short for s in clone_ds.snapshots}
    for snap in reversed(moving):
        if snap.short in taken:
            raise SnapshotError(f"cannot promote '{clone_ds.name}': conflicting snapshot "
                                f"'{snap.short}' from parent '{origin.name}'")
    parent.snapshots = parent.snapshots[cut:]
    clone_ds.origin = parent.origin
    for snap in moving:
        rename_snapshot(pool, snap, clone_ds)
    clone_ds.snapshots = [*moving, *clone_ds.snapshots]
    older = [g for g in parent.destroyed_snapshots if g.txg <= origin.txg]
    parent.destroyed_snapshots = [g for g in parent.destroyed_snapshots if g not in older]
    clone_ds.destroyed_snapshots = [*older, *clone_ds.destroyed_snapshots]
    parent.origin = origin.name
    # The blocks labsim allocated for the first objset's metadata are charged to whichever
    # dataset is not a clone (what a clone's head rewrote is labsim.zfs.held_metadata's).
    clone_ds.objset_extents, parent.objset_extents = (parent.objset_extents,
                                                      clone_ds.objset_extents)
    # dsl_dataset_promote_sync() (module/zfs/dsl_dataset.c, 2.1.11 and 2.3.9) moves entries
    # between micro ZAPs (snapshot names, dir clones) and deadlists: no new MOS block of its
    # own. Recorded on 2.3.9 (lab15-mos-lifecycle.txt): 4.5K at ashift 9 (the history's
    # record and a bpobj's block of the deadlists, not modelled), nothing at ashift 12.
    sync_task_synced(pool)  # a sync task
    advance_txg(pool)


def newer_snapshots(dataset: Dataset, snap: Snapshot) -> list[Snapshot]:
    return dataset.snapshots[dataset.snapshots.index(snap) + 1:]


def rollback(pool: Pool, dataset: Dataset, snap: Snapshot) -> None:
    """zfs rollback to the latest snapshot (the caller destroyed newer ones).

    dsl_dataset_rollback_sync() (module/zfs/dsl_dataset.c, zfs-2.3.9 and zfs-2.1.11 alike)
    creates a clone of the snapshot ("%rollback"), swaps it with the head
    (dsl_dataset_clone_swap_sync_impl()) and destroys the clone, which now holds the old
    head. The new head's block pointer is the clone's, a copy of the snapshot's: the head
    becomes the snapshot's objset, files and metadata blocks alike, and rewrites nothing
    (dsl_dataset_zero_zil() writes only if the objset's ZIL header is not zero, and a
    snapshot's is: zil_suspend() ran before it was taken). The swap resets the snapshot's
    ds_unique_bytes to the space of the fresh clone's deadlist born after the snapshot's
    predecessor: the deadlist is empty, so the snapshot's USED is 0 until the head
    changes again, and what only the old head held is freed with the clone
    (dsl_destroy_head_sync_impl())."""
    dropped = list(dataset.files.values())
    dataset.files = dict(snap.files)
    # Rolled back suspended, not unmounted (zfs_ioc_rollback()): its children stay
    # mounted, but the directories their mountpoints were made in after the snapshot are
    # gone from it.
    dataset.mountpoint_dirs = list(snap.mountpoint_dirs)
    dataset.mountpoint_other_chunk = list(snap.mountpoint_other_chunk)
    dataset.mkdirs_since_open = 0  # the head's objset is opened anew (objset_reopened())
    dataset.created_metadata_copies = snap.created_metadata_copies
    dataset.changed_metadata_copies = snap.changed_metadata_copies
    dataset.sa_settled = snap.sa_settled
    dataset.sa_layouts_copies = snap.sa_layouts_copies
    dataset.root_dir_atime_writes = snap.root_dir_atime_writes
    dataset.root_dir_atime_names = snap.root_dir_atime_names
    # dsl_dataset_rollback_sync() calls dsl_dataset_zero_zil() on the head once it holds
    # the snapshot's objset: the snapshot's ZIL header, when not zero, is cleared and the
    # objset block rewritten, which the snapshot then holds alone (generated seeds 1 and
    # 64: the snapshot of an unchanged head keeps one objset block after the rollback).
    dataset.objset_block_rewrites = snap.objset_block_rewrites
    zero_zil(dataset, snap.log_exists)
    sync_task_synced(pool)
    # The new head is a copy of the snapshot: what the old one rewrote is history.
    dataset.destroyed_snapshots = [s for s in dataset.destroyed_snapshots if s.txg <= snap.txg]
    dataset.removed_files = [(f, txg) for f, txg in dataset.removed_files if txg <= snap.txg]
    _free_unheld(pool, dropped)
    sync_objset(pool, dataset)  # what is allocated for its objset follows the new shape
    # The old head's deadlist goes with the clone destroyed (dsl_destroy_head_sync_impl()):
    # the bpobj its entry for the snapshot got from changes since is freed; the new head's
    # entry is empty (dsl_deadlist_clone() makes the entries with the empty bpobj).
    free_deadlist(pool, dataset, snap.txg)
    advance_txg(pool)


def snapshot_spec(dataset: Dataset, spec: str) -> list[Snapshot] | None:
    """The snapshots ``fs@spec`` names (zfs_iter_snapspec(), lib/libzfs/libzfs_iter.c):
    a comma-separated list of names and ranges "a%c", "%c" (from the first), "a%" (to
    the last). Names that do not exist are skipped; a range whose end does not exist
    gives None (ENOENT)."""
    by_short: Mapping[str, int] = {s.short: i for i, s in enumerate(dataset.snapshots)}
    chosen: set[int] = set()
    for item in spec.split(","):
        if "%" in item:
            start, _, end = item.partition("%")
            low = by_short.get(start, -1) if start else 0
            high = by_short.get(end, -1) if end else len(dataset.snapshots) - 1
            if low < 0 or high < 0:
                return None
            chosen.update(range(low, high + 1))
        elif item in by_short:
            chosen.add(by_short[item])
    return [dataset.snapshots[i] for i in sorted(chosen)]
