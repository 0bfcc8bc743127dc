"""A metaslab group (one top-level vdev's metaslabs) allocating: which metaslab each
allocator has active, when it gives one up, and which it activates next.

Which metaslab (module/zfs/metaslab.c, OpenZFS 2.1):

* ``spa_allocators`` (4, module/zfs/spa.c) allocators work side by side. A block's
  allocator is ``cityhash4(objset, object, level, blkid >> 20) % 4`` (zio_dva_throttle()
  in module/zfs/zio.c): every block of one region of 2^20 blocks of an object uses the
  same allocator, so a file's data stays together, and different files spread over
  the allocators.
* In each top-level vdev (metaslab group) each allocator has a *primary* active
  metaslab, and a *secondary* one for a second copy of a block on the same vdev
  (metaslab_group_alloc_normal()). While the primary has room, blocks go there.
* Otherwise the allocator activates the best inactive metaslab: the metaslab tree is
  sorted by weight, highest first, ties by lowest offset (metaslab_compare()). 2.1 weighs
  by segments (metaslab_segment_weight()): the power-of-two bucket of the largest free
  segments and how many there are. A metaslab never written weighs as one segment of its
  whole size, so it outranks every metaslab already used: new data goes to fresh
  metaslabs first. (Space-based weighting with its bonus for low LBAs,
  metaslab_space_weight(), is only used without the spacemap_histogram feature; the
  LBA bonus applies to rotational vdevs only, and file vdevs set vdev_nonrot,
  module/os/linux/zfs/vdev_file.c.)
* An active metaslab is given up once the bucket of its largest free segment has fallen
  ``zfs_metaslab_switch_threshold`` (2) buckets below the one it was activated with
  (metaslab_segment_may_passivate()): a fresh metaslab takes data until it is about half
  full, then the allocator moves to the next fresh one.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from labsim.zfs.activation import ActivationOrder
from labsim.zfs.metaslab import (
    SPACE_MAP_HISTOGRAM_SIZE,
    ZFS_METASLAB_SWITCH_THRESHOLD,
    Metaslab,
    block_fit,
    highbit64,
)
from labsim.zfs.versions import SPA_ALLOCATORS


@dataclass
class GroupAllocators:
    """Each allocator's active metaslabs in one metaslab group (mga_primary and
    mga_secondary of metaslab_group_allocator_t), as metaslab indices."""

    primary: list[int | None] = field(default_factory=lambda: [None] * SPA_ALLOCATORS)
    secondary: list[int | None] = field(default_factory=lambda: [None] * SPA_ALLOCATORS)
    # The metaslab activated for a third copy of a block on this vdev, for no allocator
    # (metaslab_group_alloc_normal(): a vdev holding two DVAs of the block already asks
    # for METASLAB_WEIGHT_CLAIM, and metaslab_activate_allocator() gives a CLAIM
    # activation no allocator; its weight keeps the CLAIM bit, so the next third copy's
    # find_valid_metaslab() finds it first). One slot, kept as the others are.
    claim: list[int | None] = field(default_factory=lambda: [None])
    _order: ActivationOrder | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, count: int) -> GroupAllocators:
        """A group with ``count`` allocators (spa_alloc_count, labsim.zfs.versions)."""
        return cls([None] * count, [None] * count)

    @property
    def count(self) -> int:
        return len(self.primary)

    def passivate_all(self) -> None:
        """Nothing is active after an export and import: the tree starts over."""
        self.primary = [None] * len(self.primary)
        self.secondary = [None] * len(self.secondary)
        self.claim = [None]

    def active(self) -> set[int]:
        return {i for i in (*self.primary, *self.secondary, *self.claim) if i is not None}

    def slots(self, secondary: bool, claim: bool) -> list[int | None]:
        """The active metaslab of each allocator for a first copy on this vdev (primary),
        a second (secondary) or a third (claim, one slot for all)."""
        return self.claim if claim else self.secondary if secondary else self.primary

    def activation_order(self) -> ActivationOrder:
        """The group's inactive metaslabs by weight (labsim.zfs.activation), kept between
        activations; a copy of the group starts a new one."""
        if self._order is None:
            self._order = ActivationOrder()
        return self._order

def activation_order(metaslabs: list[Metaslab], ashift: int,
                     exclude: AbstractSet[int] = frozenset()) -> list[int]:
    """Inactive metaslabs in the order find_valid_metaslab() walks them: heaviest first,
    ties by lowest offset (metaslab_compare()); full ones are left out."""
    return [i for *_, i in sorted(_candidates(metaslabs, ashift, exclude))]


def _candidates(metaslabs: list[Metaslab], ashift: int,
                exclude: AbstractSet[int]) -> list[tuple[int, int, int, int]]:
    """(-bucket, -count, offset, index) of every inactive metaslab with free space: the
    smallest is the one find_valid_metaslab() tries first."""
    # The cached weight read in place (an activation weighs every metaslab of the vdev).
    return [(-bucket, -count, ms.start, i) for i, ms in enumerate(metaslabs)
            if ms.free and i not in exclude
            for bucket, count in (ms._weights.get(ashift) or ms.weight(ashift),)]


def _fits(ms: Metaslab, block: int) -> bool:
    # metaslab_should_allocate(): the largest free segment must hold the block (a block
    # is at least a sector: with that much free, there are segments).
    return ms.free >= block and max(ms.free_lengths) >= block


def _activate(metaslabs: list[Metaslab], group: GroupAllocators, allocator: int,
              block: int, ashift: int, secondary: bool, claim: bool = False) -> int | None:
    slots = group.slots(secondary, claim)
    current = slots[allocator]
    if current is not None and _fits(metaslabs[current], block):
        return current
    if current is not None:
        metaslabs[current].activation_index = 0
        slots[allocator] = None
    # The first candidate in activation_order() that fits, from the order kept between
    # activations (the same order, labsim.zfs.activation).
    index = group.activation_order().first(metaslabs, ashift, group.active(),
                                           lambda ms: _fits(ms, block))
    if index is not None:
        slots[allocator] = index
        metaslabs[index].activation_index = metaslabs[index].weight(ashift)[0]
        return index
    # Nothing inactive fits: use whichever metaslab still has room (OpenZFS would try
    # the other allocators' metaslabs and then other vdevs; labsim's caller has already
    # checked that the vdev has the space).
    for index, ms in enumerate(metaslabs):
        if _fits(ms, block):
            return index
    return None


def _gang(metaslabs: list[Metaslab], nbytes: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    for ms in metaslabs:
        grab = min(ms.free, nbytes)
        if grab:
            pieces.extend(ms.allocate(grab))
            nbytes -= grab
        if not nbytes:
            return pieces
    raise ValueError("vdev allocation larger than its free space")


def _may_passivate(ms: Metaslab, ashift: int, fill_fresh: bool, largest: int) -> bool:
    """metaslab_segment_may_passivate(): give the metaslab up once its weight has fallen
    zfs_metaslab_switch_threshold buckets below the weight it was activated with; from
    2.3.1 (``fill_fresh``) not while one free segment (the ``largest``) holds more than
    15/16 of its free space."""
    if not ms.activation_index:
        return False
    if fill_fresh and largest > ms.free * 15 // 16:
        return False
    return _weight_bucket(ms, ashift, largest) <= ms.activation_index - \
        ZFS_METASLAB_SWITCH_THRESHOLD


def _weight_bucket(ms: Metaslab, ashift: int, largest: int) -> int:
    """segment_weight(...)[0] of ``ms`` whose largest free segment is ``largest``: the
    bucket alone, without counting the segments in it (asked after every allocation)."""
    max_idx = SPACE_MAP_HISTOGRAM_SIZE + ashift - 1
    if ms.free == ms.size:
        return min(highbit64(ms.size) - 1, max_idx)
    if ms.free == 0:
        return 0
    bucket = largest.bit_length() - 1
    return bucket if bucket < max_idx else max_idx  # min(), without its call


def _largest(lengths: list[int]) -> int:
    """The largest free segment (0 without any). A metaslab being filled has one or two:
    the builtin max() parses its keywords at every call in CPython 3.11, which costs more
    than reading a single segment, and a fill asks this some 20,000 times."""
    count = len(lengths)
    if count == 1:
        return lengths[0]
    if count == 2:
        first, second = lengths
        return first if first > second else second
    return max(lengths) if lengths else 0


def group_allocate(metaslabs: list[Metaslab], group: GroupAllocators, allocator: int,
                   nbytes: int, block: int, ashift: int,
                   secondary: bool = False, fill_fresh: bool = False,
                   claim: bool = False) -> list[tuple[int, int]]:
    """Allocate ``nbytes`` in blocks of ``block`` bytes on one vdev, for ``allocator``.

    Blocks go to the allocator's active metaslab until it must be given up (too full
    for a block, or passivated by the switch threshold), then to the next one it
    activates. Checked every 1/16 of a metaslab (or every block, if larger), which is
    enough to switch where OpenZFS would. Returns the (offset, length) pieces.
    """
    pieces: list[tuple[int, int]] = []
    # group.slots(secondary, claim) and group.count, written out: a fill calls this some
    # 12,000 times, and each call costs more than the test in the browser's Python.
    slots = group.claim if claim else group.secondary if secondary else group.primary
    # metaslab_group_alloc_normal() (module/zfs/metaslab.c, 2.1.11 and 2.3.9): with fewer
    # metaslabs ready than three an allocator (mg_ms_ready, every metaslab of a new
    # pool's vdev), every allocation uses allocator 0's.
    if claim or len(metaslabs) < 3 * len(group.primary):
        allocator = 0
    index = slots[allocator]
    if index is not None and nbytes > 0 and not nbytes % block:
        # The loop below when the active metaslab's lowest free segment holds the whole
        # request and one step does it (a txg's metadata blocks, most calls of a fill):
        # one piece from that segment, then the same test for giving the metaslab up.
        ms = metaslabs[index]
        lengths = ms.free_lengths
        step = (ms.size >> 4) // block * block
        if lengths and lengths[0] >= nbytes and (nbytes <= step or nbytes == block):
            starts = ms.free_starts
            start, seg_len = starts[0], lengths[0]
            if seg_len == nbytes:
                del starts[0]
                del lengths[0]
            else:
                starts[0] = start + nbytes
                lengths[0] = seg_len - nbytes
            ms.free -= nbytes
            ms._touch()
            largest = _largest(lengths)
            if (ms.free < block or largest < block
                    or _may_passivate(ms, ashift, fill_fresh, largest)):
                ms.activation_index = 0
                slots[allocator] = None
            return [(start, nbytes)]
    remaining = nbytes
    while remaining > 0:
        index = slots[allocator]
        if index is not None:
            ms = metaslabs[index]
            lengths = ms.free_lengths  # changed in place by allocate()
            largest = _largest(lengths)
            if ms.free < block or largest < block:  # not _fits()
                index = None
        if index is None:
            index = _activate(metaslabs, group, allocator, block, ashift, secondary, claim)
            if index is None:
                # No free segment holds a whole block: OpenZFS would write a gang block
                # (pieces under one header, zio_write_gang_block()); labsim takes the
                # rest in pieces from the lowest metaslabs.
                pieces.extend(_gang(metaslabs, remaining))
                return pieces
            ms = metaslabs[index]
            lengths = ms.free_lengths
            largest = max(lengths)  # it fits: there are segments
        step = (ms.size >> 4) // block * block
        if step < block:
            step = block
        grab = remaining if remaining < step else step
        # Whole blocks the metaslab holds, counted only when no one segment holds them.
        if grab % block or largest < grab:
            grab = min(grab, block_fit(lengths, block))
        if grab % block:
            pieces.extend(ms.allocate(grab, block))  # raises, as it always did
        else:
            # Whole blocks that fit (one segment holds them, or block_fit() counted
            # them): allocate() without checking again.
            pieces.extend(ms._carve(grab, block))
        remaining -= grab
        if slots[allocator] == index:
            largest = _largest(lengths)
            if (ms.free < block or largest < block  # no longer _fits()
                    or _may_passivate(ms, ashift, fill_fresh, largest)):
                ms.activation_index = 0
                slots[allocator] = None
    return pieces
