"""A dataset's own objset: its blocks (labsim.zfs.metadata_blocks), how many copies they
have, and keeping what the pool has allocated for them in step with them.

**Copies.** Metadata gets one copy more than the dataset's ``copies`` says, at most three
(dmu_write_policy() in module/zfs/dmu.c, 2.3.9 and 2.1.11: ``copies++`` for metadata under
the default redundant_metadata=all, then MIN(copies, spa_max_replication())). What counts
is the value when the block is written:

* ``zfs create -o copies=N`` creates the objset first (dmu_objset_create()) and sets the
  ``-o`` properties afterwards, in a txg of their own (zfs_ioc_create() calls
  zfs_set_prop_nvlist() after dmu_objset_create(), module/zfs/zfs_ioctl.c). The new
  objset's blocks are written with the copies it inherits from its parent.
* The blocks written once at creation (the ZPL master node, the SA registration and
  layouts) keep that number. The objset block, the meta-dnode's indirect blocks and the
  dnode blocks are rewritten by every change to the file system (a file written or
  removed, a child's mountpoint directory made or removed in it) and take the copies of
  that moment.

**Mountpoints.** `zfs create` mounts the new file system on a directory it makes in its
parent's (zfs_mount(), lib/libzfs/libzfs_mount.c); `zfs destroy` removes it again. The
directory is an object of the parent's objset and an entry in its root directory. Which
object: dmu_object_alloc_impl() (module/zfs/dmu_object.c) hands each CPU its own chunk
of 128 object numbers (dmu_object_alloc_chunk_shift), so a directory made on the CPU that
made the first lands beside it in the first dnode block, and one made on another CPU in a
dnode block of another chunk: a block more, a sector more in each copy. Which CPU runs
`zfs create` is chance (the lab VM has two); labsim puts the first mountpoint directory
made since the objset was opened in the first chunk and the later ones in a second, the
likelier outcome with two CPUs once there are two or more. Opening the objset (a pool
import, a rollback) forgets the chunks (objsets_reopened()). Recorded: the root of lab 6
went from 96K to 104K with its second child at ashift 12 (2.3.9 every run, 2.1.11 three
runs of four); this probe's root with five children holds one sector more a copy at
ashift 9.

Recorded on 2.3.9 at ashift 9 on one disk (tests/fixtures/real/2.3.9/probes/
lab15-dataset-metadata.txt): a file system made with ``-o copies=2`` and left alone holds
24K like any other; one made so, in which a child's mountpoint directory was then made,
31K (its meta-dnode at 19.5K, three copies of 6.5K; the master node and SA tables at two
copies); its child, which inherits copies=2, 36K (everything three times); the pool's
root with five mountpoint directories 25K, a sector more in each copy of its first dnode
block than an empty file system's 24K.
"""

from __future__ import annotations

from collections import Counter

from labsim.zfs.metadata_blocks import (
    EMPTY_FILESYSTEM,
    ObjsetCopies,
    copy_psizes,
    filesystem_blocks,
    volume_blocks,
)
from labsim.zfs.mos import deadlist_insert, mos_rewritten
from labsim.zfs.pool import Dataset, Extent, File, Pool, Snapshot, property_value
from labsim.zfs.records import SPA_DVAS_PER_BP
from labsim.zfs.versions import MetaBlock


def metadata_copies(pool: Pool, dataset: Dataset) -> int:
    """Copies a metadata block of ``dataset`` written now gets."""
    copies = int(str(property_value(pool, dataset, "copies")[0]))
    return min(copies + 1, SPA_DVAS_PER_BP)


def at_creation(pool: Pool, name: str) -> int:
    """Copies of a new objset's blocks: from the copies it inherits, not its own ``-o``."""
    return metadata_copies(pool, Dataset(name))


def is_volume(dataset: Dataset) -> bool:
    return dataset.properties.get("type") == "volume"


def child_mounted(pool: Pool, name: str) -> None:
    """A file system ``name`` was mounted in its parent: the directory of its mountpoint is
    made there if it is missing (Dataset.mountpoint_dirs)."""
    parent = pool.datasets.get(name.rsplit("/", 1)[0])
    short = name.rsplit("/", 1)[-1]
    if parent is not None and short not in parent.mountpoint_dirs:
        parent.mountpoint_dirs.append(short)
        if parent.mkdirs_since_open:
            parent.mountpoint_other_chunk.append(short)
        parent.mkdirs_since_open += 1
        objset_changed(pool, parent)


def child_unmounted(pool: Pool, name: str) -> None:
    """A file system ``name`` was destroyed: its mountpoint's directory goes."""
    parent = pool.datasets.get(name.rsplit("/", 1)[0])
    short = name.rsplit("/", 1)[-1]
    if parent is not None and short in parent.mountpoint_dirs:
        parent.mountpoint_dirs.remove(short)
        if short in parent.mountpoint_other_chunk:
            parent.mountpoint_other_chunk.remove(short)
        objset_changed(pool, parent)


def objsets_reopened(pool: Pool) -> None:
    """The pool was imported: every objset is opened anew, its CPUs' chunks of object
    numbers forgotten (dmu_objset_open_impl() allocates os_obj_next_percpu zeroed and
    os_obj_next_chunk starts at 0, module/zfs/dmu_objset.c, 2.1.11 and 2.3.9), so the
    next object made, on whichever CPU, takes a free number of the first chunk
    (dmu_object_alloc_impl(), module/zfs/dmu_object.c). Recorded: a root whose child's
    mountpoint directory was made before an export and a clone's after the import keeps
    one dnode block of them at ashift 12 (generated seeds 52 and 55, 2.1.11 and
    2.3.9)."""
    for dataset in pool.datasets.values():
        dataset.mkdirs_since_open = 0


def mountpoint_chunks(objset: Dataset | Snapshot) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The objset's mountpoint directories in the first chunk of object numbers and in
    another CPU's."""
    other = objset.mountpoint_other_chunk
    return (tuple(d for d in objset.mountpoint_dirs if d not in other),
            tuple(d for d in objset.mountpoint_dirs if d in other))


def root_dir_read(pool: Pool, dataset: Dataset) -> None:
    """The file system's root directory was read (readdir, `ls`): the VFS updates its
    atime (iterate_dir() in Linux's fs/readdir.c calls file_accessed(), touch_atime() then
    the file system's dirty_inode, zpl_dirty_inode() -> zfs_dirty_inode() in
    module/os/linux/zfs/zfs_vnops_os.c, 2.1.11 and 2.3.9: the new atime goes into the
    directory's system attributes, so its dnode block, and with it the objset's root
    blocks, are rewritten at the next sync; labsim.zfs.snapshots counts that as the "dir"
    group). With atime=off (mounted noatime) nothing is written. Otherwise the kernel's
    relatime rule decides (relatime_need_update(), fs/inode.c): Linux mounts relatime
    unless told strictatime, which `zfs mount` never passes (its "norelatime" is only a
    comment to the kernel, lib/libzfs/os/linux/libzfs_mount_os.c), so whatever the
    "relatime" property says (it governs file reads, zpl_file_accessed()), a directory's
    atime is written only when it is not newer than its mtime: at the first read after the
    directory was made, or after a name was made or removed in it. labsim compares the
    names, so a name removed and made again is missed, and it has no clock for the
    day-old rule."""
    if is_volume(dataset) or str(property_value(pool, dataset, "atime")[0]) == "off":
        return
    names = frozenset([*dataset.files, *dataset.mountpoint_dirs])
    if dataset.root_dir_atime_names == names:
        return
    dataset.root_dir_atime_names = names
    dataset.root_dir_atime_writes += 1


def objset_blocks(pool: Pool, dataset: Dataset,
                  copies: ObjsetCopies | None = None) -> tuple[MetaBlock, ...]:
    """The dataset's objset blocks, at its copies (or ``copies``)."""
    copies = copies or ObjsetCopies(dataset.created_metadata_copies,
                                    dataset.changed_metadata_copies,
                                    dataset.sa_layouts_copies)
    if is_volume(dataset):
        return volume_blocks(copies)
    first, other = mountpoint_chunks(dataset)
    return filesystem_blocks(dataset.files, copies, first, other,
                             [znode_kind(f) for f in dataset.files.values()])


def znode_kind(file: File) -> str:
    """What the file's dnode points at (labsim.zfs.dnode_contents.KINDS): nothing yet,
    only holes, a block embedded in the pointer, a data block, or an indirect block."""
    if file.size == 0:
        return "empty"
    if not file.extents:  # nothing allocated: holes, or one block in its pointer
        return "embedded" if file.logical else "hole"
    return "indirect" if file.levels > 1 else "block"


def file_removed(pool: Pool, dataset: Dataset, file: File) -> None:
    """``file`` was removed from ``dataset`` (unlinked: its dnode freed in its dnode block,
    its name removed from the directory). Where a snapshot or an origin could tell, the
    removal is noted (Dataset.removed_files) for labsim.zfs.snapshots."""
    if dataset.snapshots or dataset.destroyed_snapshots or dataset.origin is not None:
        dataset.removed_files.append((file, pool.txg))
    objset_changed(pool, dataset)


def objset_changed(pool: Pool, dataset: Dataset) -> None:
    """Something in ``dataset`` changed: the blocks every change rewrites are written
    with the copies the dataset's ``copies`` gives now, and the pool's allocation follows
    the objset's blocks (sync_objset())."""
    dataset.changed_metadata_copies = metadata_copies(pool, dataset)
    if not dataset.sa_settled:
        # The pool's root file system registers a new SA layout with its first file or
        # directory (Dataset.sa_settled): the SA layouts are written with the copies the
        # dataset's metadata has now.
        dataset.sa_layouts_copies = dataset.changed_metadata_copies
    dataset.sa_settled = True
    dataset.unsynced_changes = True
    sync_objset(pool, dataset)
    deadlist_insert(pool, dataset)  # what the change frees, a snapshot may still hold


def txg_synced(pool: Pool) -> None:
    """The pool's open txg synced (`zpool sync`, or a sync task: dsl_sync_task() waits
    for it): the itxs of the changes before it are dropped (zil_clean())."""
    for dataset in pool.datasets.values():
        dataset.unsynced_changes = False


def sync_task_synced(pool: Pool) -> None:
    """A sync task ran in the open txg and dsl_sync_task() waited for that txg to sync:
    the task changed the MOS (a dsl_dataset, dsl_dir or property ZAP at least), so the
    txg writes and its metaslabs change (labsim.zfs.mos.mos_rewritten), and what
    txg_synced() does follows."""
    mos_rewritten(pool)
    txg_synced(pool)


def commit_at_close(pool: Pool) -> None:
    """zil_close() as the pool's file systems are unmounted for export: zil_commit(zilog,
    0) writes what itxs are still in memory to the log (module/zfs/zil.c, 2.1.11 and
    2.3.9), so a file system changed since the last txg sync labsim knows of now has a
    log chain, and its ZIL header stays non-zero: zil_sync() leaves zh_log at the chain's
    next block, and after the import zil_replay() without records to replay calls
    zil_destroy(zilog, B_TRUE), which keeps a first block (zil_init_log_chain()). Only
    dsl_dataset_zero_zil() clears it (labsim.zfs.snapshots.zero_zil).

    Only the first file system in unmount order can get one, changed or not:
    zpool_disable_datasets() unmounts by mountpoint in reverse order (mountpoint_compare(),
    lib/libzfs/libzfs_mount.c), and every zil_commit() assigns a TX_COMMIT itx to the open
    txg (zil_commit_itx_assign()), which dirties the log in that txg (zil_itx_assign(),
    zilog_dirty() raising zl_dirty_max_txg), so zil_close() then waits for the open txg to
    sync. That sync carries every other file system's changes, zil_clean() drops their
    itxs, and their own commits find nothing to write. A file system with sync=disabled
    commits nothing (zil_commit() returns at once) and waits only if it has changes of its
    own (its zl_dirty_max_txg), so the next one in order may still be first. Recorded on
    2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-zil-header-kinds.txt, two runs): of
    five file systems, each changed alone before an export of its own (a small write, a
    128K write, a removal, a mkdir, a child's mountpoint), only the one first in unmount
    order kept a ZIL header, and only its clone owned an objset block. labsim has no
    clock for the txg timeout (zfs_txg_timeout, 5 s): a change followed by seconds of
    commands that sync nothing counts as unsynced."""
    mounted = [d for d in pool.datasets.values() if not is_volume(d)]
    for dataset in sorted(mounted, key=lambda d: "/" + d.name, reverse=True):
        if str(property_value(pool, dataset, "sync")[0]) == "disabled":
            if dataset.unsynced_changes:
                break
            continue
        if dataset.unsynced_changes:
            dataset.log_exists = True
        break
    for dataset in pool.datasets.values():
        dataset.unsynced_changes = False


def sync_objset(pool: Pool, dataset: Dataset) -> None:
    """Allocate what the objset's blocks take beyond what is allocated for them, and free
    what they no longer take. The copies go to one vdev after another, from the one with
    most free space (metaslab_alloc_dva() puts each DVA of a block on the vdev after the
    previous one's, module/zfs/metaslab.c), wherever a vdev gives a block the size the
    first one does. The root's first blocks are part of the new pool's metadata
    (labsim.zfs.lifecycle); a clone's are its origin's until it diverges, and what
    it rewrites then is allocated when the pool syncs (labsim.zfs.held_metadata)."""
    if dataset.origin is not None:
        return
    rule = pool.version.compression_min_savings
    order = sorted(pool.vdevs, key=lambda v: -v.free)
    vdev = order[0]
    psizes = copy_psizes(objset_blocks(pool, dataset), vdev.ashift, rule)
    wanted = Counter(vdev.psize_to_asize(p) for p in psizes)
    psize_of = {vdev.psize_to_asize(p): p for p in psizes}
    if dataset.name == pool.name:
        wanted -= Counter(vdev.psize_to_asize(p) for p in
                          copy_psizes(EMPTY_FILESYSTEM, vdev.ashift, rule))
    held = Counter(e.length for e in dataset.objset_extents)
    for asize, count in (held - wanted).items():
        for _ in range(count):
            extent = next(e for e in reversed(dataset.objset_extents) if e.length == asize)
            dataset.objset_extents.remove(extent)
            pool.top(extent.vdev).release(extent.offset, extent.length)
    turn = 0
    for asize, count in (wanted - held).items():
        psize = psize_of[asize]
        for _ in range(count):
            target = order[turn % len(order)]
            turn += 1
            if target.psize_to_asize(psize) != asize or target.free < asize:
                target = vdev
            if target.free < asize:
                return
            for offset, length in target.take(asize):
                dataset.objset_extents.append(Extent(target.id, offset, length,
                                                     dvas=dataset.changed_metadata_copies))


def logs_claimed(pool: Pool, replayed: set[str]) -> None:
    """The pool was imported: each file system whose ZIL header is not zero has its log
    claimed (zil_claim() sets zh_claim_txg and dirties the dataset) and, when mounted,
    replayed: with records to replay (``replayed``: their datasets) zil_replay() ends
    with zil_destroy(zilog, B_FALSE), which clears the header; without, zil_destroy(zilog,
    B_TRUE) starts a new chain from the first block (module/zfs/zil.c, 2.1.11 and 2.3.9).
    Either way the objset block is written again, and a snapshot taken before the export
    keeps the old one as its own."""
    for dataset in pool.datasets.values():
        if not dataset.log_exists:
            continue
        if dataset.name in replayed:
            dataset.log_exists = False  # the replayed writes rewrote the objset anyway
        else:
            dataset.objset_block_rewrites += 1
