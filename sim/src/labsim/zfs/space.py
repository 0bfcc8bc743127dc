"""Dataset space as ``zfs list`` and ``zfs get`` count it: USED, REFER, AVAIL,
logicalreferenced, and what a refreservation holds back (logicalused and compressratio:
labsim.zfs.logical_space).

The DSL counts every block's deflated allocated size (bp_get_dsize(), module/zfs/dsl_dir.c
and dsl_dataset.c); labsim sums the extents of the files and objsets that hold them.
"""

from __future__ import annotations

from collections.abc import Iterable

from labsim.zfs import metadata_blocks
from labsim.zfs.metadata_blocks import Cost
from labsim.zfs.objset import objset_blocks
from labsim.zfs.pool import Dataset, File, Part, Pool, file_parts, part_extents
from labsim.zfs.slop import slop_space
from labsim.zfs.volume_reservation import VolumeSpace


def _descendants(pool: Pool, dataset: Dataset) -> list[Dataset]:
    prefix = dataset.name + "/"
    return [d for n, d in pool.datasets.items() if n.startswith(prefix)]


def objset_cost(pool: Pool, dataset: Dataset) -> Cost:
    """The file system's or volume's own metadata (labsim.zfs.metadata_blocks): its allocated bytes
    (REFER's part) and physical bytes (logicalreferenced's part)."""
    return metadata_blocks.cost(objset_blocks(pool, dataset), pool.vdevs[0],
                                pool.version.compression_min_savings)


def mos_logical(pool: Pool) -> int:
    """The pool's own metadata (the MOS) as the root's logicalused counts it (its dsl_dir
    $MOS is a child of the root's): the physical size of one copy of each of its blocks
    (Pool.mos_physical). Where the new pool's profile does not tell MOS blocks apart, an
    estimate: a third of what the pool's own blocks take (they have three copies); the
    lab 4 recordings (2.1.11) put the root's own logicalused at about 180K, this gives
    170K."""
    if pool.mos_physical is not None:
        return pool.mos_physical
    return sum(e.length for e in pool.all_metadata()) // 3


def dataset_logical_referenced(pool: Pool, dataset: Dataset) -> int:
    """logicalreferenced: the objset's own metadata and its files' logical bytes."""
    return objset_cost(pool, dataset).physical + sum(f.logical for f in dataset.files.values())


def parts_of(files: Iterable[File]) -> dict[int, Part]:
    """The parts (pool.file_parts: runs of records and files' own blocks) of ``files``,
    each once, by identity."""
    return {id(part): part for f in files for part in file_parts(f)}


def part_used_bytes(pool: Pool, part: Part) -> int:
    """Every copy of every block of one part, deflated (bp_get_dsize())."""
    return sum(pool.top(e.vdev).deflate(e.length) for e in part_extents(part))


def file_used_bytes(pool: Pool, file: File) -> int:
    """DN_USED_BYTES of the file's dnode: every copy of every block, deflated."""
    return sum(pool.top(e.vdev).deflate(e.length) for e in file.extents)


def dataset_referenced(pool: Pool, dataset: Dataset) -> int:
    """REFER: the dataset's own objects plus its files' blocks, in deflated bytes."""
    base = objset_cost(pool, dataset).allocated
    return base + sum(file_used_bytes(pool, f) for f in dataset.files.values())


def dataset_used(pool: Pool, dataset: Dataset) -> int:
    """USED. The root dataset's dsl_dir also holds the pool's hidden $MOS, $FREE and
    $ORIGIN directories, so its USED is everything allocated in the pool (deflated:
    dsl_dir counts bp_get_dsize(), vdev_deflated_space() of each allocation). Any
    other dataset's USED is its own REFER plus its descendants'."""
    if dataset.name == pool.name:
        return max(pool.dsl_used, dataset_referenced(pool, dataset))
    return dataset_referenced(pool, dataset) + sum(
        dataset_referenced(pool, d) for d in _descendants(pool, dataset))


def dataset_available(pool: Pool, dataset: Dataset) -> int:
    """AVAIL: deflated pool space less slop less what is used (dsl_dir_space_available()
    on the root, with dsl_pool_adjustedsize() = spa_get_dspace() - slop). On RAID-Z this
    is the space left for data after parity, as estimated with 128 KiB blocks.
    Refreservations not yet filled (thick volumes) are held out of it, except the
    dataset's own, which only it may use."""
    reserved = sum(_refreservation_unfilled(pool, d) for d in pool.datasets.values())
    own = _refreservation_unfilled(pool, dataset) if dataset.name != pool.name else 0
    # spa_update_dspace() adds brt_get_dspace() (bclonesaved) to what the DSL may use,
    # so clones do not shrink AVAIL; the slop is taken from spa_rdspace, without it.
    raw = pool.dspace
    # pool.slop_space, of the dspace already summed (asked at every txg of a write).
    slop = slop_space(raw, pool.version)
    available = raw + pool.brt.saved - slop - pool.dsl_used - reserved
    return (available if available > 0 else 0) + own


def _refreservation_unfilled(pool: Pool, dataset: Dataset) -> int:
    """USEDREFRESERV of a dataset with a refreservation (labsim.zfs.zvols)."""
    if not dataset.properties.get("refreservation"):
        return 0
    return usedbyrefreservation(pool, dataset)


def unique_bytes(pool: Pool, dataset: Dataset) -> int:
    """ds_unique_bytes: what only the head holds. Without snapshots all it refers to;
    with them, labsim counts the objects born after the newest snapshot (a volume
    rewritten in place after a snapshot is not tracked block by block)."""
    if not dataset.snapshots:
        return dataset_referenced(pool, dataset)
    newest = dataset.snapshots[-1].txg
    return sum(part_used_bytes(pool, part) for part in parts_of(dataset.files.values()).values()
               if part.birth > newest)


def usedbyrefreservation(pool: Pool, dataset: Dataset) -> int:
    reservation = int(str(dataset.properties.get("refreservation", 0) or 0))
    if not reservation:
        return 0
    return VolumeSpace(reservation, 0, unique_bytes(pool, dataset)).usedbyrefreservation
