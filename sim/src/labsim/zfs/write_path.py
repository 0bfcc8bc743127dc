"""The write path: a file's data written a transaction group at a time, its ditto copies
and indirect blocks, and its blocks freed when nothing holds them any more.

Writes follow zfs_write() and the DMU (module/zfs/zfs_vnops.c, dmu.c): each record is
compressed as the dataset says (labsim.zfs.records), allocated by the metaslab allocator
over the top-level vdevs (labsim.zfs.allocator, metaslab) and charged to the dataset.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from labsim.content.model import Content
from labsim.zfs import brt, compressors, ditto, indirect_blocks, records
from labsim.zfs import compression as compression_mod
from labsim.zfs.allocator import group_allocatable
from labsim.zfs.compression import DataPattern
from labsim.zfs.errors import NoSpace
from labsim.zfs.metadata_rewrite import rewrite_metadata
from labsim.zfs.metaslab import allocator_for
from labsim.zfs.mos import activate_feature, objset_id
from labsim.zfs.objset import file_removed, objset_changed
from labsim.zfs.pool import (
    Dataset,
    Extent,
    File,
    Part,
    Pool,
    Run,
    file_parts,
    held_parts,
    part_extents,
    property_value,
)
from labsim.zfs.records import SPA_DVAS_PER_BP
from labsim.zfs.space import dataset_available
from labsim.zfs.throttle import compression_pace
from labsim.zfs.txg import advance_txg

SPA_OLD_MAXBLOCKSIZE = 128 * 1024  # the largest block without the large_blocks feature
# spa_get_worst_case_asize() (module/zfs/spa_misc.c): what a dirty byte may allocate at
# worst, spa_asize_inflation = 24 times its logical size (and at least a sector's).
SPA_ASIZE_INFLATION = 24


def write_file(
    pool: Pool,
    dataset: Dataset,
    name: str,
    nbytes: int,
    content: str | DataPattern | Content,
) -> int:
    """Create (or replace) ``name`` with ``nbytes`` of "zero" or "random" content, data
    of a DataPattern (fio's half-compressible buffers) or any content
    (labsim.content.model: seq, yes, text, ...).

    Each record is compressed as the dataset's compression says (records.block_plan);
    holes allocate nothing. Data is placed a transaction group at a time. Returns the
    bytes written; raises NoSpace (carrying the bytes that did fit) when the pool runs
    out of room.
    """
    recordsize = int(str(property_value(pool, dataset, "recordsize")[0]))
    compression = str(property_value(pool, dataset, "compression")[0])
    # A file written again (O_TRUNC) keeps its block size (records.file_layout()).
    old = dataset.files.get(name)
    kept_block = old.block_size if old is not None else 0
    layout = records.file_layout(nbytes, recordsize, kept_block)
    # Sized first: a compressor labsim lacks (compressors.CompressorUnavailable) leaves the
    # old file alone.
    groups = records.block_plan(nbytes, recordsize, content, compression, pool.min_ashift,
                                pool.version.compression_min_savings,
                                pool.version.zstd_early_abort, kept_block=kept_block)
    # O_TRUNC keeps the file's object, and its dnode's levels (records.file_levels()).
    kept_levels = 1
    if old is not None:
        kept_levels = records.file_levels(sum(g.count for g in old.plan), old.levels or 1)
        remove_file(pool, dataset, name)
        number = old.object
    else:
        number = dataset.next_object
        dataset.next_object += 1
    file = File(name, content=content, object=number, birth=pool.txg,
                block_size=layout.block_size)
    dataset.files[name] = file
    objset = objset_id(pool, dataset)
    copies = min(int(str(property_value(pool, dataset, "copies")[0])), SPA_DVAS_PER_BP)
    done, allocated, short = write_groups(pool, dataset, file, groups, layout.block_size,
                                          0, objset, copies)
    file.plan = records.plan_slice(groups, 0, done)
    file.size = min(nbytes, done * layout.block_size)
    file.levels = records.file_levels(done, kept_levels)
    if allocated and layout.block_size > SPA_OLD_MAXBLOCKSIZE:
        # dsl_dataset_block_born() marks large_blocks for activation when a block over
        # 128K is born (module/zfs/dsl_dataset.c, 2.1.11 and 2.3.9): an entry in the
        # dsl_dataset object's ZAP (labsim.zfs.mos.activate_feature).
        activate_feature(pool, dataset.active_features, "large_blocks", dataset.ds_blocks)
    if allocated:
        before = len(file.extents)
        # Indirect blocks are metadata: one copy more than the data, at most three
        # (dmu_write_policy(): copies++ for metadata, then MIN(copies, spa_max_replication)).
        metadata_copies = min(copies + 1, SPA_DVAS_PER_BP)
        # Level-1 blocks over records that repeat compress to less (labsim.zfs.indirect_blocks).
        file.level_one_psizes = indirect_blocks.file_level_one_psizes(
            nbytes, recordsize, compression_mod.as_content(content, nbytes), done,
            compression, pool.min_ashift, copies, pool.version.compression_min_savings,
            pool.version.zstd_early_abort, kept_block) or []
        allocate_indirects(pool, file, done, objset, metadata_copies, file.levels,
                           file.level_one_psizes)
        file.indirect_extents = len(file.extents) - before
    objset_changed(pool, dataset)
    if short and file.size < nbytes:
        raise NoSpace(file.size)
    return file.size


def write_groups(pool: Pool, dataset: Dataset, file: File,
                 groups: list[records.BlockGroup], block_size: int, first_block: int,
                 objset: int, copies: int) -> tuple[int, int, bool]:
    """Write the data blocks ``groups`` (records.block_plan) of ``file`` from record
    ``first_block`` on, with ``copies`` copies each (ditto.add_copies(), which makes
    ``file.extents`` and ``file.ditto`` every copy of every block written). Returns the
    records done (holes included), how many of them have a block pointer, and whether
    the pool ran short of space."""
    done = 0  # data blocks written so far, holes included
    allocated = 0  # of which allocated
    short = False
    pending = 0  # dsize of the ditto copies of the blocks written so far (placed at the end)
    for group in groups:
        if group.psize == 0:  # holes and embedded blocks: nothing to allocate
            done += group.count
            if group.embedded:  # but an embedded block counts its logical size
                file.logical += group.count * group.lsize
                allocated += group.count
            continue
        count, short = write_blocks(pool, dataset, file, group.psize, group.count,
                                     block_size, first_block + done, objset, copies,
                                     pending)
        pending += (copies - 1) * count * max(v.dsize(group.psize) for v in pool.vdevs)
        file.logical += count * group.lsize
        file.compressed += count * group.psize
        done += count
        allocated += count
        if short:
            break
    if copies > 1 and allocated:
        # Level-0 blocks hash to an allocator by their region of 2^20 blocks: one region
        # for any file a lab writes (labsim.zfs.metaslab.allocator_for()).
        ditto.add_copies(pool, file, copies,
                         allocator_for(objset, file.object, 0, first_block, pool.allocators))
    return done, allocated, short


def write_blocks(pool: Pool, dataset: Dataset, file: File, psize: int, count: int,
                  block_size: int, first_block: int, objset: int,
                  copies: int = 1, pending: int = 0) -> tuple[int, bool]:
    """Allocate ``count`` data blocks of ``psize`` physical bytes for ``file``, a txg at a
    time, spread over the vdevs by the rotor. Returns how many fitted, and whether the
    pool ran short of space.

    A block of ``copies`` DVAs is charged the dsize of all of them (bp_get_dsize() sums
    the DVAs, module/zfs/spa_misc.c, and dsl_dataset_block_born() charges that), so the
    room for a block is ``copies`` times its nominal dsize. labsim places the ditto copies
    after the data (labsim.zfs.ditto): ``pending`` is what the copies of blocks written
    earlier by this write will take, held out of the room here."""
    # The allocation throttle's pace (labsim.zfs.throttle): what a vdev completes per block
    # the pipeline issues, and the blocks one txg issues.
    drain = 0.0
    if pool.version.allocation_throttle:
        # A compressor paces the blocks on their way to the throttle (throttle.py).
        algorithm, level = compressors.parse(
            str(property_value(pool, dataset, "compression")[0]))
        drain = (pool.version.write_completion_ratio
                 * compression_pace(algorithm, level, block_size))
    txg_blocks = max(1, pool.version.txg_bytes // block_size)
    # What one block counts for against AVAIL (deflated), on the vdev where it costs most.
    # On single devices and mirrors this is psize rounded up to the largest ashift.
    nominal_dsize = max(v.dsize(psize) for v in pool.vdevs)
    # What a block costs on each vdev stays the same from txg to txg, unless a RAID-Z
    # expansion moves on (its blocks' width goes by birth txg).
    fixed_sizes = all(v.geometry is None for v in pool.vdevs)
    indirect_dsizes: dict[int, int] = {}

    def indirect_dsize(indirect_psize: int) -> int:
        dsize = indirect_dsizes.get(indirect_psize) if fixed_sizes else None
        if dsize is None:
            dsize = max(v.dsize(indirect_psize) for v in pool.vdevs)
            indirect_dsizes[indirect_psize] = dsize
        return dsize

    # One txg at a time keeps the bias exact; on big pools a step of 1/1024 of the pool
    # moves every printed figure by less than its last digit, and is much faster.
    step = max(pool.version.txg_bytes, pool.space >> 10)
    per_txg = max(1, step // block_size)
    # How a txg admits writes near the end of space, dsl_dir_tempreserve_impl()
    # (module/zfs/dsl_dir.c, 2.1.11 and 2.3.9): a write's tx is refused with ENOSPC only
    # when what is on disk (dd_used_bytes, as of the last txg synced) has reached the
    # quota, at the root the pool's space less the slop. Before that it waits for the txg
    # to sync (ERESTART) once on-disk plus in flight reaches the quota plus 1/32 of it;
    # in flight is the worst case of the txg's dirty data (dmu_objset_willuse_space():
    # spa_get_worst_case_asize() of each dirty record, 24 times it), which is what keeps
    # the last txgs small and the overshoot past the quota a small fraction of 1/32.
    quota = pool.dspace + pool.brt.saved - pool.slop_space
    ext_quota = quota >> 5
    worst_case = SPA_ASIZE_INFLATION * max(block_size, 1 << max(v.ashift for v in pool.vdevs))
    aliquot = pool.version.metaslab_aliquot
    asizes: list[int] | None = None  # a data block's asize on each vdev
    vdevs = pool.vdevs
    # Each vdev's write speed and aliquot stay as they are unless a RAID-Z expansion
    # moves on (labsim.zfs.raidz_expansion, from advance_txg()).
    fixed_vdevs = fixed_sizes and pool.expansion is None and pool.scrub_pending is None
    speeds: list[float] = []
    turns: list[int] | None = None
    allocators = pool.allocators
    written = 0
    short = False
    min_ashift = pool.min_ashift  # the vdevs stay those they are during the write
    while written < count:
        # The quota less what is on disk once the txgs so far have synced: labsim places
        # this write's ditto copies and indirect blocks at its end, real OpenZFS in the
        # txg of their data, so they count here as allocated.
        room = (dataset_available(pool, dataset) - pending
                - (copies - 1) * written * nominal_dsize
                - records.indirect_allocation(first_block + written, min_ashift,
                                              sizer=indirect_dsize))
        if room <= 0:
            short = True  # ENOSPC
            break
        # The txg takes records while on-disk plus 24 times its dirty data is under the
        # quota plus 1/32 (then the writer waits for it to sync: the next txg).
        # min() spelled out: the builtin parses keywords at every call (3.11).
        want = -(-(room + ext_quota) // worst_case)
        if per_txg < want:
            want = per_txg
        if count - written < want:
            want = count - written
        if asizes is None or not fixed_sizes:
            asizes = [v.psize_to_asize(psize) for v in vdevs]
        if turns is None or not fixed_vdevs:
            scaling = pool.version.aliquot_scaling
            speeds = [v.write_speed for v in vdevs]
            turns = [aliquot * v.aliquot_disks(scaling) for v in vdevs]
        # What the allocator knows of each vdev at the start of the txg (GroupState's
        # fields, given to Rotor.distribute_fields() as lists).
        free = [v.free for v in vdevs]
        allocatable = [group_allocatable(v.space, v.space - v.free, v.fragmentation)
                       for v in vdevs]
        # Level-0 blocks: one allocator per region of 2^20 blocks (zio.c).
        allocator = allocator_for(objset, file.object, 0, first_block + written, allocators)
        counts = pool.rotor.distribute_fields(free, asizes, turns, allocatable, speeds, want,
                                              nominal_dsize, drain, txg_blocks, allocator,
                                              copies)
        for i, vdev in enumerate(vdevs):  # (zip(strict=True) parses keywords at each call)
            share, asize = counts[i], asizes[i]
            if share:
                fits = vdev.free // asize
                if fits < share:
                    share = fits
                for offset, length in vdev.take(share * asize, asize, allocator):
                    file.extents.append(Extent(vdev.id, offset, length, asize))
                vdev.write_ops += share  # one write I/O per block (no aggregation)
                vdev.write_bytes += share * asize
                written += share
        # The path from the data up to the uberblock is written anew (after the data:
        # labsim does not interleave them as concurrent zios do).
        rewrite_metadata(pool, objset)
        advance_txg(pool)
        if short or sum(counts) < want:
            short = True
            break
    return written, short


# Indirect blocks of a run this long are placed in batches (see _allocate_indirects).
INDIRECT_BATCH_FROM = 1024


def allocate_indirects(pool: Pool, file: File, data_blocks: int, objset: int,
                        copies: int = records.METADATA_COPIES, levels: int = 0,
                        level_one: list[int] | None = None) -> None:
    """Indirect blocks, ``copies`` copies each (ditto blocks: two for copies=1, three
    for copies=2 or 3) on different vdevs where possible; with a single top-level vdev
    all go to it, the second to the allocator's secondary metaslab and a third to the
    vdev's CLAIM-activated one (metaslab_group_alloc_normal()). Level 1 hashes to an
    allocator of its own.

    Each copy goes to the vdev with the most free space at the time. A file of millions
    of blocks has thousands of full indirect blocks alike: from INDIRECT_BATCH_FROM of
    them on, they are placed 1/64 of the run at a time, choosing the vdevs again before
    each batch, which keeps filling a 1 TiB pool fast in the browser. Smaller files
    (every lab's) are placed block by block. ``level_one``: the physical sizes of the
    level-1 blocks where they are known one by one (labsim.zfs.indirect_blocks)."""
    runs: list[tuple[int, ...]] = list(records.indirect_block_runs(data_blocks, levels))
    if level_one:
        # Level 1 comes first: its runs hold len(level_one) blocks, one psize each.
        left, position = len(level_one), 0
        psizes = iter(level_one)
        while left > 0 and position < len(runs):
            pointers, count = runs.pop(position)
            runs[position:position] = [(pointers, 1, next(psizes)) for _ in range(count)]
            position += count
            left -= count
    place_indirects(pool, file, runs, objset, copies)


def place_indirects(pool: Pool, file: File, runs: Sequence[tuple[int, ...]], objset: int,
                    copies: int = records.METADATA_COPIES) -> None:
    """Place indirect blocks given as (pointers held, how many[, physical size]) runs, as
    allocate_indirects() does for a file's whole tree (a partial overwrite writes only
    some of them anew, labsim.zfs.overwrite)."""
    allocator = allocator_for(objset, file.object, 1, 0, pool.allocators)
    for pointers, count, *known in runs:
        psize = known[0] if known else records.indirect_psize(pointers, pool.min_ashift)
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
                role = copy // len(targets)  # copies on this vdev before this one
                for offset, length in vdev.take(fit * asize, asize if fit > 1 else 0,
                                                allocator=allocator,
                                                secondary=role == 1, claim=role >= 2):
                    file.extents.append(Extent(vdev.id, offset, length,
                                               asize if fit > 1 else 0, dvas=copies))


def remove_file(pool: Pool, dataset: Dataset, name: str) -> None:
    file = dataset.files.pop(name)
    # A snapshot or a clone that still holds the file keeps its blocks (they go on the
    # dataset's deadlist, dsl_dataset_block_kill() in module/zfs/dsl_dataset.c), and
    # another version of the file keeps the runs of records it shares with it.
    free_unheld(pool, [file])
    file_removed(pool, dataset, file)
    advance_txg(pool)


def free_unheld(pool: Pool, files: list[File]) -> None:
    """Free what of ``files`` no dataset or snapshot holds any more: the files' own
    blocks and their runs of records (pool.file_parts) that no other file points at."""
    held = held_parts(pool)
    seen: set[int] = set()
    for file in files:
        for part in file_parts(file):
            if id(part) in held or id(part) in seen:
                continue
            seen.add(id(part))
            free_part(pool, part)


def free_part(pool: Pool, part: Part) -> None:
    """Free one part of a file: a run's data blocks, or a file's own blocks (those of a
    file without runs, or only the indirect blocks of one with runs)."""
    if isinstance(part, Run):
        _free_data(pool, part.extents, part.ditto)
    elif part.runs:
        for extent in part_extents(part):
            pool.top(extent.vdev).release(extent.offset, extent.length)
    else:
        free_file(pool, part)  # cloned blocks only lose a reference


# ---------------------------------------------------------------- freeing blocks


def data_extents(file: File) -> list[Extent]:
    """The extents of the file's data blocks (every copy of them): those before its
    indirect blocks, which write_file() appends last."""
    return file.extents[:len(file.extents) - file.indirect_extents]


def data_blocks(pool: Pool, file: File) -> Iterator[tuple[brt.BlockKey, int]]:
    """Each data block of ``file`` as (key, dsize): the key is its first copy's place,
    dsize every copy's deflated size (bp_get_dsize() sums the DVAs)."""
    if file.ditto:
        for group in file.ditto:
            first = group[0]
            yield ((first.vdev, first.offset),
                   sum(pool.top(copy.vdev).deflate(copy.length) for copy in group))
        return
    for extent in data_extents(file):
        size = extent.block_size
        dsize = pool.top(extent.vdev).deflate(size)
        for i in range(extent.blocks):
            yield (extent.vdev, extent.offset + i * size), dsize


def free_file(pool: Pool, file: File) -> None:
    """Free the blocks of a file no dataset or snapshot holds any more: its indirect
    blocks are its own and are freed; each data block goes through the BRT first
    (zio_free() asks brt_maybe_exists() and brt_entry_decref()), and only a block with
    no clone reference left is freed."""
    if not pool.brt.entries:
        for extent in file.extents:
            pool.top(extent.vdev).release(extent.offset, extent.length)
        return
    _free_data(pool, data_extents(file), file.ditto)
    for extent in file.extents[len(file.extents) - file.indirect_extents:]:
        pool.top(extent.vdev).release(extent.offset, extent.length)


def _free_data(pool: Pool, extents: list[Extent], groups: list[tuple[Extent, ...]]) -> None:
    """Free data blocks (``extents``, or per block ``groups`` of ditto copies), each
    through the BRT first: only a block with no clone reference left is freed."""
    if not pool.brt.entries:
        for extent in extents:
            pool.top(extent.vdev).release(extent.offset, extent.length)
        return
    if groups:
        for group in groups:
            if brt.decref(pool.brt, (group[0].vdev, group[0].offset)):
                for copy in group:
                    pool.top(copy.vdev).release(copy.offset, copy.length)
    else:
        for extent in extents:
            vdev, size = pool.top(extent.vdev), extent.block_size
            run_start, run_length = extent.offset, 0  # consecutive blocks freed together
            for i in range(extent.blocks):
                offset = extent.offset + i * size
                if brt.decref(pool.brt, (extent.vdev, offset)):
                    if run_length == 0:
                        run_start = offset
                    run_length += size
                    continue
                if run_length:
                    vdev.release(run_start, run_length)
                run_length = 0
            if run_length:
                vdev.release(run_start, run_length)
