"""Every behaviour and default the course touches that differs between OpenZFS releases.

The course teaches OpenZFS 2.3 (Debian 13's zfs-dkms 2.3.9) and says where 2.1 (Debian 12's
2.1.11) and 2.2 differ (the last 2.2 release, 2.2.11; Ubuntu 24.04 ships 2.2.2, and where
2.2.2 differs from 2.2.11 for something the course shows, the field says so). The source
posts measured ZFS on Linux 0.6.5, whose allocator had no write throttle and sized metaslabs
differently; it stays here so that a simulation can be run "as 0.6.5" and compared.

Each field says where its value comes from: a file and function of the OpenZFS source at the
release's tag (``git show zfs-2.3.9:module/zfs/metaslab.c``), or a measurement on real pools in
the lab VM (tests/fixtures/real/<release>/). The rest of labsim asks the ``ZfsVersion`` it was
given and never compares release names: a behaviour that differs is a field here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40


class MetaslabSizing(Enum):
    """vdev_metaslab_set_size() (module/zfs/vdev.c)."""

    # illumos and ZoL up to 0.7: "aim for roughly 200 metaslabs per vdev".
    AIM_FOR_200 = "aim-for-200"
    # OpenZFS 0.8 and every 2.x: prefer 512 MiB metaslabs, 16..200 of them, at most 16 GiB
    # each and at most 2^17 per vdev (zfs_vdev_{default_ms_shift,min_ms_count,
    # default_ms_count,max_ms_shift,ms_count_limit}; unchanged from 2.1.11 to 2.3.9).
    COUNT_BOUNDED = "count-bounded"


class AliquotScaling(Enum):
    """The n of mg_aliquot = metaslab_aliquot * MAX(1, n) in metaslab_group_activate()
    (module/zfs/metaslab.c)."""

    # Up to zfs-2.1.5: the top-level vdev's children (a 2-way mirror took 2 aliquots a turn).
    CHILDREN = "children"
    # From zfs-2.1.6 (the dRAID work's vdev_get_ndisks() - vdev_get_nparity()), 2.2 and 2.3:
    # data disks, so 1 for a mirror and children - parity for RAID-Z.
    DATA_DISKS = "data-disks"


class VdevListSize(Enum):
    """What `zpool list -v` prints as SIZE on the line of a single-device vdev."""

    # The device's size, vs_pspace (print_one_column() in cmd/zpool/zpool_main.c since the
    # 0.8 "zpool list -v" rework; measured on 2.1.11 and 2.3.9 in the lab VM).
    PHYSICAL = "physical"
    # The metaslab space, vs_space, as in the published 0.6.5 transcripts.
    ALLOCATABLE = "allocatable"


class ColumnWidths(Enum):
    """How zprop_width() (module/zcommon/zprop_common.c) sizes a column of `zpool list`,
    `zfs list` and `get`, before the values widen it."""

    # Up to 2.1: a number column is 5 wide (8 for 'health') and fixed, a string column is
    # not; the checks for creation and health compare the enum number without the
    # property's type, so pool 'size' (enum 1, like creation) is not fixed and dataset
    # 'referenced' (enum 4, like health) is 8 wide: the old "AVAIL     REFER" header.
    ENUM_COLLISIONS = "enum-collisions"
    # From 2.2.0 (a9a89755fa, "zprop_width: namespace exceptions"): health is 8 wide for
    # pools only, and a column is fixed unless registered flexible (pd_always_flex):
    # strings, index properties and a few numbers (creation, createtxg, guid, load_guid).
    FLEX_FLAGS = "flex-flags"


class ZilKstat(Enum):
    """The counters of /proc/spl/kstat/zfs/zil (zil_stats_t in include/sys/zil.h)."""

    # Up to 2.1: commits, log records by kind, log blocks and their used bytes per class.
    COUNTS = "counts"
    # From 2.2.0: also failed, stalled and suspended commits, and per class the bytes
    # written (the used bytes rounded up to 4K: "slim" log blocks write only what they
    # use) and allocated (the log block's size, zil_lwb_plan()).
    COUNTS_WRITE_ALLOC = "counts, write and alloc"


class MinSavings(Enum):
    """The least a block must shrink for ZFS to store it compressed."""

    # Up to 2.2 (zio_compress_data() in module/zfs/zio_compress.c): the compressed size
    # must be at most 7/8 of the block ("Compress at least 12.5%"), and after rounding up
    # to whole sectors smaller than the block.
    SEVEN_EIGHTHS = "7/8"
    # From 2.3.0 (zio_get_compression_max_size() in module/zfs/zio.c, 522f2629c8): the
    # 7/8 target is first rounded down to whole sectors (spa_gcd_alloc); below one sector
    # only an embedded block (BPE_PAYLOAD_SIZE) counts. Same as before where 1/8 of the
    # block is a whole number of sectors (128K records); stricter where it is not.
    SEVEN_EIGHTHS_IN_SECTORS = "7/8 in whole sectors"


class GroupFragmentation(Enum):
    """How metaslab_group_fragmentation() (module/zfs/metaslab.c) averages its metaslabs'
    fragmentation into a vdev's FRAG."""

    # Up to 2.3.0: the plain mean of the metaslabs with a valid metric; invalid (FRAG "-")
    # if at most half of them have one.
    MEAN = "mean"
    # From zfs-2.3.1 (f2ab5b82da "Fix metaslab group fragmentation math"): weighted by each
    # metaslab's free space; invalid if fewer than half have a metric or nothing is free.
    FREE_WEIGHTED = "free-weighted"


class VolblocksizeWidth(Enum):
    """The allocation width `zfs create -V` sizes a volume's default volblocksize for
    (default_volblocksize() in cmd/zfs/zfs_main.c: the smallest power of two from
    ZVOL_DEFAULT_BLOCKSIZE up that fills more than half of it)."""

    # Before default_volblocksize() (0.6.5): always ZVOL_DEFAULT_BLOCKSIZE, no warnings.
    FIXED = "fixed"
    # Read from the config's vdev tree (calculate_volblocksize()): a RAID-Z1 top-level
    # vdev's is two sectors, a RAID-Z2 or Z3's four, a mirror's or a disk's one.
    VDEV_TREE = "vdev-tree"
    # From the pool's ZPOOL_CONFIG_MAX_ALLOC when the config has it (2b0502c578, a 2.3
    # point release; zfs-2.3.9 has it): spa_max_alloc, the largest vdev_get_min_alloc(),
    # which is one sector for RAID-Z (vdev_raidz_ops has no vdev_op_min_alloc).
    MAX_ALLOC = "max-alloc"


# zfs_frag_table (module/zfs/metaslab.c): the fragmentation weight of free space by the size
# of its segment, from 512 B up. Up to 2.3.0 it lists 512 B .. 16 MiB (16 values; the table
# size FRAGMENTATION_TABLE_SIZE is 17, so 32 MiB and up weigh 0 too).
FRAG_TABLE_TO_16M = (100, 100, 98, 95, 90, 80, 70, 60, 50, 40, 30, 20, 15, 10, 5, 0, 0)
# From zfs-2.3.1 (2adca179b6 "Expand fragmentation table to reflect larger possible
# allocation sizes"): 512 B .. 512 MiB, 21 values, 0 only for 512 MiB runs.
FRAG_TABLE_TO_512M = (100, 99, 97, 93, 88, 83, 77, 71, 64, 57, 50, 43, 36, 29, 23, 17, 12,
                      7, 3, 1, 0)


@dataclass(frozen=True)
class MetaslabRules:
    """How a vdev chooses and gives up metaslabs, and how its FRAG is computed."""

    frag_table: tuple[int, ...]
    group_fragmentation: GroupFragmentation
    # metaslab_segment_may_passivate(): from zfs-2.3.1 (c2668b2d10 "Better fill empty
    # metaslabs") a metaslab whose largest free segment is more than 15/16 of its free
    # space is never given up early, so a fresh metaslab is filled to its end; before, it
    # was given up once its largest free segment fell zfs_metaslab_switch_threshold (2)
    # buckets, at about half full.
    fill_fresh_metaslabs: bool


METASLAB_RULES_2_1 = MetaslabRules(FRAG_TABLE_TO_16M, GroupFragmentation.MEAN, False)
METASLAB_RULES_2_3 = MetaslabRules(FRAG_TABLE_TO_512M, GroupFragmentation.FREE_WEIGHTED, True)


@dataclass(frozen=True)
class MetaBlock:
    """``count`` metadata blocks alike, each of ``lsize`` logical bytes, of which LZ4 leaves
    ``compressed`` bytes (what zio_compress_data() returns, its 4-byte header included;
    where it was measured with zdb at ashift 9, the physical size it showed there, an upper
    bound at 512-byte resolution), stored with ``copies`` DVAs. What one costs at a pool's
    ashift is labsim.zfs.metadata_blocks' business (the sector rounding of
    zio_write_compress())."""

    lsize: int
    compressed: int
    copies: int = 1
    count: int = 1
    # Which later txgs write this block of a new pool's MOS anew (labsim keeps it in place:
    # labsim.zfs.mos.mos_written_anew()): EACH_TXG, SCAN_SETUP or none.
    rewritten: str = ""


# MetaBlock.rewritten: every txg that changes the MOS rewrites the block (its objset_phys_t,
# the meta-dnode's indirect and dnode blocks, the config, the history's last block, the
# unflushed-txgs array, the log space maps' ZAP); a scan's setup rewrites it (the object
# directory, where dsl_scan_sync_state() keeps the scan's state: module/zfs/dsl_scan.c).
EACH_TXG = "each txg"
SCAN_SETUP = "scan setup"


@dataclass(frozen=True)
class MetadataBlocks:
    """The blocks a new pool holds right after ``zpool create`` and the first property
    changes: ``live`` ones, and ``deferred`` ones already freed but still allocated for
    TXG_DEFER_SIZE txgs (counted in ALLOC, not in USED). ``with_root_objset``: the root
    file system's objset (labsim.zfs.metadata_blocks.EMPTY_FILESYSTEM) is to be added to
    ``live``; without it, ``live`` includes it."""

    live: tuple[MetaBlock, ...]
    deferred: tuple[MetaBlock, ...]
    with_root_objset: bool = False


@dataclass(frozen=True)
class ZfsVersion:
    # "2.3": what `--zfs-version` and the page's selector name.
    name: str
    # What `zfs version` prints, e.g. 2.3.9 (the release whose source and recordings these
    # fields come from).
    release: str
    # What `zfs version` appends to the release: Debian's package revision ("zfs-2.3.9-0+deb13u1"
    # on Debian 13, "zfs-2.1.11-1" on Debian 12), or the upstream build's "1".
    package_release: str
    metaslab_sizing: MetaslabSizing
    # metaslab_aliquot (module/zfs/metaslab.c): bytes a vdev takes per turn of the rotor.
    metaslab_aliquot: int
    aliquot_scaling: AliquotScaling
    # The allocation throttle (OpenZFS 7090, ZoL 0.7; zio_dva_throttle_enabled): a vdev
    # whose queue of pending allocations is full is skipped, so faster vdevs take more of
    # a saturated stream.
    allocation_throttle: bool
    # spa_get_slop_space() (module/zfs/spa_misc.c): spa_slop_shift, spa_min_slop,
    # spa_max_slop (None: no cap, before 2.1).
    slop_shift: int
    min_slop: int
    max_slop: int | None
    # Bytes of dirty data per transaction group for a streaming writer. The allocator's
    # view of free space (vs_alloc) is only updated when a txg syncs, so the free-space
    # bias is recomputed once per txg (zfs_dirty_data_sync_percent = 20 of
    # zfs_dirty_data_max in module/zfs/dsl_pool.c; 64 MiB for the lab VM's memory).
    txg_bytes: int
    # The "compression" property's default: ZIO_COMPRESS_DEFAULT in include/sys/zio.h is
    # ZIO_COMPRESS_OFF up to 2.1 and ZIO_COMPRESS_ON ("on", which is lz4 in a pool with
    # the lz4_compress feature) from 2.2.0.
    default_compression: str
    compression_min_savings: MinSavings
    column_widths: ColumnWidths
    zil_kstat: ZilKstat
    # The longest O_SYNC write logged with its data in the record (WR_COPIED; longer ones
    # become WR_NEED_COPY, zfs_log_write()): zil_max_copied_data() in module/zfs/zil.c is
    # half a 128K log block less the headers up to 2.1, and at most zil_maxcopied = 7680
    # bytes from 2.2.0 (9be8ddfb3c). None: the 2.1 rule.
    zil_max_copied: int | None
    # The largest recordsize and volblocksize (the pool's maxblocksize, MIN(zfs_max_recordsize,
    # SPA_MAXBLOCKSIZE)): zfs_max_recordsize (module/zfs/dsl_dataset.c) is 1 MiB up to 2.1
    # and 16 MiB from 2.2.0 (f2330bd156), which also moves the error text's "to 1M" to
    # "to 16M".
    max_recordsize: int
    # ZVOL_DEFAULT_BLOCKSIZE (include/sys/fs/zfs.h): 8192 up to 2.1, 16384 from 2.2.0.
    default_volblocksize: int
    volblocksize_width: VolblocksizeWidth
    # Space the pool's own metadata (MOS, root dataset) takes at creation, per top-level
    # vdev: the estimate used where ``create_metadata`` is None. Measured in the lab VM.
    create_alloc_per_vdev: int
    vdev_list_size: VdevListSize
    # The heading line of a "logs"/"cache" class in `zpool list -v`: 2.1 prints the last
    # dash two spaces after DEDUP's, 2.2.0 (cdb3eb5aa4) under HEALTH.
    class_heading_dash_under_health: bool
    # Whether `zpool list -v` names a group with its id, "mirror-0", as `zpool status`
    # does (OpenZFS PR #13031, in 2.1 since 2.1.3) or "mirror".
    list_vdev_type_id: bool
    # The new pool's blocks by size (lifecycle.create_pool); None: ``create_alloc_per_vdev``
    # bytes on every vdev, the older estimate.
    create_metadata: MetadataBlocks | None = None
    metaslab_rules: MetaslabRules = METASLAB_RULES_2_1
    # The allocation throttle's pace (labsim.zfs.throttle): the blocks one top-level file
    # vdev (speed 1) completes per block the write pipeline issues while its queue is not
    # empty. A property of the machine the recordings were made on (file vdevs on the lab
    # VM's disk, its kernel and CPUs), not a tunable of OpenZFS; the queue depths are
    # OpenZFS's own (32, growing by one per completed write to 100, every txg). Calibrated
    # on the five-run bands of lab 1 (1 GiB + 256 MiB, then + 512 MiB), lab 3 (96 MiB into
    # 1 GiB + 4 GiB after an import) and the fill of 256 MiB + 1 GiB to ENOSPC
    # (tools/probes/model/lab15-fill-unequal.sh), with the txgs as real OpenZFS cuts them
    # near the end of space (labsim.zfs.write_path: dsl_dir_tempreserve_impl() closes a txg
    # once 24 times its dirty data reaches the quota's 33/32, so lab 1's txgs carry ~48 MiB,
    # fewer as it fills): on 2.1.11 (Debian 12 VM) 0.25 to 0.27 keeps all of them inside
    # their bands; on 2.3.9 (Debian 13 VM) 0.27 to 0.29 keeps lab 3 and the fill inside and
    # puts lab 1's third vdev ~15 % above its band (a known gap, tests/fidelity). With 64
    # MiB txgs throughout, as labsim cut them before, the two labs wanted 0.42 and 0.33.
    # A txg of 16 MiB stays with the rotor at either value, as in tuning seed 0097.
    write_completion_ratio: float = 0.26
    # spa_alloc_count, the allocators working side by side (module/zfs/spa_misc.c): 4 up to
    # 2.2 (spa_allocators); from 2.3.0 (645b833079) MAX(MIN(spa_num_allocators = 4,
    # boot_ncpus / spa_cpus_per_allocator = 4), 1), which is 1 on the 2-CPU lab VM.
    allocators_per_cpus: int = 0
    # Block cloning (the block_cloning feature, 2.2.0): `cp --reflink` and
    # copy_file_range() share blocks instead of copying them. 2.2.0 always cloned; 2.2.1
    # added the tunable zfs_bclone_enabled (module/zfs/zfs_vnops.c in later releases) at 0,
    # as a precaution after 2.2.0's data-corruption reports (479dca51c6), and it stays 0 in
    # every later 2.2 release; 2.3.0 sets it to 1.
    block_cloning_feature: bool = False
    bclone_enabled: bool = False
    # RAID-Z expansion (`zpool attach POOL raidzN-M NEWDEV`, the raidz_expansion feature):
    # 2.3.0 (vdev_raidz.c vdev_raidz_attach_check() and the reflow).
    raidz_expansion: bool = False
    # zstd's early abort (module/zstd/zfs_zstd.c zfs_zstd_compress_buf(), 2.2.0): a block
    # of 128K or more at zstd-3 or higher is stored uncompressed when neither LZ4 nor
    # zstd-1 would save 1/8 of it (zstd_earlyabort_pass = 1, labsim.zfs.compressors).
    zstd_early_abort: bool = False
    # The "relatime" property's default (module/zcommon/zfs_prop.c): off in 2.1, on from
    # 2.2.0 ("Enable relatime by default", fbc210fab2). It governs the atime of files read
    # (zpl_file_accessed()); directories follow the mount's relatime
    # (labsim.zfs.objset.root_dir_read).
    relatime_default: bool = False
    # `zdb -m`'s line for each top-level vdev names its metaslab shift from 2.3.6
    # (print_vdev_metaslab_header() in cmd/zdb/zdb.c, 411249498e: "\tvdev %10llu\t%s
    # metaslab shift %4llu"); 2.1.11 and 2.2.9 print "\tvdev %10llu   %s".
    zdb_prints_metaslab_shift: bool = False
    # Pool properties after 2.1's (zpool_prop_t in include/sys/fs/zfs.h, registered in
    # module/zcommon/zpool_prop.c): bcloneused/bclonesaved/bcloneratio in 2.2;
    # dedup_table_size, dedup_table_quota, dedupcached, last_scrubbed_txg in 2.3.
    pool_properties_added: frozenset[str] = frozenset()
    # Dataset properties after 2.1's (module/zcommon/zfs_prop.c): snapshots_changed and
    # prefetch in 2.2 (prefetch from 2.2.4: Ubuntu 24.04's 2.2.2 lacks it); volthreading,
    # direct and longname in 2.3.
    dataset_properties_added: frozenset[str] = frozenset()
    # Subcommands after 2.1's (command_table[] in cmd/zpool/zpool_main.c and
    # cmd/zfs/zfs_main.c): zpool prefetch and ddtprune in 2.3; zfs zone/unzone in 2.2,
    # zfs rewrite in 2.3 (from 2.3.4).
    zpool_subcommands_added: frozenset[str] = frozenset()
    zfs_subcommands_added: frozenset[str] = frozenset()
    # show_import() (cmd/zpool/zpool_main.c), the pools `zpool import` lists: up to 2.2 its
    # headings stand one column right of zpool status's ("   pool:", "     id:",
    # "  state:", " action:", " config:"; zfs-2.1.11 and zfs-2.2.11); from 2.3.0
    # (5137c132a5 "zpool import output is not formated properly") they line up with them
    # ("  pool:", "    id:", " state:", "action:", "config:"), as recorded on 2.3.9
    # (tests/fixtures/real/2.3.9/probes/lab15-rename-import.txt).
    import_headings_as_status: bool = False
    # Vdev properties and pool user properties (2.2.0, as cmd/zpool/zpool_main.c and
    # lib/libzfs/libzfs_pool.c read at zfs-2.2.0 and zfs-2.1.11): `zpool set PROP=VALUE
    # POOL [VDEV]` first asks whether POOL is a pool ("cannot open 'x': is
    # not a pool", exit EINVAL), takes up to two operands, and add_prop_list() calls an
    # unknown name "not a valid pool or vdev property"; user properties (module:name) may
    # be set on a pool (zpool_valid_proplist(), zfs_prop_user()).
    vdev_properties: bool = False


# Every property 2.1.11's tools accept by name (zprop_register_*() in module/zcommon/
# zfs_prop.c and zpool_prop.c at zfs-2.1.11; the hidden ones, which `get` does not list, are
# left out but "name"). Later releases add ``dataset_properties_added`` and
# ``pool_properties_added``; none was removed up to 2.3.9.
DATASET_PROPERTIES_2_1 = frozenset((
    "aclinherit", "aclmode", "acltype", "atime", "available", "canmount", "casesensitivity",
    "checksum", "clones", "compression", "compressratio", "context", "copies", "createtxg",
    "creation", "dedup", "defcontext", "defer_destroy", "devices", "dnodesize", "encryption",
    "encryptionroot", "exec", "filesystem_count", "filesystem_limit", "fscontext", "guid",
    "jailed", "keyformat", "keylocation", "keystatus", "logbias", "logicalreferenced",
    "logicalused", "mlslabel", "mounted", "mountpoint", "name", "nbmand", "normalization",
    "objsetid", "origin", "overlay", "pbkdf2iters", "primarycache", "quota", "readonly",
    "receive_resume_token", "recordsize", "redact_snaps", "redundant_metadata", "refcompressratio",
    "referenced", "refquota", "refreservation", "relatime", "reservation", "rootcontext",
    "secondarycache", "setuid", "sharenfs", "sharesmb", "snapdev", "snapdir", "snapshot_count",
    "snapshot_limit", "special_small_blocks", "sync", "type", "used", "usedbychildren",
    "usedbydataset", "usedbyrefreservation", "usedbysnapshots", "userrefs", "utf8only", "version",
    "volblocksize", "volmode", "volsize", "vscan", "written", "xattr", "zoned"
))
POOL_PROPERTIES_2_1 = frozenset((
    "allocated", "altroot", "ashift", "autoexpand", "autoreplace", "autotrim", "bootfs",
    "cachefile", "capacity", "checkpoint", "comment", "compatibility", "dedupratio", "delegation",
    "expandsize", "failmode", "fragmentation", "free", "freeing", "guid", "health", "leaked",
    "listsnapshots", "load_guid", "multihost", "name", "readonly", "size", "version"
))


# command_table[] of zpool and zfs at zfs-2.1.11 (zpool freeze is a hidden debugging command
# outside the table, which labsim models for the intent-log lesson).
ZPOOL_SUBCOMMANDS_2_1 = frozenset((
    "version", "create", "destroy", "add", "remove", "labelclear", "checkpoint", "list", "iostat",
    "status", "online", "offline", "clear", "reopen", "attach", "detach", "replace", "split",
    "initialize", "resilver", "scrub", "trim", "import", "export", "upgrade", "reguid", "history",
    "events", "get", "set", "sync", "wait"
))
ZFS_SUBCOMMANDS_2_1 = frozenset((
    "version", "create", "destroy", "snapshot", "rollback", "clone", "promote", "rename",
    "bookmark", "program", "list", "set", "get", "inherit", "upgrade", "userspace", "groupspace",
    "projectspace", "project", "mount", "unmount", "share", "unshare", "send", "receive", "allow",
    "unallow", "hold", "holds", "release", "diff", "load-key", "unload-key", "change-key",
    "redact", "wait", "jail", "unjail"
))


def zpool_subcommands(version: ZfsVersion) -> frozenset[str]:
    return ZPOOL_SUBCOMMANDS_2_1 | version.zpool_subcommands_added


def zfs_subcommands(version: ZfsVersion) -> frozenset[str]:
    return ZFS_SUBCOMMANDS_2_1 | version.zfs_subcommands_added


def dataset_property_names(version: ZfsVersion) -> frozenset[str]:
    """The dataset properties ``version``'s `zfs get` and `zfs set` know by name."""
    return DATASET_PROPERTIES_2_1 | version.dataset_properties_added


# zfs_userquota_prop_prefixes[] and zfs_prop_written() (module/zcommon/zfs_prop.c, the same
# in 2.1.11 and 2.3.9): property names made of a prefix and a user, group, project,
# snapshot or bookmark, which zprop_get_list() accepts for zfs get and zfs list -o.
USERQUOTA_PREFIXES = tuple(f"{who}{what}@" for who in ("user", "group", "project")
                           for what in ("used", "quota", "objused", "objquota"))
WRITTEN_PREFIXES = ("written@", "written#")


def is_userquota_property(name: str) -> bool:
    """zfs_prop_userquota(): userused@USER, groupquota@GROUP, projectobjused@ID..."""
    return name.startswith(USERQUOTA_PREFIXES)


def is_written_property(name: str) -> bool:
    """zfs_prop_written(): written@SNAPSHOT or written#BOOKMARK."""
    return name.startswith(WRITTEN_PREFIXES)


def release_at_least(version: ZfsVersion, major: int, minor: int) -> bool:
    """Whether ``version``'s release is ``major.minor`` or later (for options a release
    added, read from its getopt strings)."""
    found = tuple(int(part) for part in version.release.split(".")[:2])
    return found >= (major, minor)


def pool_property_names(version: ZfsVersion) -> frozenset[str]:
    """The pool properties ``version``'s `zpool get` and `zpool set` know by name."""
    return POOL_PROPERTIES_2_1 | version.pool_properties_added


def allocator_count(version: ZfsVersion, cpus: int) -> int:
    """spa_alloc_count for a machine with ``cpus`` CPUs."""
    if not version.allocators_per_cpus:
        return SPA_ALLOCATORS
    return max(min(SPA_ALLOCATORS, cpus // version.allocators_per_cpus), 1)


# spa_allocators (2.1, 2.2) and spa_num_allocators (2.3) in module/zfs/spa_misc.c.
SPA_ALLOCATORS = 4
# The lab VM's CPUs (vagrant/Vagrantfile, ZFL_VM_CPUS), which 2.3's allocator count follows.
LAB_VM_CPUS = 2


ZFS_0_6_5 = ZfsVersion(
    name="0.6.5",
    release="0.6.5.6",
    package_release="1",
    metaslab_sizing=MetaslabSizing.AIM_FOR_200,
    metaslab_aliquot=512 * KiB,
    aliquot_scaling=AliquotScaling.CHILDREN,
    allocation_throttle=False,
    slop_shift=5,
    min_slop=32 * MiB,  # SPA_MINDEVSIZE >> 1 in 0.6.5
    max_slop=None,
    txg_bytes=64 * MiB,  # zfs_dirty_data_sync = 64 MiB
    default_compression="off",
    compression_min_savings=MinSavings.SEVEN_EIGHTHS,
    column_widths=ColumnWidths.ENUM_COLLISIONS,
    zil_kstat=ZilKstat.COUNTS,
    zil_max_copied=None,
    max_recordsize=1 * MiB,
    default_volblocksize=8 * KiB,
    volblocksize_width=VolblocksizeWidth.FIXED,
    create_alloc_per_vdev=168 * KiB,
    vdev_list_size=VdevListSize.ALLOCATABLE,
    list_vdev_type_id=False,
    class_heading_dash_under_health=False,
)

# The blocks a new pool holds. Earlier a profile fitted to lab recordings at ashift 12
# (84 one-sector blocks and three 16K ones); now each release's MOS as zdb lists it, which
# holds at ashift 9 too. The 24 deferred blocks are the 2.1.11 mirror's 96K gap between
# ALLOC and USED right after creation (lab 2's recordings).
# The 2.1.11 pool's MOS right after `zpool create` and a `zpool sync`, read as the 2.3.9
# one below is (tests/fixtures/real/2.1.11/probes/lab15-mos-composition.txt): 81K at ashift
# 9 and 264K at ashift 12 on a 2-way mirror. Its feature ZAPs are smaller than 2.3's (fewer
# features); the rest is alike.
# The pool's history object after `zpool create` (2K a copy at ashift 9 on both releases,
# the records of the version, every feature enabled and the command line:
# labsim.zfs.history, which makes it grow with later commands).
SPA_HISTORY_AT_CREATION = MetaBlock(128 * KiB, 2 * KiB, copies=3, rewritten=EACH_TXG)
_CREATE_MOS_2_1 = (
    MetaBlock(4 * KiB, 512, copies=3, rewritten=EACH_TXG),  # the MOS's objset_phys_t
    MetaBlock(128 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),  # its meta-dnode's L1
    MetaBlock(16 * KiB, 1 * KiB, copies=3, count=4, rewritten=EACH_TXG),  # dnode blocks
    MetaBlock(16 * KiB, 2560, copies=3, rewritten=SCAN_SETUP),  # object directory (fat ZAP)
    MetaBlock(16 * KiB, 2 * KiB, copies=3, rewritten=SCAN_SETUP),
    MetaBlock(1536, 512, copies=3),                 # a feature ZAP (object 51)
    # The log space maps' ZAP (object 52: txg -> space map object, DMU_POOL_LOG_SPACEMAP_ZAP,
    # spa_generate_syncing_log_sm() in module/zfs/spa_log_spacemap.c): an entry comes and
    # goes with each log space map.
    MetaBlock(1536, 512, copies=3, rewritten=EACH_TXG),
    # Feature descriptions: 6K at ashift 9, three sectors a copy at ashift 12.
    MetaBlock(16 * KiB, 4608, copies=3),
    MetaBlock(16 * KiB, 1536, copies=3),
    MetaBlock(2 * KiB, 1 * KiB, copies=3),          # ZAP object 64
    SPA_HISTORY_AT_CREATION,
    MetaBlock(16 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),  # the config
    # The vdev's array of unflushed txgs (a uint64 object). The space maps are labsim's
    # own (labsim.zfs.txg.sync_space_maps): five after the create and a sync.
    MetaBlock(128 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),
)
_CREATE_METADATA_2_1 = MetadataBlocks(live=_CREATE_MOS_2_1,
                                      deferred=(MetaBlock(16 * KiB, 1 * KiB, count=24),),
                                      with_root_objset=True)

# The 2.3.9 pool's MOS right after `zpool create` and a `zpool sync`, object by object as
# `zdb -dd` and `zdb -bb` list them at ashift 9 on a 2-way mirror
# (tests/fixtures/real/2.3.9/probes/lab15-mos-composition.txt): each block's physical size
# there is the bytes LZ4 left of it, rounded up to 512, and every MOS block has three
# copies (SPA_DVAS_PER_BP; dmu_write_policy() gives the MOS spa_max_replication()).
# Objects that are micro ZAPs of a few entries (the DSL directories, props and child maps,
# snapshot and deadlist maps, the feature ZAPs' small ones, the vdev ZAPs, the object
# array) compress to BPE_PAYLOAD_SIZE or less and live embedded in their block pointers:
# they allocate nothing. Empty bpobjs are holes. At ashift 12 every block below rounds
# to one 4K sector (the recording shows the same objects at 12K, 24K and 36K with three
# copies), except those whose logical size is smaller, which are stored as they are.
_CREATE_MOS_2_3 = (
    MetaBlock(4 * KiB, 512, copies=3, rewritten=EACH_TXG),  # the MOS's objset_phys_t
    MetaBlock(128 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),  # its meta-dnode's L1
    # its dnode blocks (objects 0-159)
    MetaBlock(16 * KiB, 1 * KiB, copies=3, count=4, rewritten=EACH_TXG),
    MetaBlock(16 * KiB, 2560, copies=3, rewritten=SCAN_SETUP),  # object directory (fat ZAP)
    MetaBlock(16 * KiB, 2 * KiB, copies=3, rewritten=SCAN_SETUP),
    MetaBlock(2 * KiB, 1 * KiB, copies=3),          # a feature ZAP (object 51)
    MetaBlock(1536, 1 * KiB, copies=3, rewritten=EACH_TXG),  # the log space maps' ZAP
    # Feature descriptions (a fat ZAP): 6.5K at ashift 9 and 36K (three sectors a copy) at
    # ashift 12, so one of its two blocks compresses to more than 4K.
    MetaBlock(16 * KiB, 4608, copies=3),
    MetaBlock(16 * KiB, 2 * KiB, copies=3),
    MetaBlock(2560, 1 * KiB, copies=3),             # ZAP object 64
    SPA_HISTORY_AT_CREATION,  # grows with commands: labsim.zfs.history
    MetaBlock(16 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),  # the config, a packed nvlist
    # The vdev's array of unflushed txgs (a uint64 object). The five space maps the
    # recording shows besides (two metaslabs' and three log space maps, 128K blocks of a
    # few entries each, zfs_metaslab_sm_blksz_with_log) are labsim's own
    # (labsim.zfs.txg.sync_space_maps).
    MetaBlock(128 * KiB, 1 * KiB, copies=3, rewritten=EACH_TXG),
)
_CREATE_METADATA_2_3 = MetadataBlocks(live=_CREATE_MOS_2_3,
                                      deferred=(MetaBlock(16 * KiB, 1 * KiB, count=24),),
                                      with_root_objset=True)

ZFS_2_1 = ZfsVersion(
    name="2.1",
    release="2.1.11",
    package_release="1",
    metaslab_sizing=MetaslabSizing.COUNT_BOUNDED,
    # 1 MiB scaled by data disks since zfs-2.1.6 (metaslab.c at zfs-2.1.11:
    # "metaslab_aliquot = 1024 * 1024", mg_aliquot = metaslab_aliquot * MAX(1,
    # vdev_get_ndisks(vd) - vdev_get_nparity(vd))); 512 KiB by children up to 2.1.5.
    metaslab_aliquot=1 * MiB,
    aliquot_scaling=AliquotScaling.DATA_DISKS,
    allocation_throttle=True,
    slop_shift=5,
    min_slop=128 * MiB,  # spa_min_slop
    max_slop=128 * GiB,  # spa_max_slop
    txg_bytes=64 * MiB,
    default_compression="off",
    compression_min_savings=MinSavings.SEVEN_EIGHTHS,
    column_widths=ColumnWidths.ENUM_COLLISIONS,
    zil_kstat=ZilKstat.COUNTS,
    zil_max_copied=None,
    max_recordsize=1 * MiB,
    default_volblocksize=8 * KiB,
    volblocksize_width=VolblocksizeWidth.VDEV_TREE,
    create_alloc_per_vdev=176 * KiB,
    vdev_list_size=VdevListSize.PHYSICAL,
    list_vdev_type_id=True,
    class_heading_dash_under_health=False,
    create_metadata=_CREATE_METADATA_2_1,
)

# Each later release is the one before it with what changed: these two definitions are the
# course's changelog of the behaviour it teaches.
ZFS_2_2 = replace(
    ZFS_2_1,
    name="2.2",
    release="2.2.11",
    default_compression="on",
    column_widths=ColumnWidths.FLEX_FLAGS,
    zil_kstat=ZilKstat.COUNTS_WRITE_ALLOC,
    zil_max_copied=7680,
    max_recordsize=16 * MiB,
    default_volblocksize=16 * KiB,
    class_heading_dash_under_health=True,
    # Not recorded on 2.2: the new pool's metadata stays 2.1's profile, the nearest
    # measured one.
    block_cloning_feature=True,
    bclone_enabled=False,
    zstd_early_abort=True,
    relatime_default=True,
    pool_properties_added=frozenset({"bcloneused", "bclonesaved", "bcloneratio"}),
    dataset_properties_added=frozenset({"snapshots_changed", "prefetch"}),
    zfs_subcommands_added=frozenset({"zone", "unzone"}),
    vdev_properties=True,
)

ZFS_2_3 = replace(
    ZFS_2_2,
    name="2.3",
    release="2.3.9",
    package_release="0+deb13u1",
    compression_min_savings=MinSavings.SEVEN_EIGHTHS_IN_SECTORS,
    metaslab_rules=METASLAB_RULES_2_3,
    write_completion_ratio=0.28,
    allocators_per_cpus=4,  # spa_cpus_per_allocator
    bclone_enabled=True,
    raidz_expansion=True,
    zdb_prints_metaslab_shift=True,
    volblocksize_width=VolblocksizeWidth.MAX_ALLOC,
    pool_properties_added=ZFS_2_2.pool_properties_added | {
        "dedup_table_size", "dedup_table_quota", "dedupcached", "last_scrubbed_txg"},
    dataset_properties_added=ZFS_2_2.dataset_properties_added | {
        "volthreading", "direct", "longname"},
    zpool_subcommands_added=frozenset({"prefetch", "ddtprune"}),
    zfs_subcommands_added=ZFS_2_2.zfs_subcommands_added | {"rewrite"},
    import_headings_as_status=True,
    create_metadata=_CREATE_METADATA_2_3,
)

VERSIONS: dict[str, ZfsVersion] = {v.name: v for v in (ZFS_0_6_5, ZFS_2_1, ZFS_2_2, ZFS_2_3)}
# The version the course teaches, the page simulates first and the CI VM runs.
DEFAULT_VERSION = ZFS_2_3
# The versions the page's selector offers, newest first.
TAUGHT_VERSIONS = (ZFS_2_3, ZFS_2_2, ZFS_2_1)


def get_version(name: str) -> ZfsVersion:
    """A version by its name ("2.3") or a release of it ("2.3.9")."""
    for version in VERSIONS.values():
        if name in (version.name, version.release) or name.startswith(version.name + "."):
            return version
    known = ", ".join(sorted(VERSIONS))
    raise ValueError(f"unknown OpenZFS version {name!r} (known: {known})")
