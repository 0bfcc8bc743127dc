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

The model here is pure: ``Brt`` and the functions on it take keys, sizes and counts.
``clone_file()`` and ``free_file()`` apply it to labsim's files (labsim.zfs.pool.File):
the first makes a clone, the second frees a file's blocks through the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from labsim.zfs.pool import Dataset, Extent, File, Pool

# A block's BRT key: its first DVA's top-level vdev and offset (brt_entry_fill()).
BlockKey = tuple[int, int]


@dataclass
class BrtEntry:
    """One cloned block (brt_entry_t): its dsize and its extra references (bre_count)."""

    dsize: int
    count: int = 0


@dataclass
class Brt:
    """The pool's BRT: entries by block, and the sums of every vdev's bv_usedspace and
    bv_savedspace (labsim keeps the totals; brt_get_used() and brt_get_saved() add up
    the vdevs' anyway)."""

    entries: dict[BlockKey, BrtEntry] = field(default_factory=dict)
    used: int = 0
    saved: int = 0


def addref(brt: Brt, key: BlockKey, dsize: int, count: int = 1) -> None:
    """brt_vdev_addref() then ``bre_count += count``: ``count`` more clone references to
    the block ``key`` of ``dsize`` bytes."""
    entry = brt.entries.get(key)
    if entry is None:
        entry = brt.entries[key] = BrtEntry(dsize)
    brt.saved += dsize * count
    if entry.count == 0:  # the block's first clone: counted once in used
        brt.used += dsize
    entry.count += count


def decref(brt: Brt, key: BlockKey) -> bool:
    """brt_entry_decref(): one pointer to block ``key`` is freed. Returns whether the
    block itself is to be freed (True: it had no clone reference left, or no entry)."""
    entry = brt.entries.get(key)
    if entry is None or entry.count == 0:
        return True
    entry.count -= 1
    brt.saved -= entry.dsize  # brt_vdev_decref()
    if entry.count == 0:
        brt.used -= entry.dsize
        # brt_sync_entry() removes an entry whose count fell to 0 from the on-disk table.
        del brt.entries[key]
    return False


def ratio(brt: Brt) -> int:
    """brt_get_ratio(): (used + saved) * 100 / used in integer arithmetic, 100 when
    nothing is cloned; zpool prints it as "%llu.%02llux" (3.00x)."""
    if brt.used == 0:
        return 100
    return (brt.used + brt.saved) * 100 // brt.used


# ---------------------------------------------------------------- labsim's files


def data_extents(file: File) -> list[Extent]:
    """The extents of the file's data blocks (every copy of them): those before its
    indirect blocks, which pool.write_file() appends last."""
    return file.extents[:len(file.extents) - file.indirect_extents]


def data_blocks(pool: Pool, file: File) -> Iterator[tuple[BlockKey, int]]:
    """Each data block of ``file`` as (key, dsize): the key is its first copy's place,
    dsize every copy's deflated size (bp_get_dsize() sums the DVAs)."""
    if file.ditto:
        for group in file.ditto:
            first = group[0]
            yield ((first.vdev, first.offset),
                   sum(pool.vdevs[copy.vdev].deflate(copy.length) for copy in group))
        return
    for extent in data_extents(file):
        size = extent.block_size
        dsize = pool.vdevs[extent.vdev].deflate(size)
        for i in range(extent.blocks):
            yield (extent.vdev, extent.offset + i * size), dsize


def free_file(pool: Pool, file: File) -> None:
    """Free the blocks of a file no dataset or snapshot holds any more: its indirect
    blocks are its own and are freed; each data block goes through the BRT first
    (zio_free() asks brt_maybe_exists() and brt_entry_decref()), and only a block with
    no clone reference left is freed."""
    if not pool.brt.entries:
        for extent in file.extents:
            pool.vdevs[extent.vdev].release(extent.offset, extent.length)
        return
    if file.ditto:
        for group in file.ditto:
            if decref(pool.brt, (group[0].vdev, group[0].offset)):
                for copy in group:
                    pool.vdevs[copy.vdev].release(copy.offset, copy.length)
    else:
        for extent in data_extents(file):
            vdev, size = pool.vdevs[extent.vdev], extent.block_size
            run_start, run_length = extent.offset, 0  # consecutive blocks freed together
            for i in range(extent.blocks):
                offset = extent.offset + i * size
                if decref(pool.brt, (extent.vdev, offset)):
                    if run_length == 0:
                        run_start = offset
                    run_length += size
                    continue
                if run_length:
                    vdev.release(run_start, run_length)
                run_length = 0
            if run_length:
                vdev.release(run_start, run_length)
    for extent in file.extents[len(file.extents) - file.indirect_extents:]:
        pool.vdevs[extent.vdev].release(extent.offset, extent.length)


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
    labsim syncs every txg a write makes (pool.write_file()), so a source written by an
    earlier command is always on disk; one born in the open txg would be synced first.
    """
    from labsim.zfs import records
    from labsim.zfs.pool import (
        SPA_DVAS_PER_BP,
        File,
        _allocate_indirects,
        advance_txg,
        objset_id,
        property_value,
        remove_file,
    )

    if src.extents and src.birth >= pool.txg:
        advance_txg(pool)  # txg_wait_synced() for the dirty source (dmu_read_l0_bps())
    if name in dst_dataset.files:
        remove_file(pool, dst_dataset, name)  # cp opens the destination with O_TRUNC
    clone = File(name, size=src.size, mtime=src.mtime, content=src.content,
                 object=dst_dataset.next_object, birth=pool.txg, ditto=list(src.ditto))
    dst_dataset.next_object += 1
    clone.extents = list(data_extents(src))
    for key, dsize in data_blocks(pool, src):
        addref(pool.brt, key, dsize)
    recordsize = int(str(property_value(pool, src_dataset, "recordsize")[0]))
    blocks = records.file_layout(src.size, recordsize).count
    if clone.extents:
        copies = int(str(property_value(pool, dst_dataset, "copies")[0]))
        _allocate_indirects(pool, clone, blocks, objset_id(pool, dst_dataset),
                            min(copies + 1, SPA_DVAS_PER_BP))
        clone.indirect_extents = len(clone.extents) - len(data_extents(src))
    # The same data and the same tree of block pointers: the same logical and physical
    # bytes as the source (logicalused counts the clone in full).
    clone.logical, clone.compressed = src.logical, src.compressed
    dst_dataset.files[name] = clone
    advance_txg(pool)  # the clone's txg syncs (brt_pending_apply(), its indirect blocks)
    return clone
