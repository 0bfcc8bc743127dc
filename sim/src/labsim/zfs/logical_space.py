"""logicalused and compressratio: what a dsl_dir is charged for, its blocks' logical and
physical sizes (dd_uncompressed_bytes and dd_compressed_bytes, dsl_dir_stats() in
module/zfs/dsl_dir.c, 2.1.11 and 2.3.9).

dsl_dataset_block_born() (module/zfs/dsl_dataset.c) adds a block to its dataset's dir
when it is written: BP_GET_UCSIZE() to the uncompressed bytes (a data block's logical
size, a metadata block's physical size) and BP_GET_PSIZE() to the compressed ones, one
copy each. dsl_dataset_block_kill() takes a block off again only when no snapshot holds
it (born after the newest snapshot); otherwise it moves to the snapshot's deadlist and
stays in the dir. So a dir holds its head's blocks, the old versions of blocks its
snapshots keep (files and metadata alike), and those of its descendants; a clone's blocks
still shared with its origin are the origin's dir's.
"""

from __future__ import annotations

from labsim.zfs.pool import Dataset, Part, Pool, part_logical
from labsim.zfs.snapshot_space import dir_metadata_physical
from labsim.zfs.snapshots import descendants_of, find_snapshot
from labsim.zfs.space import mos_logical, parts_of


def dir_files(pool: Pool, dataset: Dataset) -> list[Part]:
    """The blocks charged to the dataset's dsl_dir, as parts of files: those its head or
    any of its snapshots holds (dsl_dataset_block_born() adds a block to its dir; a block
    killed in the head while a snapshot holds it stays, dsl_dataset_block_kill()), less
    a clone's blocks still shared with its origin snapshot (charged to the origin's
    dir)."""
    held = parts_of(dataset.files.values())
    for snap in dataset.snapshots:
        held.update(parts_of(snap.files.values()))
    origin = find_snapshot(pool, dataset.origin) if dataset.origin else None
    if origin is not None:
        for key in parts_of(origin.files.values()):
            held.pop(key, None)
    return list(held.values())


def _dir_bytes(pool: Pool, dataset: Dataset, logical: bool) -> int:
    """dd_uncompressed_bytes (``logical``) or dd_compressed_bytes of the dataset and its
    descendants, and for the root the MOS too: the metadata and the files each dir is
    charged for. Metadata counts its physical size in both, so its part is the same in
    each (labsim.zfs.snapshot_space.dir_metadata_physical(): an unchanged clone shares its
    origin's objset blocks and is charged none of them, recorded on 2.3.9: logicalused
    0)."""
    total = 0
    for d in [dataset, *descendants_of(pool, dataset)]:
        total += dir_metadata_physical(pool, d)
        total += sum(part_logical(f)[0 if logical else 1] for f in dir_files(pool, d))
    if dataset.name == pool.name:
        total += mos_logical(pool)
    return total


def dataset_logicalused(pool: Pool, dataset: Dataset) -> int:
    """logicalused (dd_uncompressed_bytes): the dataset, its snapshots and its descendants,
    and for the root the MOS too."""
    return _dir_bytes(pool, dataset, logical=True)


def _compressed_bytes(pool: Pool, dataset: Dataset) -> int:
    """dd_compressed_bytes: physical size of one copy of every block."""
    return _dir_bytes(pool, dataset, logical=False)


def dataset_compressratio(pool: Pool, dataset: Dataset) -> float:
    """compressratio: dd_uncompressed_bytes * 100 / dd_compressed_bytes in integer
    arithmetic (dsl_dir_stats() in module/zfs/dsl_dir.c), so 1.9666 is printed 1.96:
    the ratio is truncated to two decimals, not rounded."""
    compressed = _compressed_bytes(pool, dataset)
    if not compressed:
        return 1.0
    return (dataset_logicalused(pool, dataset) * 100 // compressed) / 100
