"""``zfs create`` and ``zfs destroy`` of a filesystem: its objset's blocks and files."""

from __future__ import annotations

from labsim.zfs.objset import at_creation, objset_changed, sync_objset
from labsim.zfs.pool import Dataset, Pool
from labsim.zfs.txg import advance_txg
from labsim.zfs.write_path import remove_file


def create_dataset(pool: Pool, name: str, properties: dict[str, object]) -> Dataset:
    """zfs create: a new filesystem, whose empty objset's blocks
    (labsim.zfs.metadata_blocks.filesystem_blocks(), every copy) are allocated from the pool,
    so that the root's USED and the pool's ALLOC include it as on a real pool."""
    dataset = Dataset(name, properties=dict(properties))
    copies = at_creation(pool, name)
    dataset.created_metadata_copies = dataset.changed_metadata_copies = copies
    pool.datasets[name] = dataset
    sync_objset(pool, dataset)
    parent = pool.datasets.get(name.rsplit("/", 1)[0])
    if parent is not None and properties.get("type") != "volume":
        objset_changed(pool, parent)  # `zfs create` mounts it: a directory made in its parent
    advance_txg(pool)
    return dataset


def destroy_dataset(pool: Pool, dataset: Dataset) -> None:
    """zfs destroy of a filesystem without snapshots: its files and objset are freed."""
    for name in list(dataset.files):
        remove_file(pool, dataset, name)
    for extent in dataset.objset_extents:
        pool.vdevs[extent.vdev].release(extent.offset, extent.length)
    del pool.datasets[dataset.name]
    parent = pool.datasets.get(dataset.name.rsplit("/", 1)[0])
    if parent is not None:
        objset_changed(pool, parent)  # its mountpoint directory removed
    advance_txg(pool)
