"""A pool's life as ``zpool`` changes it: create, add and remove vdevs, attach a child
to a RAID-Z vdev, freeze, export and import."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import replace

from labsim.zfs import dtl_resilver, mos_dnodes, raidz_expansion, spacemaps
from labsim.zfs.held_metadata import sync_held_metadata
from labsim.zfs.layouts import RAIDZ, Layout
from labsim.zfs.metadata_blocks import (
    EMPTY_FILESYSTEM,
    UNFLUSHED_TXGS_BLOCK,
    block_psize,
    copy_psizes,
)
from labsim.zfs.metaslab import allocator_for
from labsim.zfs.mos import (
    mark_mos_changed,
    mos_rewritten,
    mos_written_anew,
    vdev_zap_map_block,
    vdev_zaps_added,
    zpl_features,
)
from labsim.zfs.objset import child_mounted, objsets_reopened
from labsim.zfs.pool import (
    TXG_CONCURRENT_STATES,
    TXG_DEFER_SIZE,
    Dataset,
    Extent,
    LogRecord,
    Pool,
)
from labsim.zfs.raidz_expansion_state import Expansion, Geometry
from labsim.zfs.txg import advance_txg, charge_space_maps
from labsim.zfs.vdevs import Leaf, TopVdev, VdevSpec, build_vdev, metadata_allocation
from labsim.zfs.versions import EACH_TXG, SCAN_SETUP, SPA_HISTORY_AT_CREATION, ZfsVersion
from labsim.zfs.write_path import write_file


def create_pool(
    name: str, devices: list[VdevSpec | tuple[str, int]], version: ZfsVersion, ashift: int = 9
) -> Pool:
    """A new pool striped over top-level vdevs: each a VdevSpec (mirror, RAID-Z or a
    single device) or a plain (path, size in bytes) for a single device."""
    vdevs = [build_vdev(i, spec, ashift, version) for i, spec in enumerate(devices)]
    root = Dataset(name, sa_settled=False)  # its SA layouts: labsim.zfs.snapshots
    pool = Pool(name=name, version=version, vdevs=vdevs, datasets={name: root})
    profile = version.create_metadata
    if profile is None:
        for vdev in vdevs:
            vdev.take(metadata_allocation(vdev, version.create_alloc_per_vdev))
        return pool
    # The new pool's blocks over the top-level vdevs: metadata has ditto copies, and
    # metaslab_alloc_dva() (module/zfs/metaslab.c, 2.1.11 and 2.3.9) puts a block's first
    # copy on its allocator's rotor and each further copy on the vdev after the previous
    # copy's, so a pool of two vdevs shows about half on each (2.1.11: 244K and 236K in
    # lab 1). Each block is an object of the MOS (objset 0) and hashes to an allocator
    # (zio_dva_throttle()). metaslab_group_activate() leaves allocator i's rotor i vdevs
    # after the last one activated, and the create's few hundred K do not move a rotor
    # past its aliquot. A third copy that lands on a vdev already holding one goes to
    # that allocator's secondary metaslab (metaslab_group_alloc_normal():
    # METASLAB_WEIGHT_SECONDARY). 2.3 on the lab VM's two CPUs has one allocator
    # (spa_cpus_per_allocator), so every block starts on the last vdev: a new pool of
    # two mirrors at ashift 12 wrote one metaslab of the first and two of the second
    # (tests/fixtures/real/2.3.9/probes/lab15-two-mirrors-mos.txt). 2.1's four
    # allocators start their blocks on every vdev in turn.
    turn = block_turn = allocator = start = 0
    on_vdev: dict[int, int] = {}  # copies of the current block on each vdev
    rule = version.compression_min_savings
    live = [*profile.live, *(EMPTY_FILESYSTEM if profile.with_root_objset else ())]
    if profile.with_root_objset and len(vdevs) > 1:
        # The profile is a one-vdev pool's. Each further top-level vdev has its own array
        # of its metaslabs' unflushed txgs (VDEV_TOP_ZAP_MS_UNFLUSHED_PHYS_TXGS, a uint64
        # object of one 128K block, metaslab_sync() in module/zfs/metaslab.c): 2.1.11 showed
        # one block more (three copies) for two single files than for one, at ashift 9 and
        # 12. How many space maps and log space maps live besides varies by a block or two.
        live.append(replace(UNFLUSHED_TXGS_BLOCK, count=len(vdevs) - 1))
    if profile.with_root_objset:
        # The profile's pool has few vdevs, and its map of their ZAPs lives in its block
        # pointer; one of more vdevs has a block of it (labsim.zfs.mos.vdev_zap_map_block).
        map_block = vdev_zap_map_block(pool)
        if map_block is not None:
            live.append(map_block)
            pool.vdev_zap_map_psize = block_psize(map_block, pool.min_ashift, rule)
        # The accounting features it activates on the root (the upgrade task below) fit
        # in the root's dsl_dataset object's block pointer (labsim.zfs.mos).
        root.active_features = zpl_features(pool)
    replaced: list[Extent] = []  # blocks the create's txgs write and free again
    for blocks, deferred in ((live, False), (profile.deferred, True)):
        for psize, copy, block in copy_psizes(blocks, pool.min_ashift, rule, with_copy=True):
            turn += 1
            if copy == 0:
                block_turn = turn
                on_vdev.clear()
                allocator = allocator_for(0, block_turn, 0, 0, pool.allocators)
                start = (len(vdevs) - 1 + allocator) % len(vdevs)
            vdev = vdevs[(start + copy) % len(vdevs)]
            # A block's copies hash to one allocator; a second and third copy on the same
            # vdev go to other metaslabs (metaslab_group_alloc_normal(): SECONDARY, CLAIM).
            role = on_vdev.get(vdev.id, 0)
            on_vdev[vdev.id] = role + 1
            asize = vdev.psize_to_asize(psize)
            pieces = vdev.take(asize, allocator=allocator,
                               secondary=role == 1, claim=role >= 2)
            read = vdev.read_bytes(psize) if len(pieces) == 1 else 0
            for offset, length in pieces:
                extent = Extent(vdev.id, offset, length, read=read, dvas=block.copies)
                if deferred:
                    replaced.append(extent)
                else:
                    pool.metadata.append(extent)
                    if block.rewritten == EACH_TXG:
                        pool.mos_churn.append(extent)
                    elif block.rewritten == SCAN_SETUP:
                        pool.mos_directory.append(extent)
    if profile.with_root_objset:
        # Every block of the new pool but the root objset's (dataset metadata, two copies)
        # belongs to the MOS.
        pool.mos_physical = sum(block_psize(b, pool.min_ashift, rule) * b.count
                                for b in live if b not in EMPTY_FILESYSTEM)
        pool.history_psize = block_psize(SPA_HISTORY_AT_CREATION, pool.min_ashift, rule)
    # spa_create() waits for its txg (TXG_INITIAL) to sync: its metaslabs get space maps
    # and the txg its log space map, whose MOS blocks labsim.zfs.txg adds.
    advance_txg(pool)
    # `zpool create` then mounts the root file system, and dmu_objset_own() finds its
    # objset without the user-object and project accounting flags: spa_create() made it
    # (dsl_pool_create()) before it enabled those features (spa_sync_props()). So it
    # starts dmu_objset_id_quota_upgrade() (module/zfs/dmu_objset.c, 2.1.11 and 2.3.9),
    # a task that dirties the objset, activates both features on the root dataset (zdb:
    # their refcount is 1) and waits for the txgs to sync; the command's history record
    # goes to the open txg. zdb -m after a create and a sync shows log space maps of txgs
    # 4, 5 and 6 and metaslabs flushed in 5 and 6 (tests/fixtures/real/*/probes/
    # lab15-mos-growth.txt), and right after the command ALLOC already holds their space
    # maps and still holds the blocks they replaced (back TXG_DEFER_SIZE txgs later):
    # labsim syncs two txgs that change the MOS as part of the create, the second
    # freeing the creation's replaced blocks.
    for _ in range(2):
        mark_mos_changed(pool)
        advance_txg(pool)
    pool.deferred.extend((pool.txg - 1, extent) for extent in replaced)
    if profile.with_root_objset:
        mos_dnodes.start(pool)  # the profile holds the creation's objects
    return pool


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
    sync_held_metadata(pool)
    for extent in (e for _, e in pool.deferred):
        pool.top(extent.vdev).release(extent.offset, extent.length)
    pool.deferred = []
    pool.txg += TXG_DEFER_SIZE + 1
    spacemaps.flush_all([v.metaslabs for v in pool.vdevs], pool.txg, pool.space_maps)
    charge_space_maps(pool)  # every metaslab's space map written, one log space map left
    return pool


# The txgs of spa_load() that change the MOS: the vdev configuration's and the "import"
# history record's (import_pool()).
IMPORT_MOS_TXGS = 2


def import_pool(pool: Pool) -> None:
    """spa_import(): the metaslabs are loaded anew, none active, so each allocator picks
    again, from the weights on disk (fresh metaslabs first). Import writes a few txgs,
    two of which change the MOS. Async tasks start again at the end
    (spa_async_resume(): labsim.zfs.dtl_resilver)."""
    pool.rotor.restart()  # metaslab_group_activate() of each group: rotors start anew
    for vdev in pool.vdevs:
        vdev.allocators.passivate_all()
        for ms in vdev.metaslabs:
            ms.activation_index = 0
    # spa_load() of a writable pool syncs txgs before `zpool import` returns, and two of
    # them write the MOS (the vdev configuration, spa_config_update(); the "import"
    # history record, spa_history_log_version(): module/zfs/spa.c, 2.1.11 and 2.3.9), so
    # each has a log space map of its own. Recorded on 2.3.9
    # (tests/fixtures/real/2.3.9/probes/lab15-import-mos.txt, zdb -m): after an export in
    # txg 21 the imported pool shows log space maps of txgs 21, 23 and 25, and its MOS one
    # block larger than before the export, in both runs.
    for _ in range(IMPORT_MOS_TXGS):
        pool.txg += 1  # a txg of the import's that writes nothing of its own
        mos_rewritten(pool)
        advance_txg(pool)
    mos_written_anew(pool)
    # zil_replay() when each dataset is mounted: every logged write is made again.
    records, pool.replay_log = pool.replay_log, []
    for record in records:
        dataset = pool.datasets.get(record.dataset)
        # Without a log header on disk there is no chain to replay: a log started after
        # the freeze was never reachable (zil_claim() finds nothing).
        if dataset is not None and dataset.log_exists:
            write_file(pool, dataset, record.name, record.nbytes, record.content)
            dataset.files[record.name].mtime = record.mtime
    objsets_reopened(pool)
    dtl_resilver.resume(pool)
    # zpool_enable_datasets() (lib/libzfs/libzfs_mount.c, 2.1.11 and 2.3.9) mounts every
    # file system, parents first; zfs_mount_at() makes a mountpoint that is missing
    # (mkdirp()): one a rollback of the parent took away while the child stayed mounted.
    # Export took none away: zpool_disable_datasets() unmounts every file system before
    # remove_mountpoint() rmdirs, so a child's mountpoint is looked up where the parent
    # was mounted, not in the parent.
    for name in sorted(pool.datasets):
        if "/" in name and pool.datasets[name].properties.get("type") != "volume":
            child_mounted(pool, name)


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
    vdev_zaps_added(pool)


def add_log_vdevs(pool: Pool, devices: list[VdevSpec | tuple[str, int]], ashift: int = 9) -> None:
    """zpool add POOL log DEV...: new top-level vdevs of the log class. They are cut
    into metaslabs like any vdev (vdev_metaslab_set_size()) and hold no data until the
    intent log writes to them."""
    start = next_vdev_id(pool)
    new = [build_vdev(start + i, spec, ashift, pool.version) for i, spec in enumerate(devices)]
    pool.logs.extend(new)
    pool.root_children = start + len(new)
    vdev_zaps_added(pool)
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


# ---------------------------------------------------------------- RAID-Z expansion


def attach_raidz_child(pool: Pool, vdev: TopVdev, path: str, size: int, now: float) -> Expansion:
    """spa_vdev_attach() onto a RAID-Z vdev (the caller checked the device): wait for the
    youngest txgs and their deferred frees, add the child, start the expansion in the
    next txg and wait for that txg to sync."""
    for _ in range(TXG_CONCURRENT_STATES + TXG_DEFER_SIZE):
        advance_txg(pool)
    if vdev.geometry is None:
        vdev.geometry = Geometry(original_width=len(vdev.leaves), txg=pool.txg)
    old_children = len(vdev.leaves)
    vdev.leaves.append(Leaf(path, size))
    vdev.layout = Layout(RAIDZ, len(vdev.leaves), vdev.layout.nparity)
    vdev_zaps_added(pool)  # the new child's ZAP
    expansion = Expansion(vdev=vdev.id, start_time=now, attach_txg=pool.txg,
                          reflow_end=len(vdev.metaslabs) << vdev.ms_shift,
                          old_children=old_children)
    pool.expansion = expansion
    advance_txg(pool)  # vdev_raidz_attach_sync(); spa_vdev_exit() waits for it
    return expansion


def wait_for_expansion(pool: Pool, limit: int = 100_000) -> None:
    """zpool wait -t raidz_expand: txgs sync until the expansion is done (the waiters are
    woken by raidz_reflow_complete_sync(), in the completion txg)."""
    for _ in range(limit):
        if not raidz_expansion.expanding(pool):
            return
        advance_txg(pool)
    raise RuntimeError("RAID-Z reflow did not finish")  # a labsim bug, not a ZFS state
