"""Pools, top-level vdevs, datasets and files, and the operations on them.

State is plain dataclasses; operations are functions that take the state they change
as an argument. Nothing is global, so any number of pools (and sessions) coexist.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.zfs import records
from labsim.zfs.allocator import GroupState, Rotor
from labsim.zfs.errors import DeviceTooSmall, NoSpace
from labsim.zfs.labels import SPA_MINDEVSIZE, leaf_asize
from labsim.zfs.metaslab import Metaslab, metaslab_shift
from labsim.zfs.slop import slop_space
from labsim.zfs.versions import KiB, ZfsVersion

# Share of allocations made while every vdev's queue is full, for a writer that streams
# as fast as it can (dd). Only used by versions with the allocation throttle.
# Calibrated on real OpenZFS 2.1.11 in the lab VM (tests/fixtures/real/2.1.11): with file
# vdevs under software emulation, values from 0.65 to 0.8 reproduce the recordings of lab 1
# within 5 % per vdev; 0.6 and 0.85 do not. Other machines and disks may well differ.
STREAMING_THROTTLE_PRESSURE = 0.75

# dmu_tx reservations assume the worst-case allocation (spa_asize_inflation = 24 times
# the logical size), so a write fails with ENOSPC this close to the end of free space.
SPA_ASIZE_INFLATION = 24


@dataclass
class Leaf:
    path: str
    psize: int


@dataclass
class TopVdev:
    """A top-level vdev: one metaslab group. Only single-device vdevs so far."""

    id: int
    leaves: list[Leaf]
    ashift: int
    ms_shift: int
    metaslabs: list[Metaslab]
    kind: str = "file"
    speed: float = 1.0
    first_free_ms: int = 0  # lowest metaslab that may have free space
    free: int = -1  # kept equal to the sum of the metaslabs' free space

    def __post_init__(self) -> None:
        if self.free < 0:
            self.free = sum(m.free for m in self.metaslabs)

    @property
    def name(self) -> str:
        return self.leaves[0].path if len(self.leaves) == 1 else f"{self.kind}-{self.id}"

    @property
    def space(self) -> int:
        return len(self.metaslabs) << self.ms_shift

    @property
    def alloc(self) -> int:
        return self.space - self.free

    @property
    def fragmentation(self) -> int:
        """Unweighted mean over metaslabs (metaslab_group_fragmentation)."""
        if not self.metaslabs:
            return 0
        return sum(m.fragmentation(self.ashift) for m in self.metaslabs) // len(self.metaslabs)

    def take(self, nbytes: int) -> list[tuple[int, int]]:
        """Allocate ``nbytes`` (the caller checked they fit) from the lowest metaslabs."""
        pieces: list[tuple[int, int]] = []
        self.free -= nbytes
        i = self.first_free_ms
        while nbytes > 0:
            ms = self.metaslabs[i]
            if ms.free:
                grab = min(ms.free, nbytes)
                pieces.extend(ms.allocate(grab))
                nbytes -= grab
            if ms.free == 0 and i == self.first_free_ms:
                self.first_free_ms = i + 1
            i += 1
        return pieces

    def release(self, offset: int, length: int) -> None:
        while length > 0:
            index = offset >> self.ms_shift
            ms = self.metaslabs[index]
            piece = min(length, ms.start + ms.size - offset)
            ms.release(offset, piece)
            self.free += piece
            self.first_free_ms = min(self.first_free_ms, index)
            offset += piece
            length -= piece


@dataclass
class Extent:
    vdev: int
    offset: int
    length: int


@dataclass
class File:
    name: str
    size: int = 0
    mtime: float = 0.0
    extents: list[Extent] = field(default_factory=list)

    @property
    def allocated(self) -> int:
        return sum(e.length for e in self.extents)


DATASET_DEFAULTS = {"compression": None, "recordsize": 128 * KiB}


@dataclass
class Dataset:
    name: str
    properties: dict[str, object] = field(default_factory=dict)  # locally set values
    files: dict[str, File] = field(default_factory=dict)


@dataclass
class Pool:
    name: str
    version: ZfsVersion
    vdevs: list[TopVdev]
    datasets: dict[str, Dataset]
    rotor: Rotor = field(default_factory=Rotor)
    txg: int = 4

    @property
    def space(self) -> int:
        return sum(v.space for v in self.vdevs)

    @property
    def alloc(self) -> int:
        return sum(v.alloc for v in self.vdevs)

    @property
    def free(self) -> int:
        return self.space - self.alloc

    @property
    def fragmentation(self) -> int:
        """Space-weighted mean of the vdevs' fragmentation (metaslab_class_fragmentation)."""
        space = self.space
        if not space:
            return 0
        return sum(v.fragmentation * v.space for v in self.vdevs) // space

    @property
    def capacity(self) -> int:
        """CAP: percent allocated, rounded down as zpool prints it."""
        return self.alloc * 100 // self.space if self.space else 0

    @property
    def slop_space(self) -> int:
        return slop_space(self.space, self.version)

    @property
    def root(self) -> Dataset:
        return self.datasets[self.name]


def property_value(pool: Pool, dataset: Dataset, name: str) -> tuple[object, str]:
    """A dataset property and its source ("local" or "default")."""
    if name in dataset.properties:
        return dataset.properties[name], "local"
    if name == "compression":
        return pool.version.default_compression, "default"
    return DATASET_DEFAULTS[name], "default"


def dataset_referenced(pool: Pool, dataset: Dataset) -> int:
    """REFER: the dataset's own objects plus its files' blocks."""
    ashift = max(v.ashift for v in pool.vdevs)
    base = max(24 * KiB, 24 << ashift)  # an empty filesystem's objset; calibrated in VM
    return base + sum(f.allocated for f in dataset.files.values())


def dataset_used(pool: Pool, dataset: Dataset) -> int:
    """USED. The root dataset's dsl_dir also holds the pool's hidden $MOS, $FREE and
    $ORIGIN directories, so its USED is everything allocated in the pool."""
    if dataset.name == pool.name:
        return max(pool.alloc, dataset_referenced(pool, dataset))
    return dataset_referenced(pool, dataset)


def dataset_available(pool: Pool, dataset: Dataset) -> int:
    """AVAIL: pool space less slop less what is used (dsl_dir available space)."""
    return max(0, pool.space - pool.slop_space - pool.alloc)


# ---------------------------------------------------------------- pool lifecycle


def build_vdev(vdev_id: int, path: str, psize: int, ashift: int, version: ZfsVersion) -> TopVdev:
    if psize < SPA_MINDEVSIZE:
        raise DeviceTooSmall(path)
    asize = leaf_asize(psize)
    shift = metaslab_shift(asize, version)
    count = asize >> shift
    metaslabs = [Metaslab.empty(i << shift, 1 << shift) for i in range(count)]
    return TopVdev(id=vdev_id, leaves=[Leaf(path, psize)], ashift=ashift, ms_shift=shift,
                   metaslabs=metaslabs)


def create_pool(
    name: str, devices: list[tuple[str, int]], version: ZfsVersion, ashift: int = 9
) -> Pool:
    """A new pool striped over single-device vdevs, each (path, size in bytes)."""
    vdevs = [build_vdev(i, path, size, ashift, version) for i, (path, size) in enumerate(devices)]
    pool = Pool(name=name, version=version, vdevs=vdevs, datasets={name: Dataset(name)})
    for vdev in vdevs:
        vdev.take(version.create_alloc_per_vdev)
    return pool


def add_vdevs(pool: Pool, devices: list[tuple[str, int]], ashift: int = 9) -> None:
    start = len(pool.vdevs)
    new = [build_vdev(start + i, path, size, ashift, pool.version)
           for i, (path, size) in enumerate(devices)]
    for vdev in new:
        vdev.take(pool.version.create_alloc_per_vdev // 2)
    pool.vdevs.extend(new)


# ---------------------------------------------------------------- file data


def write_file(
    pool: Pool,
    dataset: Dataset,
    name: str,
    nbytes: int,
    content: str,
    pressure: float = STREAMING_THROTTLE_PRESSURE,
) -> int:
    """Create (or replace) ``name`` with ``nbytes`` of "zero" or "random" content.

    Data is placed a transaction group at a time. Returns the bytes written; raises
    NoSpace (carrying the bytes that did fit) when the pool runs out of room.
    """
    if name in dataset.files:
        remove_file(pool, dataset, name)
    recordsize = int(property_value(pool, dataset, "recordsize")[0])
    compression = str(property_value(pool, dataset, "compression")[0])
    layout = records.file_layout(nbytes, recordsize)
    psize = records.physical_size(layout.block_size, content, compression)
    file = File(name)
    dataset.files[name] = file
    if layout.count == 0:
        return 0
    if psize == 0:  # all holes
        file.size = nbytes
        return nbytes

    if not pool.version.allocation_throttle:
        pressure = 0.0
    max_ashift = max(v.ashift for v in pool.vdevs)
    nominal_asize = records.allocated_size(psize, max_ashift)
    # One txg at a time keeps the bias exact; on big pools a step of 1/1024 of the pool
    # moves every printed figure by less than its last digit, and is much faster.
    step = max(pool.version.txg_bytes, pool.space >> 10)
    per_txg = max(1, step // layout.block_size)
    reserve = SPA_ASIZE_INFLATION * layout.block_size
    written_blocks = 0
    short = False
    while written_blocks < layout.count:
        want = min(per_txg, layout.count - written_blocks)
        # The write must leave room for its indirect blocks too (they are allocated last).
        allowed = (dataset_available(pool, dataset) - reserve
                   - records.indirect_allocation(written_blocks + want, max_ashift))
        fit = max(0, allowed // nominal_asize)
        if fit < want:
            want, short = fit, True
        if want == 0:
            break
        groups = [GroupState(free=v.free, speed=v.speed) for v in pool.vdevs]
        counts = pool.rotor.distribute(groups, want, pool.version.metaslab_aliquot,
                                       nominal_asize, pressure)
        for vdev, count in zip(pool.vdevs, counts, strict=True):
            if count:
                asize = records.allocated_size(psize, vdev.ashift)
                count = min(count, vdev.free // asize)
                for offset, length in vdev.take(count * asize):
                    file.extents.append(Extent(vdev.id, offset, length))
                written_blocks += count
        pool.txg += 1
        if short or sum(counts) < want:
            short = True
            break
    file.size = min(nbytes, written_blocks * layout.block_size)
    _allocate_indirects(pool, file, written_blocks)
    if short and file.size < nbytes:
        raise NoSpace(file.size)
    return file.size


def _allocate_indirects(pool: Pool, file: File, data_blocks: int) -> None:
    """Level-1 indirect blocks, two copies on different vdevs where possible."""
    for pointers in records.indirect_blocks(data_blocks):
        psize = records.indirect_psize(pointers)
        targets = sorted(pool.vdevs, key=lambda v: -v.free)[: records.METADATA_COPIES]
        for vdev in targets:
            asize = records.allocated_size(psize, vdev.ashift)
            if vdev.free >= asize:
                for offset, length in vdev.take(asize):
                    file.extents.append(Extent(vdev.id, offset, length))


def remove_file(pool: Pool, dataset: Dataset, name: str) -> None:
    file = dataset.files.pop(name)
    for extent in file.extents:
        pool.vdevs[extent.vdev].release(extent.offset, extent.length)
    pool.txg += 1
