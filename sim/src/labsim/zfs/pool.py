"""The pool's state: pools, datasets, snapshots, files and their extents.

State is plain dataclasses; the operations on it are functions in modules of their own,
each taking the state it changes as an argument (labsim.zfs.vdevs, space, write_path,
datasets, txg, lifecycle, snapshots, zvols...). Nothing is global, so any number of pools
(and sessions) coexist.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.content.model import Content, resize
from labsim.zfs import brt, raidz_expansion_state, spacemaps
from labsim.zfs.allocator import Rotor
from labsim.zfs.compression import DataPattern, as_content
from labsim.zfs.history import History
from labsim.zfs.layouts import SPA_MINBLOCKSHIFT
from labsim.zfs.records import BlockGroup
from labsim.zfs.resilver_state import PendingResilver
from labsim.zfs.slop import slop_space
from labsim.zfs.vdevs import TopVdev
from labsim.zfs.versions import LAB_VM_CPUS, KiB, ZfsVersion, allocator_count

# TXG_DEFER_SIZE (include/sys/txg.h): a freed block stays allocated in its metaslab for
# two more txgs (ms_defer) before it can be reused, so ALLOC counts it a little longer
# than the DSL's USED does.
TXG_DEFER_SIZE = 2
TXG_CONCURRENT_STATES = 3  # include/sys/txg.h: open, quiescing, syncing
TXG_INITIAL = 4  # include/sys/txg.h (TXG_SIZE): the txg spa_create() writes the pool in


@dataclass(slots=True)
class Extent:
    """Consecutive blocks on one top-level vdev: ``length`` bytes from ``offset`` (in the
    vdev's allocatable space, which starts after the leaves' front labels), each block
    ``block`` bytes (its asize); ``block`` 0 means the extent is a single block."""

    vdev: int
    offset: int
    length: int
    block: int = 0
    # A single block on RAID-Z: the bytes of it that are read (its data and parity
    # sectors, labsim.zfs.layouts.raidz_written()); 0 when all of ``length`` is.
    read: int = 0
    # How many DVAs (copies) the block pointer of each of these blocks holds, this one
    # among them: a resilver reads such a block once for each (labsim.zfs.scan.
    # resilver_writes()).
    dvas: int = 1

    @property
    def block_size(self) -> int:
        return self.block or self.length

    @property
    def blocks(self) -> int:
        return self.length // self.block_size


@dataclass(eq=False)
class Run:
    """Consecutive records of a file, ``count`` of them from record ``first``, written in
    one txg range and shared, by identity, by every version of the file that still points
    at them. A partial overwrite (labsim.zfs.overwrite) makes a new version of the file
    whose runs are the old ones split around the records it touched, plus new runs for
    those: copy-on-write of the touched records only (dmu_write() in module/zfs/dmu.c ->
    dbuf_dirty() in dbuf.c, and dsl_dataset_block_kill() of the old blocks in
    dsl_dataset.c, zfs-2.3.9). ``plan`` is the records' sizes in file order (holes and
    embedded blocks included, which have no extent); ``extents`` and ``ditto`` are the
    allocated blocks' copies, in that order, as File keeps them; ``logical`` and
    ``compressed`` what the DSL counts for them (dsl_dataset_block_born()). A level-1
    indirect block shared the same way is a Run of no records (File.indirect_runs)."""

    first: int
    count: int
    plan: list[BlockGroup] = field(default_factory=list)
    extents: list[Extent] = field(default_factory=list)
    ditto: list[tuple[Extent, ...]] = field(default_factory=list)
    logical: int = 0
    compressed: int = 0
    birth: int = 0


@dataclass
class File:
    name: str
    size: int = 0
    mtime: float = 0.0
    extents: list[Extent] = field(default_factory=list)
    # What it holds: "zero", "random" (dd's sources), a DataPattern (fio's) or content
    # (labsim.content.model); file_content() gives it as content. cp and cat copy it.
    content: str | DataPattern | Content = "zero"
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
    # The size of its data blocks (the recordsize when it was written, kept by later
    # writes as dmu_object_set_blocksize() only changes a single-block file) and their
    # sizes in file order (records.block_plan): what a partial overwrite needs to tell
    # which blocks it touches. 0 and [] for files made otherwise (volumes, fio).
    block_size: int = 0
    plan: list[BlockGroup] = field(default_factory=list)
    # After a partial overwrite: its data as runs of records shared with other versions
    # of the file (Run), and its level-1 indirect blocks, one Run each (no records, the
    # block's copies as extents), shared too where the overwrite did not touch the
    # records under them. Its own blocks are then only the indirect blocks above level 1
    # (the last of ``extents``). Empty: the file's blocks are all its own.
    runs: list[Run] = field(default_factory=list)
    indirect_runs: list[Run] = field(default_factory=list)
    # Its dnode's levels (dn_nlevels, records.file_levels()), 1 for a file of one block;
    # 0 where labsim did not note them (as its blocks need).
    levels: int = 0
    # The physical sizes of its level-1 indirect blocks where their pointers repeat
    # (labsim.zfs.indirect_blocks); [] where records.indirect_psize() gives them.
    level_one_psizes: list[int] = field(default_factory=list)

    @property
    def allocated(self) -> int:
        return sum(e.length for e in self.extents)


def file_content(file: File) -> Content:
    """The file's bytes as content (labsim.content.model), whatever it was written with."""
    return resize(as_content(file.content, file.size), file.size)


DATASET_DEFAULTS = {"compression": None, "recordsize": 128 * KiB, "sync": "standard",
                    "logbias": "latency", "copies": "1", "atime": "on"}


@dataclass
class MosBlocks:
    """MOS blocks that belong to one object of a dataset's (its dsl_dir's ZAP, its
    deadlist's bpobjs): every copy's extent, and one copy's physical bytes (what
    Pool.mos_physical counts of them)."""

    extents: list[Extent] = field(default_factory=list)
    physical: int = 0


@dataclass
class MosDnodes:
    """The MOS's dnode blocks as objects come and go (labsim.zfs.mos_dnodes): the objects
    made since the new pool, less those freed; each block's physical size (empty until
    the new pool's creation is over, whose blocks its profile holds) and what it has
    grown by since; whether the pool's shared empty bpobj exists yet."""

    added: int = 0
    sizes: tuple[int, ...] = ()
    growth: list[MosBlocks] = field(default_factory=list)
    empty_bpobj_made: bool = False


@dataclass
class Snapshot:
    """One snapshot: its full name "pool/fs@snap", the txg it was taken in (createtxg),
    the files it holds and when it was taken (seconds since the epoch)."""

    name: str
    txg: int
    files: dict[str, File] = field(default_factory=dict)
    creation: float = 0.0
    # The head's objset as it was when the snapshot was taken: its blocks' copies
    # (labsim.zfs.objset) and whether its SA layouts were settled (Dataset.sa_settled).
    created_metadata_copies: int = 2
    changed_metadata_copies: int = 2
    sa_settled: bool = True
    sa_layouts_copies: int = 2
    # The directories its root held for child file systems' mountpoints
    # (Dataset.mountpoint_dirs).
    mountpoint_dirs: tuple[str, ...] = ()
    mountpoint_other_chunk: tuple[str, ...] = ()
    # Its root directory's atime as the head had it (Dataset.root_dir_atime_writes and
    # root_dir_atime_names).
    root_dir_atime_writes: int = 0
    root_dir_atime_names: frozenset[str] | None = None
    # Its ZIL header as the head had it (Dataset.log_exists: a snapshot's objset_phys_t
    # is the head's, header included) and how many times the head's objset block had
    # been rewritten alone (Dataset.objset_block_rewrites).
    log_exists: bool = False
    objset_block_rewrites: int = 0
    # The per-dataset features active on its dsl_dataset object (labsim.zfs.mos.
    # activate_feature), copied from the head when it was taken, and its ZAP's block.
    active_features: frozenset[str] = frozenset()
    ds_blocks: MosBlocks = field(default_factory=MosBlocks)

    @property
    def dataset(self) -> str:
        return self.name.split("@", 1)[0]

    @property
    def short(self) -> str:
        return self.name.split("@", 1)[1]


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
    # Whether its dsl_dir has been made a ZAP (2.2+: by its first snapshot,
    # labsim.zfs.mos.ZAPIFIED_DIR).
    dir_zapified: bool = False
    # MOS blocks of its own objects, freed when it is destroyed (labsim.zfs.mos): its
    # dsl_dir's ZAP, and the bpobjs of its deadlist's entries, by the txg of the snapshot
    # each entry follows (-1: a clone's origin), labsim.zfs.mos.deadlist_insert.
    dir_blocks: MosBlocks = field(default_factory=MosBlocks)
    deadlist_blocks: dict[int, MosBlocks] = field(default_factory=dict)
    # The per-dataset features (the accounting ones of every file system, zstd_compress,
    # zilsaxattr...) active on its dsl_dataset object, a micro ZAP, and that ZAP's block
    # once it no longer fits in its block pointer (labsim.zfs.mos.activate_feature).
    active_features: set[str] = field(default_factory=set)
    ds_blocks: MosBlocks = field(default_factory=MosBlocks)
    # Its dsl_dir's child map, a micro ZAP of its children's names, once it no longer
    # fits in its block pointer: the block and its physical size (labsim.zfs.mos.
    # child_map_changed).
    child_map_blocks: MosBlocks = field(default_factory=MosBlocks)
    child_map_psize: int = 0
    # How many copies its objset's own blocks have (labsim.zfs.objset_copies): those
    # written once when it was created, and those every change rewrites.
    created_metadata_copies: int = 2
    changed_metadata_copies: int = 2
    # Whether the objset's SA layouts have been written since it was made: the pool's
    # root file system has them rewritten by the first file or directory made in it
    # (labsim.zfs.snapshots); every other file system is settled from its creation.
    # ``sa_layouts_copies``: the copies the SA layouts were last written with (those of
    # its creation, or those its metadata had when they were settled).
    sa_settled: bool = True
    sa_layouts_copies: int = 2
    # The directories in its root made for child file systems' mountpoints, in the order
    # they were made: `zfs create` and `zfs clone` mount the child there (mkdir), `zfs
    # destroy` removes it (remove_mountpoint() in lib/libzfs/libzfs_mount.c rmdirs a
    # mountpoint it inherited), and `zfs rollback`, done with the file system suspended
    # and not unmounted (zfs_ioc_rollback()), brings back the snapshot's.
    mountpoint_dirs: list[str] = field(default_factory=list)
    # Those of them made from another CPU's chunk of object numbers, and how many
    # mountpoint directories were made since the objset was opened (labsim.zfs.objset).
    mountpoint_other_chunk: list[str] = field(default_factory=list)
    mkdirs_since_open: int = 0
    # Its root directory's atime (labsim.zfs.objset.root_dir_read): how many times reading
    # the directory wrote a new one, and the names the directory held then (None: never
    # read since it was made, its atime no newer than its mtime).
    root_dir_atime_writes: int = 0
    root_dir_atime_names: frozenset[str] | None = None
    # ZPL changes since the last txg sync labsim knows of (a sync task, `zpool sync`):
    # their itxs are still in memory, and zil_close() at export commits them to the log
    # (labsim.zfs.objset.commit_at_close).
    unsynced_changes: bool = False
    # How many times its objset block was rewritten alone, for its ZIL header: by
    # dsl_dataset_zero_zil() (a clone made of, or a rollback to, a snapshot whose header
    # was not zero) or at import (labsim.zfs.objset.logs_claimed). labsim.zfs.snapshots
    # follows that block as a version of its own.
    objset_block_rewrites: int = 0
    # Files removed from the head while it had a snapshot or an origin, with the txg of
    # the removal (labsim.zfs.objset.file_removed): a file made and removed between two
    # snapshots leaves no trace in either, but rewrote the metadata blocks in between.
    removed_files: list[tuple[File, int]] = field(default_factory=list)


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


@dataclass(frozen=True)
class LogRecord:
    """A write the intent log holds (a TX_WRITE record, with the file's TX_CREATE):
    enough to make it again at import."""

    dataset: str
    name: str
    nbytes: int
    content: str | DataPattern | Content
    mtime: float = 0.0
    write_size: int = 128 * KiB  # the size of each write that made it


@dataclass
class Pool:
    name: str
    version: ZfsVersion
    vdevs: list[TopVdev]
    datasets: dict[str, Dataset]
    rotor: Rotor = field(default_factory=Rotor)
    txg: int = TXG_INITIAL  # the open txg
    # The pool's own blocks (MOS, the root dataset's objset, space maps), and blocks
    # freed at txg t that stay allocated until t + TXG_DEFER_SIZE: (t, extent).
    # The pool's own blocks that stay where they are, and those the last txg that changed
    # a dataset wrote (labsim.zfs.metadata_rewrite), which the next such txg replaces:
    # all_metadata() is both.
    metadata: list[Extent] = field(default_factory=list)
    rewritten_metadata: list[Extent] = field(default_factory=list)
    # Those of rewritten_metadata that are MOS blocks (the others are the dataset's).
    rewritten_mos: list[Extent] = field(default_factory=list)
    # Blocks of the new pool's MOS that later txgs rewrite but labsim keeps in place
    # (labsim.zfs.mos.mos_written_anew()): those every txg that writes the MOS rewrites,
    # and the object directory's, which a scan's setup rewrites.
    mos_churn: list[Extent] = field(default_factory=list)
    mos_directory: list[Extent] = field(default_factory=list)
    deferred: list[tuple[int, Extent]] = field(default_factory=list)
    # Old versions of metadata blocks snapshots and clones keep, by (dataset, kind,
    # version): their blocks (labsim.zfs.held_metadata).
    held_metadata: dict[tuple, list[Extent]] = field(default_factory=dict)
    # The bpobjs of deadlist entries, beyond what labsim.zfs.mos.deadlist_insert()
    # allocates: (dataset, pair, interval) -> (block pointers, their blocks)
    # (labsim.zfs.deadlists).
    deadlist_bpobjs: dict[tuple[str, int, int], tuple[int, MosBlocks]] = field(
        default_factory=dict)
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
    # Pool properties set by zpool set or zpool create -o that labsim keeps without
    # modelling (labsim.zfs.pool_property_table), and user properties: name -> value.
    properties: dict[str, str] = field(default_factory=dict)
    # The space map objects (metaslabs' and log) whose data block the MOS holds now, and
    # those blocks, newest last (labsim.zfs.txg.sync_space_maps).
    space_map_charged: int = 0
    space_map_blocks: list[MosBlocks] = field(default_factory=list)

    # The physical bytes of one copy of each MOS block (what the root's logicalused
    # counts of the MOS, BP_GET_UCSIZE() of metadata): set from the new pool's profile
    # and grown with the MOS. None: estimated from the placed blocks (older profiles,
    # which do not tell MOS blocks from the root objset's).
    mos_physical: int | None = None
    # The pool's history object (labsim.zfs.history) and the physical size of its block
    # that the MOS holds so far (labsim.zfs.mos.history_grew); None: not tracked (a pool
    # without a creation profile).
    history: History = field(default_factory=History)
    history_psize: int | None = None
    # The physical size of the vdev ZAP map's block, 0 while it is embedded
    # (labsim.zfs.mos.vdev_zap_map_block).
    vdev_zap_map_psize: int = 0
    # The MOS's dnode blocks since the new pool (labsim.zfs.mos_dnodes).
    mos_dnodes: MosDnodes = field(default_factory=lambda: MosDnodes())
    # Block cloning's reference table (labsim.zfs.brt).
    brt: brt.Brt = field(default_factory=brt.Brt)
    # RAID-Z expansion (labsim.zfs.raidz_expansion): the running one or the latest done,
    # and the scrub its completion set up that has not run yet.
    expansion: raidz_expansion_state.Expansion | None = None
    scrub_pending: raidz_expansion_state.PendingScrub | None = None
    # The resilver an import asked for, for members back with writes they missed, that
    # the pool has not started yet (labsim.zfs.dtl_resilver).
    resilver_pending: PendingResilver | None = None
    # The pool's guid (spa_generate_guid()), in every label: 0 until the shell gives it
    # one (labsim.zfs.labels.new_guid).
    guid: int = 0

    def all_metadata(self) -> list[Extent]:
        return [*self.metadata, *self.rewritten_metadata]

    def top(self, vdev_id: int) -> TopVdev:
        """The top-level vdev a block's DVA names (an Extent's ``vdev``): its id among
        the root vdev's children (vdev_lookup_top()). ``vdevs`` holds the data vdevs in
        id order, but a log vdev or a hole added before a data vdev takes an id too, so
        the id is a position in ``vdevs`` only until then."""
        vdevs = self.vdevs
        if vdev_id < len(vdevs) and vdevs[vdev_id].id == vdev_id:
            return vdevs[vdev_id]
        for vdev in (*vdevs, *self.logs):
            if vdev.id == vdev_id:
                return vdev
        raise KeyError(f"no top-level vdev {vdev_id} in {self.name}")

    def top_ids(self) -> int:
        """One more than the highest id of a top-level vdev: the length of a list by id."""
        vdevs = self.vdevs
        if not self.logs and vdevs and vdevs[-1].id == len(vdevs) - 1:
            return len(vdevs)  # the usual pool: data vdevs only, ids 0, 1, ...
        return 1 + max((v.id for v in (*vdevs, *self.logs)), default=-1)

    def tops_by_id(self) -> list[TopVdev] | dict[int, TopVdev]:
        """The top-level vdevs to look up by id many times (top() once per lookup): the
        data vdevs themselves when their ids are their positions, else a dict."""
        vdevs = self.vdevs
        if vdevs and vdevs[-1].id == len(vdevs) - 1:
            return vdevs
        return {v.id: v for v in (*vdevs, *self.logs)}

    def held_metadata_extents(self) -> list[Extent]:
        """The blocks of metadata versions snapshots and clones keep."""
        return [e for extents in self.held_metadata.values() for e in extents]

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
        vdevs = self.vdevs
        # deflated_total() of the deferred frees on each vdev, summed as they are read:
        # their 512-byte sectors by vdev, times its deflate ratio.
        sectors = [0] * self.top_ids()  # by vdev id
        for _, extent in self.deferred:
            sectors[extent.vdev] += extent.length >> SPA_MINBLOCKSHIFT
        return (self.dalloc
                - sum([sectors[vdev.id] * vdev.deflate_ratio for vdev in vdevs])
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
        weighted = 0
        for vdev in self.vdevs:
            frag = vdev.fragmentation
            if frag is None:
                return None
            weighted += frag * vdev.space
        return weighted // space

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


Part = File | Run  # a unit of sharing: a file's own blocks, or one run of its records


def file_parts(file: File) -> list[Part]:
    """What the file's blocks are shared as: its runs (after a partial overwrite), each
    shared with the other versions of the file that hold it, and the file itself for the
    blocks only it has (all of them when it has no runs)."""
    return [*file.runs, *file.indirect_runs, file]


def part_extents(part: Part) -> list[Extent]:
    """The blocks (every copy) a part stands for."""
    if isinstance(part, Run):
        return part.extents
    if part.runs:
        shared = sum(len(r.extents) for r in part.indirect_runs)
        return part.extents[len(part.extents) - part.indirect_extents + shared:]
    return part.extents


def part_logical(part: Part) -> tuple[int, int]:
    """(logical, compressed) bytes the DSL counts for a part's blocks."""
    if isinstance(part, Run) or not part.runs:
        return part.logical, part.compressed
    shared = [*part.runs, *part.indirect_runs]
    return (part.logical - sum(r.logical for r in shared),
            part.compressed - sum(r.compressed for r in shared))


def held_parts(pool: Pool) -> set[int]:
    """Identities of the parts some dataset or snapshot of the pool holds."""
    return {id(part) for ds in pool.datasets.values()
            for files in (ds.files, *(s.files for s in ds.snapshots))
            for held in files.values()
            for part in file_parts(held)}

