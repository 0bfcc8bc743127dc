"""copies=2 and copies=3: ditto blocks, where they go, and what survives damage.

A block pointer holds up to three DVAs (SPA_DVAS_PER_BP), each a copy of the same block.
A dataset's ``copies`` property says how many its data blocks get; metadata always gets
one more (dmu_write_policy() in module/zfs/dmu.c). Where the copies go is decided by
metaslab_alloc() (module/zfs/metaslab.c, OpenZFS 2.1.11):

* The first copy goes where the rotor points (``mca_rotor``), as any block does.
* Copy ``d`` starts at the metaslab group after the one holding copy ``d - 1``
  (``mg = vd->vdev_mg->mg_next`` in metaslab_alloc_dva()), so with two or more top-level
  vdevs the copies land on different vdevs, "where possible": a vdev that cannot take the
  block passes it to the next one round the ring.
* On each vdev, the block's allocator asks for a metaslab by how many DVAs of the block
  the vdev holds already (metaslab_group_alloc_normal(), module/zfs/metaslab.c, 2.1.11
  and 2.3.9): none, its *primary* metaslab, where the first copies of other blocks go; one,
  its *secondary*; two, a metaslab activated with METASLAB_WEIGHT_CLAIM for no allocator,
  whose weight then sorts first, so the next block's third copy finds it again
  (find_valid_metaslab()). A metaslab activated for a second or third copy must hold no
  other DVA of the block (metaslab_is_unique()); an active one is used as it is. So with
  one top-level vdev and copies=3 the copies go to three metaslabs, one stream each.

What copies buy (zio_checksum_verify(), vdev_mirror_io_done(), which reads a block of
several DVAs like a mirror of them): a read or scrub that finds a bad copy takes a good
one and rewrites the bad ones; only a block with no good copy left is lost. Damage within
one disk is survived when another copy sits somewhere undamaged. Losing a whole
top-level vdev is not: the pool needs every top-level vdev to open (spa_load() checks the
vdev tree, and the MOS config lists them all), whatever ``copies`` says.
"""

from __future__ import annotations

from collections.abc import Iterator

from labsim.zfs.metaslab_group import activation_order
from labsim.zfs.mos import objset_id
from labsim.zfs.pool import Extent, File, Pool
from labsim.zfs.records import SPA_DVAS_PER_BP
from labsim.zfs.vdevs import TopVdev

MAX_COPIES = SPA_DVAS_PER_BP


def one_block_extents(extents: list[Extent]) -> list[Extent]:
    """The extents split into one extent per block, in order."""
    out: list[Extent] = []
    for extent in extents:
        size = extent.block_size
        out.extend(Extent(extent.vdev, extent.offset + i * size, size, dvas=extent.dvas)
                   for i in range(extent.blocks))
    return out


def _next_vdevs(pool: Pool, after: int) -> Iterator[TopVdev]:
    """The ring of metaslab groups from the one after ``after`` (mg_next), ending with
    ``after`` itself: the order metaslab_alloc_dva() tries them for a ditto copy."""
    count = len(pool.vdevs)
    for step in range(1, count + 1):
        yield pool.vdevs[(after + step) % count]


def add_copies(pool: Pool, file: File, copies: int, allocator: int = 0) -> None:
    """Give each data block of a just-written ``file`` ``copies - 1`` more copies.

    ``file.extents`` holds the first copies when this is called; afterwards it holds
    every copy of every block as one-block extents, and ``file.ditto`` groups them per
    block. A copy that fits nowhere is left out (the real write would fail with ENOSPC),
    and the space check before the write counted the first copies only. Every copy takes
    the first copy's allocated size, as on vdevs of one ashift and layout. ``allocator``
    is the one the file's data blocks hash to (labsim.zfs.metaslab.allocator_for()).
    """
    copies = min(copies, MAX_COPIES)
    groups = []
    for first in one_block_extents(file.extents):
        group = [first]
        for _ in range(copies - 1):
            previous = group[-1]
            for vdev in _next_vdevs(pool, previous.vdev):
                asize = first.length
                if vdev.free < asize:
                    continue
                copy = _take_copy(vdev, asize, group, allocator)
                if copy is None:
                    continue
                group.append(copy)
                vdev.write_ops += 1
                vdev.write_bytes += asize
                break
        for copy in group:
            copy.dvas = len(group)
        groups.append(tuple(group))
    file.ditto = groups
    file.extents = [copy for group in groups for copy in group]


def _take_copy(vdev: TopVdev, asize: int, group: list[Extent],
                 allocator: int = 0) -> Extent | None:
    """One block on ``vdev`` for the next copy of ``group``: in the allocator's primary
    metaslab when the vdev holds no copy of the block yet, its secondary when it holds
    one, the vdev's CLAIM-activated metaslab when it holds two (see the module). None
    when the vdev's free space holds no contiguous ``asize`` (real ZFS would gang the
    block, zio_write_gang_block(); labsim leaves the copy out, as a copy that fits
    nowhere)."""
    on_vdev = sum(1 for copy in group if copy.vdev == vdev.id)
    pieces = vdev.take(asize, allocator=allocator, secondary=on_vdev == 1,
                       claim=on_vdev >= 2)
    if len(pieces) == 1:
        [(offset, length)] = pieces
        return Extent(vdev.id, offset, length)
    for offset, length in pieces:
        vdev.release(offset, length)
    # No active metaslab holds the block whole: find_valid_metaslab() takes the heaviest
    # metaslab with room that holds no other copy (labsim places the copy there without
    # making that metaslab an active one).
    taken = {copy.offset >> vdev.ms_shift for copy in group if copy.vdev == vdev.id}
    for index in activation_order(vdev.metaslabs, vdev.ashift, exclude=taken):
        ms = vdev.metaslabs[index]
        if ms.largest_free_segment() >= asize:
            [(offset, length)] = ms.allocate(asize, asize)
            vdev.free -= asize
            return Extent(vdev.id, offset, length)
    return None


def ditto_extent_ids(file: File) -> set[int]:
    """Identities of the extents that belong to ditto groups (scanned per block)."""
    return {id(copy) for group in file.ditto for copy in group}


def is_indirect(file: File, index: int) -> bool:
    """Whether ``file.extents[index]`` is one of its indirect blocks (metadata)."""
    return file.indirect_extents > 0 and index >= len(file.extents) - file.indirect_extents


def error_paths(pool: Pool) -> tuple[str, ...]:
    """The pool's error log as ``zpool status -v`` names it: each damaged file once, as
    its mountpoint and name (datasets mount at /<name>), in the order zpool_get_errlog()
    sorts the log (by objset, then object number)."""
    entries = []
    for dataset_name, file_name in pool.damaged_files:
        dataset = pool.datasets.get(dataset_name)
        file = dataset.files.get(file_name) if dataset is not None else None
        if dataset is None or file is None:
            continue  # removed since: labsim drops it (a real log keeps "<0x...>" for a while)
        entries.append((objset_id(pool, dataset), file.object, f"/{dataset_name}/{file_name}"))
    return tuple(path for _, _, path in sorted(entries))
