"""``zfs create`` and ``zfs destroy`` of a filesystem: its objset's blocks and files."""

from __future__ import annotations

from labsim.zfs.metadata_blocks import EMPTY_FILESYSTEM, copy_psizes
from labsim.zfs.pool import Dataset, Extent, Pool
from labsim.zfs.txg import advance_txg
from labsim.zfs.write_path import remove_file


def create_dataset(pool: Pool, name: str, properties: dict[str, object]) -> Dataset:
    """zfs create: a new filesystem, whose empty objset's blocks
    (labsim.zfs.metadata_blocks.EMPTY_FILESYSTEM, every copy) are allocated from the pool,
    so that the root's USED and the pool's ALLOC include it as on a real pool."""
    dataset = Dataset(name, properties=dict(properties))
    pool.datasets[name] = dataset
    vdev = min(pool.vdevs, key=lambda v: -v.free)
    for psize in copy_psizes(EMPTY_FILESYSTEM, vdev.ashift, pool.version.compression_min_savings):
        asize = vdev.psize_to_asize(psize)
        if vdev.free < asize:
            break
        for offset, length in vdev.take(asize):
            dataset.objset_extents.append(Extent(vdev.id, offset, length))
    advance_txg(pool)
    return dataset


def destroy_dataset(pool: Pool, dataset: Dataset) -> None:
    """zfs destroy of a filesystem without snapshots: its files and objset are freed."""
    for name in list(dataset.files):
        remove_file(pool, dataset, name)
    for extent in dataset.objset_extents:
        pool.vdevs[extent.vdev].release(extent.offset, extent.length)
    del pool.datasets[dataset.name]
    advance_txg(pool)
