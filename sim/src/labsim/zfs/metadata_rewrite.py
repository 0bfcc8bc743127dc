"""The metadata every transaction group rewrites, and the holes it leaves behind.

ZFS never overwrites a block in place. When a txg changes a file, spa_sync() writes new
copies of every block on the path from that file up to the uberblock: in the dataset, the
dnode block holding the file's dnode, the objset's meta-dnode indirect block and the
objset_phys_t (dmu_objset_sync()); in the MOS, the dnode blocks of the dsl_dataset and
dsl_dir, the MOS meta-dnode's indirect block, the MOS objset_phys_t, a new block of the log
space map (spa_log_sm, module/zfs/spa_log_spacemap.c) and of the deferred-free bpobj
(dsl_pool_sync(), spa_sync_deferred_frees()). The blocks they replace are freed, and come
back as free space TXG_DEFER_SIZE txgs later.

Each of these blocks is small (mostly zeros and block pointers; metadata is always
compressed, zio_compress_select() with ZIO_COMPRESS_ON for metadata, lz4) and takes one
sector. They are allocated by the same rotor as the file's data, between its data blocks
in the active metaslab, and have more copies than data (dmu_write_policy(): one more for
dataset metadata, SPA_DVAS_PER_BP = 3 for the MOS), the second and third on the next
top-level vdevs (metaslab_alloc_dva(): ``mg = vd->vdev_mg->mg_next`` for d > 0), or, on
a vdev that holds a copy already, in the allocator's secondary metaslab and then the
vdev's CLAIM-activated one (metaslab_group_alloc_normal()).

What this does to a pool: its metadata stays the same size but moves with the data, and
the blocks it leaves behind become holes of a sector or a few inside metaslabs that data
has filled. Those holes are what makes a filled vdev's FRAG rise, and why a nearly full
vdev stops taking 128 KiB records before it is completely full (no free segment holds
one). They also decide what an overwrite of a vdev file hits: the live metadata sits
right after the last data written, not where the pool's creation put it.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator
from functools import lru_cache

from labsim.zfs.metaslab import allocator_for
from labsim.zfs.pool import Extent, Pool

# (blocks, copies) rewritten by each txg that changes a dataset, as listed above:
# the dataset's dnode block, meta-dnode indirect and objset_phys_t (2 copies each); the
# MOS's dsl_dataset and dsl_dir dnode blocks, meta-dnode indirect, objset_phys_t, log
# space map block and deferred-free bpobj block (3 copies each).
DATASET_BLOCKS = (3, 2)
MOS_BLOCKS = (6, 3)
# Object numbers the MOS blocks hash to allocators by (zio_dva_throttle(): cityhash of
# objset, object, level, blkid); any fixed distinct values keep the spread deterministic.
_MOS_OBJECTS = (1, 2, 32, 33, 64, 65)
# Blocks of the pool's creation that later txgs rewrite: its small ones.
SMALL_BLOCK = 16 * 1024


def rewrite_set() -> list[tuple[int, int, int]]:
    """(objset, object, copies) of each block a dirty txg rewrites; objset 0 is the MOS,
    -1 stands for the dataset written."""
    dataset = [(-1, i, DATASET_BLOCKS[1]) for i in range(DATASET_BLOCKS[0])]
    mos = [(0, _MOS_OBJECTS[i], MOS_BLOCKS[1]) for i in range(MOS_BLOCKS[0])]
    return dataset + mos


_REWRITE_SET = tuple(rewrite_set())  # what every call rewrites (a constant)
_REWRITE_COPIES = sum(copies for _, _, copies in _REWRITE_SET)


def rewrite_metadata(pool: Pool, objset: int) -> None:
    """The metadata a txg that changed objset ``objset`` writes: a new copy of each block
    of rewrite_set(), the first on the rotor's next vdev and the others on the vdevs after
    it (the ditto rule; a full vdev passes its copy on to the next), each replacing a copy
    the previous such txg wrote (or, the first time, one of the newest small blocks of the
    pool's creation), which is freed (deferred). The pool's metadata keeps its size. A
    copy that fits nowhere leaves the block it would replace where it is. Nothing happens
    in a pool without a creation profile (labsim estimates its metadata). The new copies
    of MOS blocks are also kept apart (pool.rewritten_mos): later txgs that change the
    MOS write those anew again, not the dataset's (labsim.zfs.mos.mos_written_anew())."""
    count = _REWRITE_COPIES
    old = pool.rewritten_metadata
    if not old:
        old = next_rewritten(pool)
        if len(old) < count:
            return
        moving = {id(e) for e in old}  # from now on rewritten, no longer fixed
        pool.metadata = [e for e in pool.metadata if id(e) not in moving]
    first = _rotor_vdev(pool)
    room = [v.free for v in pool.vdevs]
    current: list[Extent] = []
    placement = None
    lengths = _copy_lengths(tuple(map(_run_shape, old))) if len(old) <= count else None
    if lengths is not None:
        placement = _placement(first, len(room), objset, pool.allocators, lengths)
        if not all(map(operator.le, placement[1], room)):
            placement = None
    if placement is not None:
        # Every vdev has room for all the copies it is given: each copy goes where
        # _place_copies() would put it at its first try, and every old copy is freed.
        groups = placement[0]
        pool.deferred.extend(zip(itertools.repeat(pool.txg), old))
    else:
        replaced = iter(_copies(old))
        groups = tuple((key, tuple(owners)) for key, owners
                       in _place_copies(pool, objset, replaced, first, room, current).items())
        current.extend(replaced)  # pieces a gang block left beyond the set stay as they are
    mos: list[Extent] = []
    copies_of = _COPIES_OF
    for (target, allocator, role, size), owners in groups:
        vdev = pool.vdevs[target]
        taken = 0  # bytes of the group's copies allocated so far
        for offset, length in vdev.take(len(owners) * size, size, allocator=allocator,
                                        secondary=role == 1, claim=role >= 2):
            first = taken // size
            taken += length
            if length % size or length == size:  # one copy, or a gang block's piece
                extent = Extent(vdev.id, offset, length, dvas=copies_of[owners[first]])
                current.append(extent)
                if owners[first]:
                    mos.append(extent)
                continue
            # Copies end to end: extents of blocks of ``size``, one for each run of
            # copies of one owner (the MOS's or the dataset's).
            copies = length // size
            start = 0
            while start < copies:
                end = start + 1
                while end < copies and owners[first + end] == owners[first + start]:
                    end += 1
                extent = Extent(vdev.id, offset + start * size, (end - start) * size,
                                size if end - start > 1 else 0,
                                dvas=copies_of[owners[first + start]])
                current.append(extent)
                if owners[first + start]:
                    mos.append(extent)
                start = end
    pool.rewritten_metadata = current
    pool.rewritten_mos = mos


# The copies of a block of the rewritten set, indexed by whether it is the MOS's: the
# dataset's or a MOS block's.
_COPIES_OF = (DATASET_BLOCKS[1], MOS_BLOCKS[1])


def next_rewritten(pool: Pool) -> list[Extent]:
    """The copies the next txg that writes replaces (rewrite_metadata()): those the last
    one wrote, or before the first, the newest small blocks of the pool's creation."""
    if pool.rewritten_metadata:
        return pool.rewritten_metadata
    return [e for e in pool.metadata if e.length <= SMALL_BLOCK][-_REWRITE_COPIES:]


def _place_copies(pool: Pool, objset: int, replaced: Iterator[Extent],
                  first: int, room: list[int],
                  current: list[Extent]) -> dict[tuple[int, int, int, int], list[bool]]:
    """rewrite_metadata()'s placement copy by copy: on the first vdev from each copy's
    own that has the room for it. Frees (defers) each copy replaced; a copy that fits
    nowhere keeps its old block (added to ``current``). Returns the copies to allocate
    by (vdev, allocator, role, size), in the order they are first met, each copy as
    whether it is a MOS block's; the role is the copies of the block on that vdev before
    this one (0 primary, 1 secondary, 2 claim: labsim.zfs.metaslab_group.GroupAllocators)."""
    n = len(pool.vdevs)
    # (vdev, allocator, role, size) -> its copies: each group is allocated in one call,
    # block by block, which puts them where one call per copy would.
    groups: dict[tuple[int, int, int, int], list[bool]] = {}
    deferred, txg, allocators = pool.deferred, pool.txg, pool.allocators
    for i, (owner, obj, copies) in enumerate(_REWRITE_SET):
        allocator = allocator_for(objset if owner < 0 else owner, obj, 0, 0, allocators)
        on_vdev = [0] * n
        for d in range(copies):
            previous = next(replaced, None)
            if previous is None:  # an earlier txg had to gang a block: fewer, odd pieces
                continue
            # Each new copy takes what the copy it replaces took: on the first vdev from
            # this copy's on that has the room.
            length = previous.length
            for k in range(n):
                target = (first + i + d + k) % n
                if room[target] >= length:
                    break
            else:
                current.append(previous)
                continue
            room[target] -= length
            key = (target, allocator, on_vdev[target], length)
            on_vdev[target] += 1
            groups.setdefault(key, []).append(owner == 0)
            deferred.append((txg, previous))
    return groups


@lru_cache(maxsize=256)
def _placement(first: int, n: int, objset: int, allocators: int, lengths: tuple[int, ...]
               ) -> tuple[tuple[tuple[tuple[int, int, int, int], tuple[bool, ...]], ...],
                          tuple[int, ...]]:
    """_place_copies() when no vdev runs short, for old copies of ``lengths``: the groups
    it returns, and the bytes it puts on each vdev (which must fit for this to hold). A
    fill rewrites the same set a thousand times."""
    groups: dict[tuple[int, int, int, int], list[bool]] = {}
    need = [0] * n
    j = 0
    for i, (owner, obj, copies) in enumerate(_REWRITE_SET):
        allocator = allocator_for(objset if owner < 0 else owner, obj, 0, 0, allocators)
        on_vdev = [0] * n
        for d in range(copies):
            length = lengths[j]
            j += 1
            target = (first + i + d) % n
            need[target] += length
            key = (target, allocator, on_vdev[target], length)
            on_vdev[target] += 1
            groups.setdefault(key, []).append(owner == 0)
    return tuple((key, tuple(owners)) for key, owners in groups.items()), tuple(need)


_run_shape = operator.attrgetter("length", "block")


@lru_cache(maxsize=256)
def _copy_lengths(shapes: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
    """The length of each copy held by extents of these (length, block) shapes, in order
    (an extent of blocks holds length // block copies); None for more than the set has."""
    lengths: list[int] = []
    for length, block in shapes:
        if block:
            lengths.extend([block] * (length // block))
        else:
            lengths.append(length)
    return tuple(lengths) if len(lengths) == _REWRITE_COPIES else None


def _copies(extents: list[Extent]) -> list[Extent]:
    """The extents, those of several blocks split into one extent a block (a copy)."""
    out: list[Extent] = []
    for extent in extents:
        if extent.block and extent.length > extent.block:
            out.extend(Extent(extent.vdev, offset, extent.block, dvas=extent.dvas)
                       for offset in range(extent.offset, extent.offset + extent.length,
                                           extent.block))
        else:
            out.append(extent)
    return out


def _rotor_vdev(pool: Pool) -> int:
    """The vdev the rotor's next block goes to: the one it owes the most."""
    owed = pool.rotor.owed
    n = len(pool.vdevs)
    if len(owed) < n or not any(owed):
        return 0
    # max(range(n), key=owed.__getitem__), spelled out (asked at every txg): the first
    # of the vdevs owed most.
    best = 0
    for i in range(1, n):
        if owed[i] > owed[best]:
            best = i
    return best
