"""Block cloning: the block reference table (BRT) of OpenZFS 2.2 and later.

Cloning a file (``cp --reflink``, or a plain ``cp`` through copy_file_range()) does not copy
its data: zfs_clone_range() (module/zfs/zfs_vnops.c) reads the source's level-0 block
pointers (dmu_read_l0_bps()) and writes them into the new file (dmu_brt_clone()), whose
own indirect blocks are new. Each data block so shared gets an entry in the BRT
(module/zfs/brt.c), keyed by its first DVA (vdev and offset), that counts the *extra*
references: the original pointer is not counted (bre_count).

* brt_vdev_addref(): a reference adds the block's dsize (bp_get_dsize(), every copy,
  deflated) to ``bv_savedspace``; the block's first clone also adds it to
  ``bv_usedspace``, so a block cloned twice counts once in used and twice in saved.
* brt_entry_decref(): freeing a pointer to a block with an entry drops one reference
  (``saved -= dsize``, and ``used -= dsize`` with the last one) and keeps the block; a
  block whose count is already 0 (no clone left) is really freed.
* brt_get_used(), brt_get_saved() and brt_get_ratio(): the pool properties bcloneused,
  bclonesaved and bcloneratio, the ratio being (used + saved) * 100 / used, 100 (1.00x)
  when nothing is cloned.
* spa_update_dspace() adds brt_get_dspace() (= saved) to the pool's dspace, while the DSL
  charges every file that points at a block its whole dsize (dsl_dataset_block_born()
  for a cloned pointer), so USED and REFER count a clone fully and AVAIL does not shrink.

Pending references (brt_pending_add()) are applied when their txg syncs
(brt_pending_apply()); labsim applies them at once and syncs the txg straight after
(clone_file()), so what ``zpool get`` shows afterwards is the same.

The table itself is labsim.zfs.brt (pure: keys, sizes and counts). ``clone_file()`` here
makes a clone of one of labsim's files (labsim.zfs.pool.File);
labsim.zfs.write_path.free_file() frees a file's blocks through the table.
"""

from __future__ import annotations

from labsim.zfs import records
from labsim.zfs.brt import addref
from labsim.zfs.mos import objset_id
from labsim.zfs.objset import objset_changed
from labsim.zfs.pool import Dataset, File, Pool, property_value
from labsim.zfs.records import SPA_DVAS_PER_BP
from labsim.zfs.txg import advance_txg
from labsim.zfs.write_path import allocate_indirects, data_blocks, data_extents, remove_file


def can_clone(src_pool: Pool, dst_pool: Pool) -> bool:
    """zpl_clone_file_range_impl(): zfs_bclone_enabled and the block_cloning feature;
    zfs_clone_range(): EXDEV unless both files are in the same pool."""
    version = dst_pool.version
    return version.bclone_enabled and version.block_cloning_feature and src_pool is dst_pool


def clone_file(pool: Pool, src_dataset: Dataset, src: File, dst_dataset: Dataset,
               name: str) -> File:
    """zfs_clone_range() of a whole file into a new (or truncated) file ``name`` of
    ``dst_dataset``, in the same pool: the new file points at the source's data blocks,
    each of which gains a clone reference, and gets indirect blocks of its own (written
    as any file's are, with the destination's copies + 1). Holes and embedded blocks are
    copied as they are (they have no BRT entry; labsim allocates nothing for them).

    zfs_bclone_wait_dirty = 1 (2.3.4 and later): a source block still dirty in an open
    txg makes the clone wait for that txg to sync (before, it failed with EAGAIN).
    labsim syncs every txg a write makes (write_path.write_file()), so a source written by an
    earlier command is always on disk; one born in the open txg would be synced first.
    """
    if src.extents and src.birth >= pool.txg:
        advance_txg(pool)  # txg_wait_synced() for the dirty source (dmu_read_l0_bps())
    if name in dst_dataset.files:
        remove_file(pool, dst_dataset, name)  # cp opens the destination with O_TRUNC
    clone = File(name, size=src.size, mtime=src.mtime, content=src.content,
                 object=dst_dataset.next_object, birth=pool.txg, ditto=list(src.ditto),
                 # The clone's blocks are the source's, of the same sizes: a later
                 # partial overwrite (labsim.zfs.overwrite) needs them.
                 block_size=src.block_size,
                 plan=[group for run in src.runs for group in run.plan] or list(src.plan))
    dst_dataset.next_object += 1
    clone.extents = list(data_extents(src))
    for key, dsize in data_blocks(pool, src):
        addref(pool.brt, key, dsize)
    recordsize = int(str(property_value(pool, src_dataset, "recordsize")[0]))
    blocks = records.file_layout(src.size, recordsize).count
    if clone.extents:
        copies = int(str(property_value(pool, dst_dataset, "copies")[0]))
        allocate_indirects(pool, clone, blocks, objset_id(pool, dst_dataset),
                            min(copies + 1, SPA_DVAS_PER_BP))
        clone.indirect_extents = len(clone.extents) - len(data_extents(src))
    # The same data and the same tree of block pointers: the same logical and physical
    # bytes as the source (logicalused counts the clone in full).
    clone.logical, clone.compressed = src.logical, src.compressed
    dst_dataset.files[name] = clone
    objset_changed(pool, dst_dataset)
    advance_txg(pool)  # the clone's txg syncs (brt_pending_apply(), its indirect blocks)
    return clone
