"""Partial overwrites: a write into the middle of an existing file copies on write only
the records it touches.

zfs_write() (module/zfs/zfs_vnops.c, zfs-2.3.9) hands the range to dmu_write_uio_dbuf()
-> dmu_buf_hold_array(): only the level-0 dbufs the range covers are dirtied
(dbuf_dirty(), module/zfs/dbuf.c), a partly covered one after reading it
(dmu_buf_will_dirty()). When the txg syncs, dbuf_sync_leaf() writes each dirty record
anew, whole, to a new place; dbuf_write_done() -> dsl_dataset_block_kill()
(module/zfs/dsl_dataset.c) frees the record's old block, or leaves it to a snapshot
that was taken after it was born (its deadlist). The indirect blocks above the dirty
records and the dnode are dirtied too (dbuf_dirty() walks up the tree), so they are new
as well. The records the write does not touch keep their block pointers: the new version
of the file shares them with every snapshot or clone of the old one.

labsim keeps a file's data as runs of records (labsim.zfs.pool.Run) shared by identity
between the versions of the file; a partial overwrite splits the runs around the touched
records, writes new ones for those through the write path (records.block_plan for their
sizes under the dataset's compression now, write_path.write_groups for their placement,
ditto copies included), new level-1 indirect blocks above them and new blocks for the
levels above (the level-1 blocks above untouched records, one Run each, stay shared),
then frees what of the old version nobody holds any more (write_path.free_unheld).

A file's block size does not change once it has more than one block
(dmu_object_set_blocksize() -> dnode_set_blksz() fails with ENOTSUP then;
zfs_grow_blocksize() only grows a single-block file), so the records are those of the
file's own block size, whatever the dataset's recordsize is now.
"""

from __future__ import annotations

from collections.abc import Callable

from labsim.content.model import Content
from labsim.zfs import ditto, indirect_blocks, records
from labsim.zfs.errors import NoSpace
from labsim.zfs.mos import objset_id
from labsim.zfs.objset import objset_changed
from labsim.zfs.pool import Dataset, Extent, File, Pool, Run, property_value
from labsim.zfs.records import POINTERS_PER_INDIRECT, SPA_DVAS_PER_BP, BlockGroup
from labsim.zfs.write_path import (
    INDIRECT_BATCH_FROM,
    allocate_indirects,
    data_extents,
    free_unheld,
    place_indirects,
    write_groups,
)


def can_overwrite_in_place(file: File | None, end: int) -> bool:
    """Whether a write ending at byte ``end`` into ``file`` copies on write only the
    records it touches (labsim's overwrite_range()): the file has more than one block of
    known sizes. A single-block file is rewritten whole anyway (its one block, which may
    grow to the recordsize: zfs_grow_blocksize()), which write_file() does."""
    return (file is not None and file.block_size > 0 and file.size > file.block_size
            and bool(file.plan or file.runs) and end > 0)


def overwrite_range(pool: Pool, dataset: Dataset, name: str, start: int, length: int,
                    content: Content, mtime: float = 0.0) -> int:
    """Write bytes [start, start + length) of file ``name`` (whose whole content becomes
    ``content``, labsim.content.model.write_at of the old one) copying on write only the
    records they touch. Returns the file's new size; raises NoSpace (with the size the
    file reached) when the pool fills up."""
    old = dataset.files[name]
    if length <= 0:  # nothing written: nothing dirtied
        return old.size
    copies = min(int(str(property_value(pool, dataset, "copies")[0])), SPA_DVAS_PER_BP)
    # copies is a property of each block pointer (its DVAs), not of the file: the records
    # written now get the dataset's copies today, the others keep theirs
    # (dmu_write_policy() at each write, module/zfs/dmu.c).
    mixed = (copies > 1) != bool(old.ditto)
    bs = old.block_size
    size = content.size
    old_count, count = -(-old.size // bs), -(-size // bs)
    first, end = start // bs, -(-(start + length) // bs)
    compression = str(property_value(pool, dataset, "compression")[0])
    plan = records.block_plan(size, bs, content, compression, pool.min_ashift,
                              pool.version.compression_min_savings,
                              pool.version.zstd_early_abort, first=first, end=end)
    objset = objset_id(pool, dataset)
    birth = pool.txg
    scratch = File(name, object=old.object)  # collects the new records' blocks
    done, _, short = write_groups(pool, dataset, scratch, plan, bs, first, objset, copies)
    written = Run(first, done, records.plan_slice(plan, 0, done), scratch.extents,
                  scratch.ditto, scratch.logical, scratch.compressed, birth)
    runs = runs_of(old)
    if mixed or (old.ditto and not written.ditto):
        for run in [*runs, written]:
            _give_ditto_groups(pool, run)
    for cut in (first, first + done):
        split_runs(pool, runs, cut)
    runs = runs_of(old)  # split_runs() replaced them in every holder
    kept = [r for r in runs if r.first + r.count <= first or r.first >= first + done]
    # Records between the old end and the write (seek past the end) were never written:
    # holes, whatever the compression (no block pointer, dbuf_hold() of a hole).
    gap = max(0, first - old_count) if done else 0
    holes = [Run(old_count, gap, [BlockGroup(bs, 0, gap)], birth=birth)] if gap else []
    new_runs = sorted([*kept, *holes, *([written] if done else [])], key=lambda r: r.first)
    reached = max(old.size, min(size, (first + done) * bs))
    new = File(name, size=min(size, reached), mtime=mtime, content=content,
               object=old.object, birth=birth, block_size=bs, runs=new_runs)
    new.plan = [group for run in new_runs for group in run.plan]
    new.logical = sum(r.logical for r in new_runs)
    new.compressed = sum(r.compressed for r in new_runs)
    rebuild_extents(new)
    blocks = max(old_count, min(count, first + done))
    if any(group.present for group in new.plan):
        # The indirect blocks above the dirty records are new (dbuf_dirty() dirties the
        # parent dbufs up to the dnode), with the data's copies + 1 (dmu_write_policy());
        # the level-1 blocks above untouched records stay shared.
        before = len(new.extents)
        metadata_copies = min(copies + 1, SPA_DVAS_PER_BP)
        stationary = not indirect_blocks.repeats_by_pattern(content)

        def psize_of(index: int) -> int:
            # Its pointers' bytes (labsim.zfs.indirect_blocks), the untouched records'
            # as they are in the new content too.
            if stationary:
                return records.indirect_psize(_pointers(blocks, index), pool.min_ashift)
            return indirect_blocks.level_one_psize_at(
                content, bs, index, blocks, compression, pool.min_ashift, copies,
                pool.version.compression_min_savings, pool.version.zstd_early_abort)

        tree = indirect_runs_of(pool, old, metadata_copies)
        if tree is None:  # blocks labsim cannot tell apart: the whole tree anew
            level_one = [] if blocks <= 1 or stationary else \
                [psize_of(index) for index in range(-(-blocks // POINTERS_PER_INDIRECT))]
            allocate_indirects(pool, new, blocks, objset, metadata_copies, 0, level_one)
            new.level_one_psizes = level_one
        else:
            dirty = range(first // POINTERS_PER_INDIRECT,
                          -(-(first + done) // POINTERS_PER_INDIRECT)) if done else range(0)
            new.indirect_runs = _level_one(pool, new, tree, old_count, blocks, dirty,
                                           objset, metadata_copies, birth, psize_of)
            new.level_one_psizes = [run.compressed for run in new.indirect_runs]
            for run in new.indirect_runs:
                new.extents.extend(run.extents)
                new.logical += run.logical
                new.compressed += run.compressed
            level_ones = -(-blocks // POINTERS_PER_INDIRECT)
            place_indirects(pool, new, records.indirect_block_runs(level_ones), objset,
                            metadata_copies)
        new.indirect_extents = len(new.extents) - before
    dataset.files[name] = new
    # dsl_dataset_block_kill() of the old blocks: freed unless a snapshot, a clone or the
    # new version still points at them.
    free_unheld(pool, [old])
    objset_changed(pool, dataset)
    if short and new.size < size:
        raise NoSpace(new.size)
    return new.size


def _give_ditto_groups(pool: Pool, run: Run) -> None:
    """Make ``run``'s blocks ditto groups, one-copy groups for blocks of one copy, so that
    a file holding records of one and of several copies lists every block's copies
    (File.ditto covers all of a file's data blocks or none). Where the blocks lie does
    not change, only how labsim lists them; every file holding the run sees it."""
    if run.ditto or not run.extents:
        return
    blocks = ditto.one_block_extents(run.extents)
    run.extents = blocks
    run.ditto = [(block,) for block in blocks]
    for holder in _holders(pool, run):
        rebuild_extents(holder, keep_indirects=True)


def runs_of(file: File) -> list[Run]:
    """The file's data as runs of records: those it has, or (the first time it is
    partly overwritten) one run of all its data blocks, which the file keeps from then
    on (the same blocks; only how they are shared is new)."""
    if not file.runs:
        groups = file.plan
        count = sum(g.count for g in groups)
        file.runs = [Run(0, count, list(groups), data_extents(file), list(file.ditto),
                         sum(g.lsize * g.count for g in groups if g.present),
                         sum(g.psize * g.count for g in groups), file.birth)]
    return file.runs


def _pointers(blocks: int, index: int) -> int:
    """Block pointers level-1 block ``index`` of a file of ``blocks`` blocks holds."""
    return min(POINTERS_PER_INDIRECT, blocks - index * POINTERS_PER_INDIRECT)


def _level_one(pool: Pool, file: File, tree: list[Run], old_blocks: int, blocks: int,
               dirty: range, objset: int, copies: int, birth: int,
               psize_of: Callable[[int], int]) -> list[Run]:
    """The level-1 indirect blocks of the new version of a file of ``blocks`` blocks:
    the old ones (``tree``, of ``old_blocks``) where no record under them was written
    and they hold as many pointers as before, new ones where records were."""
    out: list[Run] = []
    for index in range(-(-blocks // POINTERS_PER_INDIRECT)):
        pointers = _pointers(blocks, index)
        if (index not in dirty and index < len(tree)
                and pointers == _pointers(old_blocks, index)):
            out.append(tree[index])
            continue
        scratch = File(file.name, object=file.object)
        place_indirects(pool, scratch, [(pointers, 1, psize_of(index))], objset, copies)
        out.append(Run(index, 0, [], scratch.extents, [], scratch.logical,
                       scratch.compressed, birth))
    return out


def indirect_runs_of(pool: Pool, file: File, copies: int) -> list[Run] | None:
    """The file's level-1 indirect blocks as runs (one each), shared with the file's
    other versions from now on: those it has, or those of its tree as
    write_path.allocate_indirects() placed them (level 1 first, ``copies`` copies of
    each block in turn). None when its blocks are not laid out so (another ``copies``
    then, a copy left out on a full pool, a tree placed in batches)."""
    if file.indirect_runs:
        return file.indirect_runs
    blocks = sum(g.count for g in file.plan) if not file.runs else \
        sum(r.count for r in file.runs)
    level_ones = -(-blocks // POINTERS_PER_INDIRECT)
    if blocks <= 1 or level_ones >= INDIRECT_BATCH_FROM:
        return None
    own = file.extents[len(file.extents) - file.indirect_extents:]
    position = 0
    tree: list[Run] = []
    for index in range(level_ones):
        psize = (file.level_one_psizes[index] if index < len(file.level_one_psizes)
                 else records.indirect_psize(_pointers(blocks, index), pool.min_ashift))
        extents: list[Extent] = []
        for _ in range(copies):
            if position >= len(own):
                return None
            vdev = pool.top(own[position].vdev)
            want, got = vdev.psize_to_asize(psize), 0
            while got < want and position < len(own) and own[position].vdev == vdev.id:
                extents.append(own[position])
                got += own[position].length
                position += 1
            if got != want:
                return None
        tree.append(Run(index, 0, [], extents, [], psize, psize, file.birth))
    upper = records.indirect_block_runs(level_ones)
    if len(own) - position != copies * sum(count for _, count in upper):
        return None
    file.indirect_runs = tree
    return tree


def split_runs(pool: Pool, runs: list[Run], cut: int) -> None:
    """Split the run of ``runs`` that ``cut`` falls inside into two, at record ``cut``,
    in every file of the pool that holds it (a head's, a snapshot's or a clone's
    version of the file): the run becomes its first part and a new run its second."""
    run = next((r for r in runs if r.first < cut < r.first + r.count), None)
    if run is None:
        return
    keep = cut - run.first
    head_plan = records.plan_slice(run.plan, 0, keep)
    tail_plan = records.plan_slice(run.plan, keep, run.count)
    blocks = sum(g.count for g in head_plan if g.psize)  # blocks with extents
    if run.ditto:
        head_ditto, tail_ditto = run.ditto[:blocks], run.ditto[blocks:]
        head_extents = [copy for group in head_ditto for copy in group]
        tail_extents = [copy for group in tail_ditto for copy in group]
    else:
        head_ditto, tail_ditto = [], []
        head_extents, tail_extents = _split_extents(run.extents, blocks)
    tail = Run(cut, run.count - keep, tail_plan, tail_extents, tail_ditto,
               _logical(tail_plan), _compressed(tail_plan), run.birth)
    run.count, run.plan, run.extents, run.ditto = keep, head_plan, head_extents, head_ditto
    run.logical, run.compressed = _logical(head_plan), _compressed(head_plan)
    for holder in _holders(pool, run):
        index = next(i for i, r in enumerate(holder.runs) if r is run)
        holder.runs.insert(index + 1, tail)
        rebuild_extents(holder, keep_indirects=True)


def rebuild_extents(file: File, keep_indirects: bool = False) -> None:
    """Make ``file.extents`` and ``file.ditto`` its runs' blocks in record order,
    followed (``keep_indirects``) by its indirect blocks as they were."""
    indirect = file.extents[len(file.extents) - file.indirect_extents:] \
        if keep_indirects and file.indirect_extents else []
    file.extents = [e for run in file.runs for e in run.extents] + indirect
    file.ditto = [g for run in file.runs for g in run.ditto]
    if not keep_indirects:
        file.indirect_extents = 0


def _holders(pool: Pool, run: Run) -> list[File]:
    """Every file of the pool (heads, snapshots, clones) whose runs include ``run``."""
    seen: dict[int, File] = {}
    for dataset in pool.datasets.values():
        for files in (dataset.files, *(s.files for s in dataset.snapshots),
                      *(s.files for s in dataset.destroyed_snapshots)):
            for file in files.values():
                if any(r is run for r in file.runs):
                    seen[id(file)] = file
    return list(seen.values())


def _split_extents(extents: list[Extent], blocks: int) -> tuple[list[Extent], list[Extent]]:
    """The first ``blocks`` blocks of ``extents`` and the rest, splitting an extent of
    several blocks where the cut falls inside it."""
    head: list[Extent] = []
    tail: list[Extent] = []
    left = blocks
    for extent in extents:
        if left >= extent.blocks:
            head.append(extent)
            left -= extent.blocks
        elif left == 0:
            tail.append(extent)
        else:
            size = extent.block_size
            head.append(Extent(extent.vdev, extent.offset, left * size, size,
                               dvas=extent.dvas))
            tail.append(Extent(extent.vdev, extent.offset + left * size,
                               extent.length - left * size, size, dvas=extent.dvas))
            left = 0
    return head, tail


def _logical(plan: list[BlockGroup]) -> int:
    return sum(g.lsize * g.count for g in plan if g.present)


def _compressed(plan: list[BlockGroup]) -> int:
    return sum(g.psize * g.count for g in plan)
