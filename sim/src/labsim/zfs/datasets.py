"""``zfs create`` and ``zfs destroy`` of a filesystem: its objset's blocks and files."""

from __future__ import annotations

from labsim.zfs.mos import child_map_changed, free_deadlist, free_mos_blocks, zpl_features
from labsim.zfs.mos_dnodes import filesystem_destroyed, filesystem_made
from labsim.zfs.objset import (
    at_creation,
    child_mounted,
    child_unmounted,
    sync_objset,
    sync_task_synced,
)
from labsim.zfs.pool import Dataset, Pool
from labsim.zfs.txg import advance_txg
from labsim.zfs.write_path import remove_file


def create_dataset(pool: Pool, name: str, properties: dict[str, object]) -> Dataset:
    """zfs create: a new filesystem, whose empty objset's blocks
    (labsim.zfs.metadata_blocks.filesystem_blocks(), every copy) are allocated from the pool,
    so that the root's USED and the pool's ALLOC include it as on a real pool."""
    dataset = Dataset(name, properties=dict(properties))
    if properties.get("type") != "volume":
        dataset.active_features = zpl_features(pool)
    copies = at_creation(pool, name)
    dataset.created_metadata_copies = dataset.changed_metadata_copies = copies
    dataset.sa_layouts_copies = copies
    pool.datasets[name] = dataset
    sync_objset(pool, dataset)
    filesystem_made(pool)
    child_map_changed(pool, name)
    sync_task_synced(pool)  # dmu_objset_create() is a sync task; the mount comes after it
    if properties.get("type") != "volume":
        child_mounted(pool, name)  # `zfs create` mounts it: a directory made in its parent
    advance_txg(pool)
    return dataset


def destroy_dataset(pool: Pool, dataset: Dataset) -> None:
    """zfs destroy of a filesystem without snapshots: its files and objset are freed."""
    for name in list(dataset.files):
        remove_file(pool, dataset, name)
    for extent in dataset.objset_extents:
        pool.top(extent.vdev).release(extent.offset, extent.length)
    # dsl_destroy_head_sync_impl() (module/zfs/dsl_destroy.c, 2.1.11 and 2.3.9) frees the
    # head's deadlist (dsl_deadlist_free(): its bpobjs) and its dsl_dir's objects
    # (dsl_dir_destroy_sync(): the dir's ZAP with them). Recorded on 2.3.9
    # (tests/fixtures/real/2.3.9/probes/lab15-mos-lifecycle.txt): the zapified dir's 15K and
    # the bpobj's 3K leave the MOS at ashift 9.
    free_deadlist(pool, dataset)
    free_mos_blocks(pool, dataset.dir_blocks)
    free_mos_blocks(pool, dataset.ds_blocks)
    filesystem_destroyed(pool, clone=dataset.origin is not None)
    del pool.datasets[dataset.name]
    child_map_changed(pool, dataset.name)
    child_unmounted(pool, dataset.name)  # its mountpoint directory removed
    sync_task_synced(pool)  # then the destroy's sync task
    advance_txg(pool)
