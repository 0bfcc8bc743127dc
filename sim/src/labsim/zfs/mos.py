"""The pool's own metadata that several operations share: objset ids and new MOS blocks.

The MOS (meta object set) holds the pool's datasets, their directories, deadlists and
snapshot names; creating a snapshot, a clone or a volume adds objects to it.
"""

from __future__ import annotations

from labsim.zfs.pool import Dataset, Extent, Pool


def objset_id(pool: Pool, dataset: Dataset) -> int:
    """The dataset's objset id, one of the inputs of the allocator hash. A new 2.1
    pool's root dataset is object 54 of the MOS; labsim numbers the others after it
    (real numbers depend on what else the MOS holds)."""
    return 54 + 3 * list(pool.datasets).index(dataset.name)


def grow_mos(pool: Pool, nbytes: int) -> None:
    """Allocate ``nbytes`` of new MOS blocks (one-sector blocks, on the emptiest vdev)."""
    vdev = max(pool.vdevs, key=lambda v: v.free)
    sector = 1 << vdev.ashift
    for _ in range(nbytes // sector):
        asize = vdev.psize_to_asize(sector)
        if vdev.free < asize:
            return
        for offset, length in vdev.take(asize):
            pool.metadata.append(Extent(vdev.id, offset, length))
        if pool.mos_physical is not None:  # a third: each MOS block has three copies
            pool.mos_physical += sector // 3
