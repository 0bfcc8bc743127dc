"""Pools, top-level vdevs, datasets and files, and the operations on them.

State is plain dataclasses; operations are functions that take the state they change
as an argument. Nothing is global, so any number of pools (and sessions) coexist.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labsim.zfs import bclone, raidz_expansion, records, spacemaps
from labsim.zfs.allocator import GroupState, Rotor, group_allocatable
from labsim.zfs.compression import DataPattern
from labsim.zfs.errors import DeviceTooSmall, NoSpace
from labsim.zfs.labels import SPA_MINDEVSIZE, VDEV_LABEL_SIZE
from labsim.zfs.layouts import (
    MIRROR,
    RAIDZ,
    SINGLE,
    Layout,
    deflate_ratio,
    deflated,
    psize_to_asize,
    top_level_asize,
)
from labsim.zfs.metaslab import (
    GroupAllocators,
    Metaslab,
    allocator_for,
    group_allocate,
    group_fragmentation,
    metaslab_shift,
)
from labsim.zfs.slop import slop_space
from labsim.zfs.versions import (
    LAB_VM_CPUS,
    METASLAB_RULES_2_1,
    AliquotScaling,
    KiB,
    MetaslabRules,
    ZfsVersion,
    allocator_count,
)

if TYPE_CHECKING:
    from labsim.zfs.snapshots import Snapshot

# A mirror's write is done when its slowest child is (vdev_mirror_io_done() waits for
# every child), so under the allocation throttle, which counts a top-level vdev's
# writes in flight until they complete, a 2-way mirror takes fewer blocks than a single
# device of the same speed. Calibrated on three real 2.1.11 recordings of lab 2 (a single
# file next to a 2-way mirror of files, software emulation): the single device took 50 %,
# 52 % and 55 % of a 48 MiB copy; a relative speed of 0.9 per extra child gives 52 %.
MIRROR_CHILD_SPEED = 0.9

# dmu_tx reservations assume the worst-case allocation (spa_asize_inflation = 24 times
# the logical size), so a write fails with ENOSPC this close to the end of free space.
SPA_ASIZE_INFLATION = 24


@dataclass
class Leaf:
    path: str
    psize: int  # the file's size in bytes
    # "ONLINE", or "OFFLINE" after zpool offline (vdev_offline(), module/zfs/vdev.c).
    state: str = "ONLINE"
    # vs_read_errors, vs_write_errors, vs_checksum_errors: the READ WRITE CKSUM columns of
    # zpool status, until zpool clear (vdev_clear(), module/zfs/vdev.c) resets them.
    read_errors: int = 0
    write_errors: int = 0
    cksum_errors: int = 0
    # Byte ranges [start, end) of the leaf that were overwritten behind ZFS's back (dd
    # onto the backing file of an imported pool). Reads of blocks there fail their
    # checksum until a scrub or resilver rewrites them (labsim.zfs.scan).
    damaged: list[tuple[int, int]] = field(default_factory=list)
    # The pool's allocated bytes when the leaf went offline: what was written while it
    # was away is what a resilver copies when it comes back (the leaf's DTL).
    offline_alloc: int = 0

    @property
    def label_aligned_size(self) -> int:
        """vdev_psize: the size vdev_open() keeps, aligned down to a whole label; what
        ``zpool list -v`` prints as a leaf's SIZE (vs_pspace)."""
        return self.psize - self.psize % VDEV_LABEL_SIZE


@dataclass(frozen=True)
class VdevSpec:
    """One top-level vdev as ``zpool create``/``add`` give it: a layout and its leaves,
    each (path, size in bytes)."""

    layout: Layout
    devices: tuple[tuple[str, int], ...]


def single(path: str, size: int) -> VdevSpec:
    return VdevSpec(Layout(), ((path, size),))


def mirror(*devices: tuple[str, int]) -> VdevSpec:
    return VdevSpec(Layout("mirror", len(devices)), tuple(devices))


def raidz(nparity: int, *devices: tuple[str, int]) -> VdevSpec:
    return VdevSpec(Layout(RAIDZ, len(devices), nparity), tuple(devices))


@dataclass
class TopVdev:
    """A top-level vdev: one metaslab group, over one leaf, a mirror or a RAID-Z group."""

    id: int
    leaves: list[Leaf]
    ashift: int
    ms_shift: int
    metaslabs: list[Metaslab]
    layout: Layout = field(default_factory=Layout)
    speed: float = 1.0
    # Each allocator's active metaslabs on this vdev (metaslab_group_allocator_t).
    allocators: GroupAllocators = field(default_factory=GroupAllocators)
    # The release's rules for choosing metaslabs and computing FRAG.
    rules: MetaslabRules = METASLAB_RULES_2_1
    free: int = -1  # kept equal to the sum of the metaslabs' free space
    deflate_ratio: int = 0  # vdev_deflate_ratio, set from the layout when 0
    # A RAID-Z vdev that has been expanded: its blocks' width by birth txg
    # (labsim.zfs.raidz_expansion); None for every other vdev.
    geometry: raidz_expansion.Geometry | None = None
    # Write I/Os and bytes the vdev has done since the pool was imported, as far as
    # labsim counts them (file data blocks, one I/O each, and intent-log blocks):
    # zpool iostat's operations and bandwidth. Real vdevs aggregate neighbouring
    # writes and also write metadata, so real counts differ; the lab compares only
    # which vdevs wrote.
    write_ops: int = 0
    write_bytes: int = 0

    def __post_init__(self) -> None:
        if self.free < 0:
            self.free = sum(m.free for m in self.metaslabs)
        if not self.deflate_ratio:
            self.deflate_ratio = deflate_ratio(self.layout, self.ashift)

    @property
    def kind(self) -> str:
        return self.layout.kind

    @property
    def name(self) -> str:
        """The name zpool status and (2.1.3 and later) zpool list -v print: the leaf's
        path, or the type with the vdev's id, "mirror-0", "raidz2-1" (VDEV_NAME_TYPE_ID
        in zpool_vdev_name(), lib/libzfs/libzfs_pool.c)."""
        if self.layout.kind == SINGLE:
            return self.leaves[0].path
        return f"{self.layout.type_name}-{self.id}"

    def psize_to_asize(self, psize: int) -> int:
        """What a block allocated now costs: after a RAID-Z expansion, at the width in
        force in the open txg (vdev_raidz_asize() with the block's birth txg)."""
        if self.geometry is not None:
            return raidz_expansion.block_asize(psize, self.ashift, self.layout.nparity,
                                               self.geometry, self.geometry.txg)
        return psize_to_asize(self.layout, psize, self.ashift)

    @property
    def write_speed(self) -> float:
        """Relative write throughput the allocation throttle sees (MIRROR_CHILD_SPEED)."""
        if self.kind == MIRROR:
            return self.speed * MIRROR_CHILD_SPEED ** (len(self.leaves) - 1)
        return self.speed

    def dsize(self, psize: int) -> int:
        """What a block of ``psize`` bytes counts for in dataset space (bp_get_dsize)."""
        return self.deflate(self.psize_to_asize(psize))

    def deflate(self, raw: int) -> int:
        return deflated(raw, self.deflate_ratio)

    def aliquot_disks(self, scaling: AliquotScaling) -> int:
        """The n of mg_aliquot = metaslab_aliquot * MAX(1, n) (ZfsVersion.aliquot_scaling)."""
        if scaling is AliquotScaling.CHILDREN:
            return max(1, len(self.leaves) if self.kind != SINGLE else 0)
        return self.layout.data_disks

    @property
    def dspace(self) -> int:
        """vs_dspace: the vdev's space as datasets count it (parity removed for RAID-Z)."""
        return self.deflate(self.space)

    @property
    def dalloc(self) -> int:
        return self.deflate(self.alloc)

    @property
    def space(self) -> int:
        return len(self.metaslabs) << self.ms_shift

    @property
    def alloc(self) -> int:
        return self.space - self.free

    @property
    def fragmentation(self) -> int | None:
        """metaslab_group_fragmentation() (labsim.zfs.metaslab.group_fragmentation)."""
        return group_fragmentation(self.metaslabs, self.ashift, self.rules)

    def take(self, nbytes: int, block: int = 0, allocator: int = 0,
             secondary: bool = False) -> list[tuple[int, int]]:
        """Allocate ``nbytes`` (the caller checked they fit) in blocks of ``block`` bytes
        (0: a single block) for ``allocator``: in the metaslab it has active on this
        vdev, chosen and given up as OpenZFS 2.1 does (labsim.zfs.metaslab)."""
        pieces = group_allocate(self.metaslabs, self.allocators, allocator, nbytes,
                                block or nbytes, self.ashift, secondary,
                                self.rules.fill_fresh_metaslabs)
        self.free -= nbytes
        return pieces

    def release(self, offset: int, length: int) -> None:
        while length > 0:
            index = offset >> self.ms_shift
            ms = self.metaslabs[index]
            piece = min(length, ms.start + ms.size - offset)
            ms.release(offset, piece)
            self.free += piece
            offset += piece
            length -= piece


@dataclass
class Extent:
    """Consecutive blocks on one top-level vdev: ``length`` bytes from ``offset`` (in the
    vdev's allocatable space, which starts after the leaves' front labels), each block
    ``block`` bytes (its asize); ``block`` 0 means the extent is a single block."""

    vdev: int
    offset: int
    length: int
    block: int = 0

    @property
    def block_size(self) -> int:
        return self.block or self.length

    @property
    def blocks(self) -> int:
        return self.length // self.block_size


@dataclass
class File:
    name: str
    size: int = 0
    mtime: float = 0.0
    extents: list[Extent] = field(default_factory=list)
    # What its blocks hold, as far as compression cares: "zero", "random" (dd's sources)
    # or a DataPattern (fio's). Contents themselves are not modelled; cp copies this.
    content: str | DataPattern = "zero"
    # Bytes the DSL counts for it (dsl_dataset_block_born()): ``logical`` is the data
    # blocks' logical size plus the indirect blocks' physical size (logicalused),
    # ``compressed`` the physical size of one copy of every block (compressratio).
    logical: int = 0
    compressed: int = 0
    # Its object number in the dataset's objset: with the objset id, what picks the
    # allocator of its blocks (labsim.zfs.metaslab.allocator_for).
    object: int = 0
    # The txg its blocks were born in (blk_birth): what snapshots compare with their own
    # txg to tell shared blocks from unique ones (labsim.zfs.snapshots).
    birth: int = 0
    # copies=2 or 3 (labsim.zfs.ditto): every copy of each data block, as one-block
    # extents that are also in ``extents``; and how many of ``extents``, at the end, are
    # indirect blocks (metadata, which has ditto copies of its own).
    ditto: list[tuple[Extent, ...]] = field(default_factory=list)
    indirect_extents: int = 0

    @property
    def allocated(self) -> int:
        return sum(e.length for e in self.extents)


DATASET_DEFAULTS = {"compression": None, "recordsize": 128 * KiB, "sync": "standard",
                    "logbias": "latency", "copies": "1"}


@dataclass
class Dataset:
    name: str
    properties: dict[str, object] = field(default_factory=dict)  # locally set values
    files: dict[str, File] = field(default_factory=dict)
    # Object numbers of new files. ZPL object numbers are not this regular (dnodes are
    # handed out in per-CPU chunks); they only need to differ, to spread files over the
    # allocators as real ones do.
    next_object: int = 2
    # The blocks of its objset, allocated by create_dataset (the root's are part of the
    # new pool's metadata).
    objset_extents: list[Extent] = field(default_factory=list)
    # Whether its intent log has a chain of blocks on disk (the ZIL header's zh_log):
    # made by its first commit (zil_create()), cleared when the pool's logs are reset.
    # An import replays only a log whose header was on disk.
    log_exists: bool = False
    # Its snapshots, oldest first, and for a clone the snapshot it was cloned from
    # ("pool/fs@snap"): labsim.zfs.snapshots keeps both.
    snapshots: list[Snapshot] = field(default_factory=list)
    origin: str | None = None
    # Snapshots destroyed since the head was last made afresh: they hold nothing, but the
    # metadata the head rewrote while they existed stays rewritten, so labsim.zfs.snapshots
    # still walks through them when it versions the chain's metadata blocks.
    destroyed_snapshots: list[Snapshot] = field(default_factory=list)


@dataclass(frozen=True)
class ScanRecord:
    """The last scrub or resilver, as print_scan_status() (cmd/zpool/zpool_main.c) reports
    it once finished: ``kind`` "scrub" or "resilver", the bytes repaired (a scrub) or
    resilvered, how long it took, its blocks with unrecoverable errors, and when it ended
    (seconds since the epoch, from the session's clock)."""

    kind: str
    processed: int
    seconds: int
    errors: int
    end: float


# TXG_DEFER_SIZE (include/sys/txg.h): a freed block stays allocated in its metaslab for
# two more txgs (ms_defer) before it can be reused, so ALLOC counts it a little longer
# than the DSL's USED does.
TXG_DEFER_SIZE = 2


@dataclass(frozen=True)
class LogRecord:
    """A write the intent log holds (a TX_WRITE record, with the file's TX_CREATE):
    enough to make it again at import."""

    dataset: str
    name: str
    nbytes: int
    content: str | DataPattern
    mtime: float = 0.0
    write_size: int = 128 * KiB  # the size of each write that made it


@dataclass
class Pool:
    name: str
    version: ZfsVersion
    vdevs: list[TopVdev]
    datasets: dict[str, Dataset]
    rotor: Rotor = field(default_factory=Rotor)
    txg: int = 4
    # The pool's own blocks (MOS, the root dataset's objset, space maps), and blocks
    # freed at txg t that stay allocated until t + TXG_DEFER_SIZE: (t, extent).
    metadata: list[Extent] = field(default_factory=list)
    deferred: list[tuple[int, Extent]] = field(default_factory=list)
    scan: ScanRecord | None = None
    # Blocks no copy of which could be read (the "errors: N data errors" line).
    data_errors: int = 0
    # Top-level (mirror or RAID-Z) and pool-wide checksum errors: counted for blocks
    # that could not be repaired (zio errors propagate up the vdev tree).
    vdev_cksum_errors: dict[int, int] = field(default_factory=dict)
    cksum_errors: int = 0
    # Files with a block no copy of which could be read: (dataset name, file name), for
    # ``zpool status -v`` (the pool's error log, spa_errlog.c).
    damaged_files: list[tuple[str, str]] = field(default_factory=list)
    # Space map objects and log space maps: what zdb -m reads (labsim.zfs.spacemaps).
    space_maps: spacemaps.PoolSpaceMaps = field(default_factory=spacemaps.PoolSpaceMaps)
    # Log vdevs (``zpool add POOL log DEV``): top-level vdevs of the log class, which
    # holds only intent-log blocks. Their space is not in the pool's SIZE, FREE or AVAIL
    # (spa_prop_get_config() in module/zfs/spa.c sums the normal, special and dedup
    # classes); zpool list -v shows them under "logs".
    logs: list[TopVdev] = field(default_factory=list)
    # The txg ``zpool freeze`` stopped at (spa_freeze(), a testing aid): later txgs
    # are not written to disk, so an export and import show what a power failure at that
    # moment would have kept. None when not frozen.
    frozen_txg: int | None = None
    # Children of the root vdev so far, holes left by removed vdevs included: the id
    # the next top-level vdev gets (next_vdev_id). -1: not counted yet (len(vdevs)).
    root_children: int = -1
    # Writes in the on-disk intent log since the pool was frozen, which an import
    # replays, and the pool as its devices held it at the freeze (freeze_pool()).
    replay_log: list[LogRecord] = field(default_factory=list)
    on_disk: Pool | None = None
    # Records of a frozen pool's writes not committed yet: a commit (or the export's
    # zil_close()) may still put them in the log.
    waiting_records: list[LogRecord] = field(default_factory=list)
    # The session clock when the pool was created or imported: zpool iostat's first
    # report averages over the time since.
    imported_at: float = 0.0
    # MOS blocks of the metaslabs' space maps made since the pool was created, counted in
    # USED and AVAIL but not placed (SPACE_MAP_MOS_BYTES).
    space_map_bytes: int = 0
    # Block cloning's reference table (labsim.zfs.bclone).
    brt: bclone.Brt = field(default_factory=bclone.Brt)
    # RAID-Z expansion (labsim.zfs.raidz_expansion): the running one or the latest done,
    # and the scrub its completion set up that has not run yet.
    expansion: raidz_expansion.Expansion | None = None
    scrub_pending: raidz_expansion.PendingScrub | None = None

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
    def dspace(self) -> int:
        """spa_get_dspace(): the normal class's deflated space (metaslab_class_get_dspace).
        Equal to ``space`` unless a vdev is RAID-Z; ``zpool list`` shows ``space``."""
        return sum(v.dspace for v in self.vdevs)

    @property
    def dalloc(self) -> int:
        """Allocated space, deflated as the metaslabs count it."""
        return sum(v.dalloc for v in self.vdevs)

    @property
    def dsl_used(self) -> int:
        """What the DSL counts as used (zfs list USED of the root, and what AVAIL is
        taken from): the allocation less blocks already freed but still deferred."""
        return (self.dalloc + self.space_map_bytes
                - sum(self.vdevs[e.vdev].deflate(e.length) for _, e in self.deferred)
                # A cloned block is charged to every file that points at it
                # (dsl_dataset_block_born()): the DSL counts bclonesaved on top.
                + self.brt.saved)

    @property
    def fragmentation(self) -> int | None:
        """Space-weighted mean of the vdevs' fragmentation (metaslab_class_fragmentation);
        None (printed "-") as soon as one vdev has no valid metric."""
        space = self.space
        if not space:
            return 0
        frags = [v.fragmentation for v in self.vdevs]
        if any(f is None for f in frags):
            return None
        return sum(f * v.space for f, v in zip(frags, self.vdevs, strict=True)) // space

    @property
    def allocators(self) -> int:
        """spa_alloc_count: how many allocators the lab VM's pool has (2.3 counts CPUs)."""
        return allocator_count(self.version, LAB_VM_CPUS)

    @property
    def capacity(self) -> int:
        """CAP: percent allocated, rounded down as zpool prints it."""
        return self.alloc * 100 // self.space if self.space else 0

    @property
    def min_ashift(self) -> int:
        """spa_min_ashift: compressed blocks are rounded up to this sector size."""
        return min(v.ashift for v in self.vdevs)

    @property
    def slop_space(self) -> int:
        # spa_get_slop_space() works on spa_get_dspace(), the deflated size.
        return slop_space(self.dspace, self.version)

    @property
    def root(self) -> Dataset:
        return self.datasets[self.name]


def property_value(pool: Pool, dataset: Dataset, name: str) -> tuple[object, str]:
    """A dataset property and its source: "local", "inherited from <ancestor>" (the
    nearest ancestor that sets it, dsl_prop_get_dd() in module/zfs/dsl_prop.c) or
    "default"."""
    if name in dataset.properties:
        return dataset.properties[name], "local"
    parts = dataset.name.split("/")
    for depth in range(len(parts) - 1, 0, -1):
        ancestor = pool.datasets.get("/".join(parts[:depth]))
        if ancestor is not None and name in ancestor.properties:
            return ancestor.properties[name], f"inherited from {ancestor.name}"
    if name == "compression":
        return pool.version.default_compression, "default"
    return DATASET_DEFAULTS[name], "default"


# An empty filesystem's objset (its meta-dnode, the ZPL master node, root directory,
# delete queue and SA tables), as logicalused counts it: metadata counts its physical
# size (BP_GET_UCSIZE). 42K in the lab 4 recordings (2.1.11, ashift 12, lz4): e.g.
# lab4/rs1m's LUSED 33601536 = 32 x 1M of data + a 4K indirect block + 42K; the same
# objset is 96K of USED (its blocks have two or three copies). At other ashifts the
# blocks shrink with the sector: this keeps the recorded proportion (an estimate).
EMPTY_OBJSET_LOGICAL_AT_4K = 42 * KiB


def _descendants(pool: Pool, dataset: Dataset) -> list[Dataset]:
    prefix = dataset.name + "/"
    return [d for n, d in pool.datasets.items() if n.startswith(prefix)]


def _objset_logical(pool: Pool) -> int:
    ashift = max(v.ashift for v in pool.vdevs)
    return EMPTY_OBJSET_LOGICAL_AT_4K * max(24 * KiB, 24 << ashift) // (96 * KiB)


def _mos_logical(pool: Pool) -> int:
    """The pool's own metadata (the MOS) as the root's logicalused counts it (its dsl_dir
    $MOS is a child of the root's): one copy of each of its blocks, which have three
    (the MOS's blocks are stored with spa_max_replication() copies). An estimate: the
    lab 4 recordings put the root's own logicalused at about 180K, this gives 170K."""
    return sum(e.length for e in pool.metadata) // 3


def dataset_logical_referenced(pool: Pool, dataset: Dataset) -> int:
    """logicalreferenced: the objset's own metadata and its files' logical bytes."""
    return _objset_logical(pool) + sum(f.logical for f in dataset.files.values())


def dataset_logicalused(pool: Pool, dataset: Dataset) -> int:
    """logicalused (dd_uncompressed_bytes): the dataset and its descendants, and for
    the root the MOS too."""
    own = dataset_logical_referenced(pool, dataset)
    own += sum(dataset_logical_referenced(pool, d) for d in _descendants(pool, dataset))
    if dataset.name == pool.name:
        own += _mos_logical(pool)
    return own


def _compressed_bytes(pool: Pool, dataset: Dataset) -> int:
    """dd_compressed_bytes: physical size of one copy of every block; metadata is
    counted the same in both, so the objset's part equals its logical part."""
    own = _objset_logical(pool) + sum(f.compressed for f in dataset.files.values())
    own += sum(_objset_logical(pool) + sum(f.compressed for f in d.files.values())
               for d in _descendants(pool, dataset))
    if dataset.name == pool.name:
        own += _mos_logical(pool)
    return own


def dataset_compressratio(pool: Pool, dataset: Dataset) -> float:
    """compressratio: dd_uncompressed_bytes * 100 / dd_compressed_bytes in integer
    arithmetic (dsl_dir_stats() in module/zfs/dsl_dir.c), so 1.9666 is printed 1.96:
    the ratio is truncated to two decimals, not rounded."""
    compressed = _compressed_bytes(pool, dataset)
    if not compressed:
        return 1.0
    return (dataset_logicalused(pool, dataset) * 100 // compressed) / 100


def file_used_bytes(pool: Pool, file: File) -> int:
    """DN_USED_BYTES of the file's dnode: every copy of every block, deflated."""
    return sum(pool.vdevs[e.vdev].deflate(e.length) for e in file.extents)


def dataset_referenced(pool: Pool, dataset: Dataset) -> int:
    """REFER: the dataset's own objects plus its files' blocks, in deflated bytes."""
    ashift = max(v.ashift for v in pool.vdevs)
    base = max(24 * KiB, 24 << ashift)  # an empty filesystem's objset; calibrated in VM
    if dataset.properties.get("type") == "volume":  # 14 sectors (labsim.zfs.zvols)
        base = base * 14 // 24
    if any(v.kind == RAIDZ for v in pool.vdevs):
        # Estimate, not yet checked on a real pool: the objset's blocks are one sector
        # each, so on RAID-Z each costs its parity and padding, then counts deflated.
        vdev = pool.vdevs[0]
        sector = 1 << vdev.ashift
        base = vdev.deflate(base // sector * vdev.psize_to_asize(sector))
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
    dspace = pool.dspace + pool.brt.saved
    return max(0, dspace - pool.slop_space - pool.dsl_used - reserved) + own


def _refreservation_unfilled(pool: Pool, dataset: Dataset) -> int:
    """USEDREFRESERV of a dataset with a refreservation (labsim.zfs.zvols)."""
    if not dataset.properties.get("refreservation"):
        return 0
    from labsim.zfs import zvols  # zvols builds on this module

    return zvols.usedbyrefreservation(pool, dataset)


# ---------------------------------------------------------------- pool lifecycle


def _as_spec(item: VdevSpec | tuple[str, int]) -> VdevSpec:
    return item if isinstance(item, VdevSpec) else single(*item)


def build_vdev(vdev_id: int, spec: VdevSpec | tuple[str, int], ashift: int,
               version: ZfsVersion) -> TopVdev:
    """Open a top-level vdev: size it from its leaves (layouts.top_level_asize) and cut
    it into metaslabs (vdev_metaslab_set_size() on the top-level asize)."""
    spec = _as_spec(spec)
    for path, size in spec.devices:
        # vdev_open(): a leaf below SPA_MINDEVSIZE fails with EOVERFLOW, in a group too.
        if size - size % VDEV_LABEL_SIZE < SPA_MINDEVSIZE:
            raise DeviceTooSmall(path)
    asize = top_level_asize(spec.layout, [size for _, size in spec.devices])
    shift = metaslab_shift(asize, version)
    count = asize >> shift
    metaslabs = [Metaslab.empty(i << shift, 1 << shift) for i in range(count)]
    return TopVdev(id=vdev_id, leaves=[Leaf(path, size) for path, size in spec.devices],
                   ashift=ashift, ms_shift=shift, metaslabs=metaslabs, layout=spec.layout,
                   allocators=GroupAllocators.of(allocator_count(version, LAB_VM_CPUS)),
                   rules=version.metaslab_rules)


def metadata_allocation(vdev: TopVdev, nbytes: int) -> int:
    """Raw bytes that ``nbytes`` of new-pool metadata (measured on single-file vdevs)
    take on ``vdev``. The metadata is small blocks, modelled as 4 KiB each: the same
    bytes on a single device or a mirror (one copy is accounted), but on RAID-Z each
    block pays parity and padding. The RAID-Z figure is an estimate until recorded."""
    if vdev.kind != RAIDZ:
        return nbytes
    block = 4 * KiB
    return nbytes // block * vdev.psize_to_asize(block)


def create_pool(
    name: str, devices: list[VdevSpec | tuple[str, int]], version: ZfsVersion, ashift: int = 9
) -> Pool:
    """A new pool striped over top-level vdevs: each a VdevSpec (mirror, RAID-Z or a
    single device) or a plain (path, size in bytes) for a single device."""
    vdevs = [build_vdev(i, spec, ashift, version) for i, spec in enumerate(devices)]
    pool = Pool(name=name, version=version, vdevs=vdevs, datasets={name: Dataset(name)})
    profile = version.create_metadata
    if profile is None:
        for vdev in vdevs:
            vdev.take(metadata_allocation(vdev, version.create_alloc_per_vdev))
        return pool
    # The new pool's blocks, dealt out over the top-level vdevs in turn: metadata has
    # ditto copies, which metaslab_alloc() puts on different vdevs where it can, so a
    # pool of two vdevs shows about half on each (2.1.11: 244K and 236K in lab 1).
    # Each block is an object of the MOS (objset 0) and hashes to an allocator
    # (zio_dva_throttle()), so the first txgs touch a metaslab per allocator on every
    # vdev. labsim does not track the copies of a block; the MOS's 16K blocks go to the
    # allocators' secondary metaslabs, where OpenZFS puts a third copy that lands on a
    # vdev already holding one (metaslab_group_alloc_normal(): METASLAB_WEIGHT_SECONDARY).
    # The recordings show six metaslabs written on each vdev of lab 3's new pool.
    turn = 0
    for blocks, deferred in ((profile.live, False), (profile.deferred, True)):
        for psize, count in blocks:
            for _ in range(count):
                vdev = vdevs[turn % len(vdevs)]
                turn += 1
                asize = vdev.psize_to_asize(psize)
                pieces = vdev.take(asize, allocator=allocator_for(0, turn, 0, 0,
                                                                  pool.allocators),
                                   secondary=psize > 4 * KiB)
                for offset, length in pieces:
                    extent = Extent(vdev.id, offset, length)
                    if deferred:
                        pool.deferred.append((pool.txg, extent))
                    else:
                        pool.metadata.append(extent)
    _sync(pool, new_space_maps_cost=False)  # the new pool's are in create_metadata
    return pool


# A metaslab's first space map (space_map_alloc() when it is first synced with changes)
# adds blocks to the MOS: lab 7's recordings (2.1.11, ashift 12) show the root's USED grow
# by about 200K while 96M of writes put space maps on 8 more metaslabs. labsim counts them
# in USED and AVAIL (Pool.space_map_bytes) without placing them on the vdevs.
SPACE_MAP_MOS_BYTES = 24 * KiB


def _sync(pool: Pool, new_space_maps_cost: bool = True) -> None:
    new = spacemaps.sync_txg([v.metaslabs for v in pool.vdevs], pool.txg, pool.space_maps)
    if new_space_maps_cost:
        pool.space_map_bytes += new * SPACE_MAP_MOS_BYTES


def advance_txg(pool: Pool) -> None:
    """One transaction group syncs: blocks freed TXG_DEFER_SIZE txgs ago become free
    space again (metaslab_sync_done() moving ms_defer back to the allocatable tree).
    Changed metaslabs get space maps, and one is flushed (labsim.zfs.spacemaps)."""
    _sync(pool)
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


def freeze_pool(pool: Pool) -> None:
    """spa_freeze(): txgs after the current one are never written to disk. labsim keeps
    a copy of the pool as it is on disk now; export_pool() returns to it, and the
    import replays the intent log's records made since (``replay_log``)."""
    if pool.frozen_txg is not None:
        return  # spa_freeze() keeps the first freeze txg
    pool.frozen_txg = pool.txg
    pool.replay_log = []
    pool.on_disk = None
    pool.on_disk = deepcopy(pool)


def log_record(pool: Pool, record: LogRecord) -> None:
    """A file write that reached the on-disk intent log (zil_commit() returned): if the
    pool is frozen, the import after a crash will replay it (zil_replay(), which sets
    the times the records carry)."""
    if pool.frozen_txg is not None:
        pool.replay_log.append(record)


def export_pool(pool: Pool) -> Pool:
    """spa_export(): the last txgs sync, so blocks freed recently are free on disk (their
    frees are in the space maps; only the in-memory ms_defer trees held them back), and
    every metaslab's space map is flushed (spa_unload_log_sm_flush_all()). Returns the
    pool as its devices now hold it: for a frozen pool, as it was at the freeze, with
    the intent log's records waiting to be replayed at import."""
    if pool.frozen_txg is not None and pool.on_disk is not None:
        on_disk, records = pool.on_disk, pool.replay_log
        on_disk.replay_log = records
        on_disk.frozen_txg = None
        on_disk.on_disk = None
        on_disk.waiting_records = []
        pool = on_disk
    for extent in (e for _, e in pool.deferred):
        pool.vdevs[extent.vdev].release(extent.offset, extent.length)
    pool.deferred = []
    pool.txg += TXG_DEFER_SIZE + 1
    spacemaps.flush_all([v.metaslabs for v in pool.vdevs], pool.txg, pool.space_maps)
    return pool


def import_pool(pool: Pool) -> None:
    """spa_import(): the metaslabs are loaded anew, none active, so each allocator picks
    again, from the weights on disk (fresh metaslabs first). Import writes a few txgs
    (labsim advances the txg and allocates nothing)."""
    for vdev in pool.vdevs:
        vdev.allocators.passivate_all()
        for ms in vdev.metaslabs:
            ms.activation_index = 0
    pool.txg += 2 * TXG_DEFER_SIZE
    # zil_replay() when each dataset is mounted: every logged write is made again.
    records, pool.replay_log = pool.replay_log, []
    for record in records:
        dataset = pool.datasets.get(record.dataset)
        # Without a log header on disk there is no chain to replay: a log started after
        # the freeze was never reachable (zil_claim() finds nothing).
        if dataset is not None and dataset.log_exists:
            write_file(pool, dataset, record.name, record.nbytes, record.content)
            dataset.files[record.name].mtime = record.mtime


def next_vdev_id(pool: Pool) -> int:
    """Top-level vdevs of every class are children of one root vdev and share its
    numbering (vdev_add_child() in module/zfs/vdev.c): a log vdev added to a one-vdev
    pool is vdev 1. Removing a vdev leaves its id unused (a hole)."""
    if pool.root_children < 0:
        pool.root_children = 1 + max((v.id for v in [*pool.vdevs, *pool.logs]), default=-1)
    return pool.root_children


def add_vdevs(pool: Pool, devices: list[VdevSpec | tuple[str, int]], ashift: int = 9) -> None:
    start = next_vdev_id(pool)
    new = [build_vdev(start + i, spec, ashift, pool.version) for i, spec in enumerate(devices)]
    for vdev in new:
        vdev.take(metadata_allocation(vdev, pool.version.create_alloc_per_vdev // 2))
    pool.vdevs.extend(new)
    pool.root_children = start + len(new)


def add_log_vdevs(pool: Pool, devices: list[VdevSpec | tuple[str, int]], ashift: int = 9) -> None:
    """zpool add POOL log DEV...: new top-level vdevs of the log class. They are cut
    into metaslabs like any vdev (vdev_metaslab_set_size()) and hold no data until the
    intent log writes to them."""
    start = next_vdev_id(pool)
    new = [build_vdev(start + i, spec, ashift, pool.version) for i, spec in enumerate(devices)]
    pool.logs.extend(new)
    pool.root_children = start + len(new)
    advance_txg(pool)


def remove_log_vdev(pool: Pool, vdev: TopVdev) -> None:
    """zpool remove POOL LOGDEV: a log vdev can always be removed (spa_vdev_remove_log()
    in module/zfs/vdev_removal.c): its log blocks are rewritten to the pool first. Its
    id stays taken, as a hole vdev."""
    next_vdev_id(pool)  # count the removed vdev's id before it goes
    pool.logs.remove(vdev)
    # spa_reset_logs(): every dataset's log is destroyed (zil_reset()), so the next
    # commit starts a new chain.
    for dataset in pool.datasets.values():
        dataset.log_exists = False
    advance_txg(pool)


# ---------------------------------------------------------------- file data


def write_file(
    pool: Pool,
    dataset: Dataset,
    name: str,
    nbytes: int,
    content: str | DataPattern,
    pressure: float | None = None,
) -> int:
    """Create (or replace) ``name`` with ``nbytes`` of "zero" or "random" content, or
    data of a DataPattern (fio's half-compressible buffers).

    Each record is compressed as the dataset's compression says (records.block_plan);
    holes allocate nothing. Data is placed a transaction group at a time. Returns the
    bytes written; raises NoSpace (carrying the bytes that did fit) when the pool runs
    out of room. ``pressure`` is the throttle's (ZfsVersion.streaming_throttle_pressure
    when None: a writer as fast as dd).
    """
    if pressure is None:
        pressure = pool.version.streaming_throttle_pressure
    if name in dataset.files:
        remove_file(pool, dataset, name)
    recordsize = int(property_value(pool, dataset, "recordsize")[0])
    compression = str(property_value(pool, dataset, "compression")[0])
    layout = records.file_layout(nbytes, recordsize)
    groups = records.block_plan(nbytes, recordsize, content, compression, pool.min_ashift,
                                pool.version.compression_min_savings)
    file = File(name, content=content, object=dataset.next_object, birth=pool.txg)
    dataset.next_object += 1
    dataset.files[name] = file
    objset = objset_id(pool, dataset)
    done = 0  # data blocks written so far, holes included
    allocated = 0  # of which allocated
    short = False
    for group in groups:
        if group.psize == 0:  # holes (or embedded blocks): nothing to allocate
            done += group.count
            continue
        count, short = _write_blocks(pool, dataset, file, group.psize, group.count,
                                     layout.block_size, done, objset, pressure)
        file.logical += count * group.lsize
        file.compressed += count * group.psize
        done += count
        allocated += count
        if short:
            break
    file.size = min(nbytes, done * layout.block_size)
    copies = int(str(property_value(pool, dataset, "copies")[0]))
    if copies > 1 and allocated:
        from labsim.zfs import ditto  # ditto imports this module

        ditto.add_copies(pool, file, copies)
    if allocated:
        before = len(file.extents)
        # Indirect blocks are metadata: one copy more than the data, at most three
        # (dmu_write_policy(): copies++ for metadata, then MIN(copies, spa_max_replication)).
        _allocate_indirects(pool, file, done, objset, min(copies + 1, SPA_DVAS_PER_BP))
        file.indirect_extents = len(file.extents) - before
    if short and file.size < nbytes:
        raise NoSpace(file.size)
    return file.size


def _write_blocks(pool: Pool, dataset: Dataset, file: File, psize: int, count: int,
                  block_size: int, first_block: int, objset: int,
                  pressure: float) -> tuple[int, bool]:
    """Allocate ``count`` data blocks of ``psize`` physical bytes for ``file``, a txg at a
    time, spread over the vdevs by the rotor. Returns how many fitted, and whether the
    pool ran short of space."""
    if not pool.version.allocation_throttle:
        pressure = 0.0
    # What one block counts for against AVAIL (deflated), on the vdev where it costs most.
    # On single devices and mirrors this is psize rounded up to the largest ashift.
    nominal_dsize = max(v.dsize(psize) for v in pool.vdevs)

    def indirect_dsize(indirect_psize: int) -> int:
        return max(v.dsize(indirect_psize) for v in pool.vdevs)

    # One txg at a time keeps the bias exact; on big pools a step of 1/1024 of the pool
    # moves every printed figure by less than its last digit, and is much faster.
    step = max(pool.version.txg_bytes, pool.space >> 10)
    per_txg = max(1, step // block_size)
    reserve = SPA_ASIZE_INFLATION * block_size
    written = 0
    short = False
    while written < count:
        want = min(per_txg, count - written)
        # The write must leave room for its indirect blocks too (they are allocated last).
        allowed = (dataset_available(pool, dataset) - reserve
                   - records.indirect_allocation(first_block + written + want,
                                                 pool.min_ashift, sizer=indirect_dsize))
        fit = max(0, allowed // nominal_dsize)
        if fit < want:
            want, short = fit, True
        if want == 0:
            break
        aliquot = pool.version.metaslab_aliquot
        groups = [GroupState(free=v.free, speed=v.write_speed, asize=v.psize_to_asize(psize),
                             aliquot=aliquot * v.aliquot_disks(pool.version.aliquot_scaling),
                             allocatable=group_allocatable(v.space, v.alloc, v.fragmentation))
                  for v in pool.vdevs]
        counts = pool.rotor.distribute(groups, want, aliquot, nominal_dsize, pressure)
        for vdev, share in zip(pool.vdevs, counts, strict=True):
            if share:
                asize = vdev.psize_to_asize(psize)
                share = min(share, vdev.free // asize)
                # Level-0 blocks: one allocator per region of 2^20 blocks (zio.c).
                allocator = allocator_for(objset, file.object, 0, first_block + written,
                                          pool.allocators)
                for offset, length in vdev.take(share * asize, asize, allocator):
                    file.extents.append(Extent(vdev.id, offset, length, asize))
                vdev.write_ops += share  # one write I/O per block (no aggregation)
                vdev.write_bytes += share * asize
                written += share
        advance_txg(pool)
        if short or sum(counts) < want:
            short = True
            break
    return written, short


def objset_id(pool: Pool, dataset: Dataset) -> int:
    """The dataset's objset id, one of the inputs of the allocator hash. A new 2.1
    pool's root dataset is object 54 of the MOS; labsim numbers the others after it
    (real numbers depend on what else the MOS holds)."""
    return 54 + 3 * list(pool.datasets).index(dataset.name)


SPA_DVAS_PER_BP = 3  # copies a block pointer can hold (include/sys/spa.h)
# Indirect blocks of a run this long are placed in batches (see _allocate_indirects).
INDIRECT_BATCH_FROM = 1024


def _allocate_indirects(pool: Pool, file: File, data_blocks: int, objset: int,
                        copies: int = records.METADATA_COPIES) -> None:
    """Indirect blocks, ``copies`` copies each (ditto blocks: two for copies=1, three
    for copies=2 or 3) on different vdevs where possible; with a single top-level vdev
    all go to it, those after the first to the allocator's secondary metaslab
    (metaslab_group_alloc_normal()). Level 1 hashes to an allocator of its own.

    Each copy goes to the vdev with the most free space at the time. A file of millions
    of blocks has thousands of full indirect blocks alike: from INDIRECT_BATCH_FROM of
    them on, they are placed 1/64 of the run at a time, choosing the vdevs again before
    each batch, which keeps filling a 1 TiB pool fast in the browser. Smaller files
    (every lab's) are placed block by block."""
    allocator = allocator_for(objset, file.object, 1, 0, pool.allocators)
    for pointers, count in records.indirect_block_runs(data_blocks):
        psize = records.indirect_psize(pointers, pool.min_ashift)
        # Metadata counts its physical size as its logical size (BP_GET_UCSIZE).
        file.logical += psize * count
        file.compressed += psize * count
        batch = count // 64 if count >= INDIRECT_BATCH_FROM else 1
        placed = 0
        while placed < count:
            blocks = min(batch, count - placed)
            placed += blocks
            targets = sorted(pool.vdevs, key=lambda v: -v.free)[:copies]
            for copy in range(copies):
                vdev = targets[copy % len(targets)]
                asize = vdev.psize_to_asize(psize)
                fit = min(blocks, vdev.free // asize)
                if fit <= 0:
                    continue
                for offset, length in vdev.take(fit * asize, asize if fit > 1 else 0,
                                                allocator=allocator,
                                                secondary=copy >= len(targets)):
                    file.extents.append(Extent(vdev.id, offset, length,
                                               asize if fit > 1 else 0))


def create_dataset(pool: Pool, name: str, properties: dict[str, object]) -> Dataset:
    """zfs create: a new filesystem, whose empty objset takes what dataset_referenced
    counts for it (one-sector metadata blocks) from the pool, so that the root's USED
    and the pool's ALLOC include it as on a real pool."""
    dataset = Dataset(name, properties=dict(properties))
    pool.datasets[name] = dataset
    vdev = min(pool.vdevs, key=lambda v: -v.free)
    sector = 1 << vdev.ashift
    base = max(24 * KiB, 24 << max(v.ashift for v in pool.vdevs))
    for _ in range(base // sector):
        asize = vdev.psize_to_asize(sector)
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


def remove_file(pool: Pool, dataset: Dataset, name: str) -> None:
    file = dataset.files.pop(name)
    # A snapshot or a clone that still holds the file keeps its blocks (they go on the
    # dataset's deadlist, dsl_dataset_block_kill() in module/zfs/dsl_dataset.c).
    if not file_is_referenced(pool, file):
        bclone.free_file(pool, file)  # cloned blocks only lose a reference
    advance_txg(pool)


def file_is_referenced(pool: Pool, file: File) -> bool:
    """Whether any dataset or snapshot of the pool still holds ``file``'s blocks."""
    return any(held is file for ds in pool.datasets.values()
               for files in (ds.files, *(s.files for s in ds.snapshots))
               for held in files.values())
