"""Metaslabs: how a vdev is cut into allocation regions, how free space is tracked, and
which metaslab an allocation goes to.

Sizing follows vdev_metaslab_set_size() in module/zfs/vdev.c.

Free space inside a metaslab is kept as sorted, coalesced segments (the in-memory range
tree, ms_allocatable). Inside the chosen metaslab a block goes to the lowest free segment
that holds it whole: the "dynamic fit" allocator (metaslab_df_alloc()) keeps a cursor per
block alignment and searches onward from it, which for a metaslab that is filled once
from its start is the same thing; it differs after frees (OpenZFS resumes after its
cursor, labsim goes back to the first hole), which moves data inside a metaslab but never
changes how much a metaslab holds.

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

Fragmentation is metaslab_set_fragmentation()'s: the space map histogram of free
segments (space_map_histogram_add(), module/zfs/space_map.c), each bucket's space
weighted by zfs_frag_table.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache

from labsim.zfs.activation import ActivationOrder
from labsim.zfs.versions import (
    SPA_ALLOCATORS,
    GroupFragmentation,
    MetaslabRules,
    MetaslabSizing,
    ZfsVersion,
)

SPA_MINBLOCKSHIFT = 9
SPA_MAXBLOCKSHIFT = 24  # 16 MiB: no metaslab is smaller than the largest block

# OpenZFS 2.x tunables (module/zfs/vdev.c)
ZFS_VDEV_DEFAULT_MS_COUNT = 200
ZFS_VDEV_MIN_MS_COUNT = 16
ZFS_VDEV_MS_COUNT_LIMIT = 1 << 17
ZFS_VDEV_DEFAULT_MS_SHIFT = 29  # 512 MiB
ZFS_VDEV_MAX_MS_SHIFT = 34  # 16 GiB

# include/sys/space_map.h: smp_histogram[] has 32 buckets; bucket i counts free segments
# of 2^(i + sm_shift) bytes up to twice that, and sm_shift is the vdev's ashift.
SPACE_MAP_HISTOGRAM_SIZE = 32

# zfs_metaslab_switch_threshold (metaslab.c), the same from 2.1 to 2.3.
ZFS_METASLAB_SWITCH_THRESHOLD = 2

_MASK64 = (1 << 64) - 1
_HASH_K1 = 0xB492B66FBE98F273
_HASH_K2 = 0x9AE16A3B2F90404F


def highbit64(value: int) -> int:
    """1-based index of the highest set bit, 0 for 0 (as in the kernel's highbit64)."""
    return value.bit_length()


def metaslab_shift(asize: int, version: ZfsVersion) -> int:
    """log2 of the metaslab size for a top-level vdev of ``asize`` allocatable bytes."""
    if version.metaslab_sizing is MetaslabSizing.AIM_FOR_200:
        # illumos / ZoL 0.6-0.7: "aim for roughly 200 metaslabs per vdev".
        return max(highbit64(asize // ZFS_VDEV_DEFAULT_MS_COUNT), SPA_MAXBLOCKSHIFT)
    ms_count = asize >> ZFS_VDEV_DEFAULT_MS_SHIFT
    if ms_count < ZFS_VDEV_MIN_MS_COUNT:
        shift = highbit64(asize // ZFS_VDEV_MIN_MS_COUNT)
    elif ms_count > ZFS_VDEV_DEFAULT_MS_COUNT:
        shift = highbit64(asize // ZFS_VDEV_DEFAULT_MS_COUNT)
    else:
        shift = ZFS_VDEV_DEFAULT_MS_SHIFT
    if shift < SPA_MAXBLOCKSHIFT:
        shift = SPA_MAXBLOCKSHIFT
    elif shift > ZFS_VDEV_MAX_MS_SHIFT:
        shift = ZFS_VDEV_MAX_MS_SHIFT
        # cap the total count to constrain memory footprint
        if (asize >> shift) > ZFS_VDEV_MS_COUNT_LIMIT:
            shift = highbit64(asize // ZFS_VDEV_MS_COUNT_LIMIT)
    return shift


def metaslab_count(asize: int, version: ZfsVersion) -> int:
    """Whole metaslabs that fit; the tail smaller than one metaslab is never used."""
    return asize >> metaslab_shift(asize, version)


# ---------------------------------------------------------------- allocators


def _rotate(value: int, shift: int) -> int:
    return value if shift == 0 else ((value >> shift) | (value << (64 - shift))) & _MASK64


def cityhash4(w1: int, w2: int, w3: int, w4: int) -> int:
    """cityhash4() of module/zcommon/cityhash.c, in 64-bit unsigned arithmetic."""
    mul = (_HASH_K2 + 64) & _MASK64
    a = (w1 * _HASH_K1) & _MASK64
    b = w2 & _MASK64
    c = (w4 * mul) & _MASK64
    d = (w3 * _HASH_K2) & _MASK64
    u = (_rotate((a + b) & _MASK64, 43) + _rotate(c, 30) + d) & _MASK64
    v = (a + _rotate((b + _HASH_K2) & _MASK64, 18) + c) & _MASK64
    # cityhash_helper()
    x = ((u ^ v) * mul) & _MASK64
    x ^= x >> 47
    y = ((v ^ x) * mul) & _MASK64
    y ^= y >> 47
    return (y * mul) & _MASK64


def allocator_for(objset: int, obj: int, level: int, blkid: int,
                  allocators: int = SPA_ALLOCATORS) -> int:
    """The allocator a block uses (zio_dva_throttle(), module/zfs/zio.c): objects are cut
    into regions of 2^20 blocks, and each (objset, object, level, region) hashes to one."""
    return _region_allocator(objset, obj, level, blkid >> 20, allocators)


@lru_cache(maxsize=4096)
def _region_allocator(objset: int, obj: int, level: int, region: int, allocators: int) -> int:
    # Pure, and asked for the same few blocks every txg (labsim.zfs.metadata_rewrite).
    return cityhash4(objset, obj, level, region) % allocators


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


# ---------------------------------------------------------------- metaslab


@dataclass
class Metaslab:
    """One metaslab: its place on the vdev, its free segments (offset, length), and what
    its space map on disk says."""

    start: int
    size: int
    free_starts: list[int] = field(default_factory=list)
    free_lengths: list[int] = field(default_factory=list)
    # A metaslab that has never been written has no space map (ms_sm is NULL); OpenZFS
    # counts it as 0 % fragmented and zdb prints "spacemap 0" for it.
    has_space_map: bool = False
    free: int = 0  # kept equal to sum(free_lengths)
    # The space map as last written (metaslab_sync() / the log space map flush):
    # its object number in the MOS (0 until the first sync that has changes), smp_alloc
    # (allocated bytes as of the last flush), the number of entries written, and the
    # txg of the oldest change still only in the pool's log space maps.
    sm_object: int = 0
    sm_alloc: int = 0
    sm_entries: int = 0
    unflushed_txg: int = 0
    dirty: bool = False  # changed since its last sync
    unflushed: bool = False  # changed since its last flush
    # ms_unflushed_dirty: a sync wrote changes of it to a log space map since it was last
    # flushed (labsim.zfs.spacemaps).
    unflushed_dirty: bool = False
    # ms_activation_weight's bucket while the metaslab is active (0: inactive).
    activation_index: int = 0
    # weight() of the free segments as they are now, by ashift; emptied by every change
    # (allocate/release call _touch). Choosing a metaslab weighs them all, often.
    _weights: dict[int, tuple[int, int]] = field(default_factory=dict, compare=False,
                                                 repr=False)
    # fragmentation() likewise, by (ashift, frag table): the allocator asks every txg
    # whether each vdev is still allocatable (labsim.zfs.allocator.group_allocatable).
    _fragmentation: dict[tuple[int, tuple[int, ...]], int] = field(
        default_factory=dict, compare=False, repr=False)
    # The FragmentationMemo keeping its vdev's FRAG: the list a change of this metaslab is
    # reported to (once until the memo reads it), and the (fragmentation, weight) the memo
    # last counted for it.
    _memo_changes: list[Metaslab] | None = field(default=None, compare=False, repr=False)
    _memo_reported: bool = field(default=False, compare=False, repr=False)
    _memo_counted: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)
    # The list a pool's space maps read the changed metaslabs from
    # (labsim.zfs.spacemaps.DirtyMetaslabs): this metaslab adds itself when it becomes
    # dirty, once until the list is read.
    _dirty_reports: list[Metaslab] | None = field(default=None, compare=False, repr=False)
    _dirty_reported: bool = field(default=False, compare=False, repr=False)
    # The list its group's ActivationOrder reads the changed metaslabs from
    # (labsim.zfs.activation): this metaslab adds itself when its free space changes,
    # once until the list is read.
    _order_changes: list[Metaslab] | None = field(default=None, compare=False, repr=False)
    _order_reported: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def empty(cls, start: int, size: int) -> Metaslab:
        return cls(start=start, size=size, free_starts=[start], free_lengths=[size], free=size)

    @property
    def alloc(self) -> int:
        return self.size - self.free

    def largest_free_segment(self) -> int:
        lengths = self.free_lengths
        return max(lengths) if lengths else 0

    def _touch(self) -> None:
        # Emptied only when they hold something (a fill touches metaslabs tens of
        # thousands of times, most often with nothing cached since the last change).
        if self._weights:
            self._weights.clear()
        if self._fragmentation:
            self._fragmentation.clear()
        if self._memo_changes is not None and not self._memo_reported:
            self._memo_reported = True
            self._memo_changes.append(self)
        if self._order_changes is not None and not self._order_reported:
            self._order_reported = True
            self._order_changes.append(self)
        self.has_space_map = True
        # mark_changed(), in place (every allocation and free comes here).
        self.dirty = True
        self.unflushed = True
        if self._dirty_reports is not None and not self._dirty_reported:
            self._dirty_reported = True
            self._dirty_reports.append(self)

    def mark_changed(self) -> None:
        """Changed since its last sync and its last flush (dirty and unflushed)."""
        self.dirty = True
        self.unflushed = True
        if self._dirty_reports is not None and not self._dirty_reported:
            self._dirty_reported = True
            self._dirty_reports.append(self)

    def allocate(self, length: int, block: int = 0) -> list[tuple[int, int]]:
        """Take ``length`` bytes, in whole blocks of ``block`` bytes, each from the lowest
        free segment that holds it; with ``block`` 0, from the lowest free segments in
        pieces of any size (a stream of sectors).

        Returns the (offset, length) pieces used, consecutive blocks merged. Segments
        too small for a block are passed over. Raises ValueError when the blocks do
        not all fit; nothing is taken then.
        """
        block = block or (1 << SPA_MINBLOCKSHIFT)
        if length % block:
            raise ValueError("allocation is not a whole number of blocks")
        # One segment holding it all is enough (length is whole blocks); otherwise count.
        if length > self.free or (length and max(self.free_lengths) < length
                                  and block_fit(self.free_lengths, block) < length):
            raise ValueError("metaslab allocation larger than its free space")
        return self._carve(length, block)

    def _carve(self, length: int, block: int) -> list[tuple[int, int]]:
        """allocate() once ``length`` is known to be whole ``block``s that fit."""
        starts, lengths = self.free_starts, self.free_lengths
        pieces: list[tuple[int, int]] = []
        remaining = length
        i = 0
        while remaining > 0:
            seg_len = lengths[i]
            take = seg_len - seg_len % block  # whole blocks
            if take == 0:
                i += 1
                continue
            if take > remaining:
                take = remaining
            seg_start = starts[i]
            pieces.append((seg_start, take))
            remaining -= take
            if take == seg_len:
                del starts[i]
                del lengths[i]
            else:
                starts[i] = seg_start + take
                lengths[i] = seg_len - take
                i += 1
        self.free -= length
        self._touch()
        return pieces

    def release(self, offset: int, length: int) -> None:
        """Return a segment to the free list, merging with its neighbours."""
        i = bisect.bisect_left(self.free_starts, offset)
        end = offset + length
        self.free += length
        self._touch()
        merge_prev = i > 0 and self.free_starts[i - 1] + self.free_lengths[i - 1] == offset
        merge_next = i < len(self.free_starts) and self.free_starts[i] == end
        if merge_prev and merge_next:
            self.free_lengths[i - 1] += length + self.free_lengths[i]
            del self.free_starts[i]
            del self.free_lengths[i]
        elif merge_prev:
            self.free_lengths[i - 1] += length
        elif merge_next:
            self.free_starts[i] = offset
            self.free_lengths[i] += length
        else:
            self.free_starts.insert(i, offset)
            self.free_lengths.insert(i, length)

    def histogram(self, ashift: int) -> list[int]:
        """smp_histogram: free segments counted by power-of-two bucket, bucket i holding
        segments of 2^(i + ashift) up to 2^(i + ashift + 1) bytes; segments larger than
        the last bucket count there as several (space_map_histogram_add())."""
        buckets = [0] * SPACE_MAP_HISTOGRAM_SIZE
        for length in self.free_lengths:
            bucket = length.bit_length() - 1 - ashift
            if bucket < 0:
                continue
            if bucket >= SPACE_MAP_HISTOGRAM_SIZE:
                buckets[-1] += 1 << (bucket - SPACE_MAP_HISTOGRAM_SIZE + 1)
            else:
                buckets[bucket] += 1
        return buckets

    def fragmentation(self, ashift: int, frag_table: tuple[int, ...]) -> int:
        """Percent fragmentation as metaslab_set_fragmentation() computes it from the
        space map histogram: each bucket's free space (counted at the bucket's lower
        bound) weighted by the release's zfs_frag_table (MetaslabRules.frag_table), so
        that many small holes score high and big free runs low. A metaslab without a
        space map is 0."""
        if not self.has_space_map:
            return 0
        key = (ashift, frag_table)
        cached = self._fragmentation.get(key)
        if cached is None:
            cached = segments_fragmentation(self.free_lengths, ashift, frag_table)
            self._fragmentation[key] = cached
        return cached

    def weight(self, ashift: int) -> tuple[int, int]:
        """metaslab_segment_weight() as (bucket index, segment count): larger is better."""
        cached = self._weights.get(ashift)
        if cached is None:
            cached = segment_weight(self.size, self.free, self.free_lengths, ashift)
            self._weights[ashift] = cached
        return cached


def block_fit(free_lengths: list[int], block: int) -> int:
    """Bytes of whole ``block``-byte blocks the free segments hold."""
    return sum(seg // block for seg in free_lengths) * block


def histogram_fragmentation(histogram: list[int], sm_shift: int,
                            frag_table: tuple[int, ...]) -> int:
    """metaslab_set_fragmentation() for one space map histogram (integer percent); the
    last entry of ``frag_table`` (FRAGMENTATION_TABLE_SIZE - 1) takes every larger run."""
    total = weighted = 0
    for i, count in enumerate(histogram):
        if not count:
            continue
        idx = min(sm_shift - SPA_MINBLOCKSHIFT + i, len(frag_table) - 1)
        space = count << (i + sm_shift)
        total += space
        weighted += space * frag_table[idx]
    return weighted // total if total else 0


def segments_fragmentation(free_lengths: list[int], sm_shift: int,
                           frag_table: tuple[int, ...]) -> int:
    """histogram_fragmentation() of the histogram of ``free_lengths`` (Metaslab.histogram()),
    summed segment by segment: the sums are of integers, so the order does not matter, and
    a metaslab has far fewer free segments than the histogram has buckets (the allocator
    asks every changed metaslab at every txg)."""
    total = weighted = 0
    last = SPACE_MAP_HISTOGRAM_SIZE - 1
    top = len(frag_table) - 1
    base = sm_shift - SPA_MINBLOCKSHIFT
    for length in free_lengths:
        bucket = length.bit_length() - 1 - sm_shift
        if bucket < 0:
            continue
        # A segment beyond the last bucket counts there as 2^(bucket - last) segments:
        # the same space, weighed by the last bucket's entry.
        space = 1 << (bucket + sm_shift)
        total += space
        # frag_table[min(base + min(bucket, last), top)], without min() (see _largest()).
        idx = base + (bucket if bucket < last else last)
        weighted += space * frag_table[idx if idx < top else top]
    return weighted // total if total else 0


def group_fragmentation(metaslabs: list[Metaslab], ashift: int,
                        rules: MetaslabRules) -> int | None:
    """metaslab_group_fragmentation(): a vdev's FRAG, its metaslabs' fragmentation averaged
    as the release does it (MetaslabRules.group_fragmentation); None where OpenZFS has no
    valid metric (ZFS_FRAG_INVALID, printed "-"). Every labsim metaslab has one (the
    spacemap_histogram feature is always on)."""
    frags = [m.fragmentation(ashift, rules.frag_table) for m in metaslabs]
    # Weighted by free space, counted in 512-byte units ("to prevent overflows").
    weights = [m.free // 512 for m in metaslabs]
    return _average(len(metaslabs), sum(frags), sum(weights),
                    sum(map(operator.mul, frags, weights)), rules)


def _average(count: int, frag_sum: int, weight_sum: int, weighted_sum: int,
             rules: MetaslabRules) -> int | None:
    """group_fragmentation() from its sums: of the metaslabs' fragmentation, of their
    weights (free space in 512-byte units) and of fragmentation times weight."""
    if not count:
        return 0
    if rules.group_fragmentation is GroupFragmentation.MEAN:
        return frag_sum // count
    if not weight_sum:
        return None
    return weighted_sum // weight_sum


@dataclass
class FragmentationMemo:
    """group_fragmentation() of one vdev's metaslabs, each metaslab's part of it kept until
    that metaslab changes: the allocator asks every vdev's FRAG at every txg
    (labsim.zfs.allocator.group_allocatable), and a 1 TiB fill is a thousand txgs over
    hundreds of metaslabs, of which a txg changes a few. A metaslab the memo has counted
    reports its next change to the memo's ``changed`` list (Metaslab._touch), so a read
    looks at those alone. The sums are of integers, so updating them is exact. One memo
    per list of metaslabs (a vdev's): a second would take the reports from the first; and
    the list keeps its members (metaslabs are added at its end, never replaced)."""

    # The list counted (a vdev's metaslabs, which only ever grows: vdev_expand() adds
    # metaslabs at its end) and how many it held.
    source: list[Metaslab] | None = None
    count: int = 0
    changed: list[Metaslab] = field(default_factory=list)
    ashift: int = -1
    rules: MetaslabRules | None = None
    frag_sum: int = 0
    weight_sum: int = 0
    weighted_sum: int = 0  # sum of frag * weight

    def get(self, metaslabs: list[Metaslab], ashift: int, rules: MetaslabRules) -> int | None:
        """group_fragmentation(metaslabs, ashift, rules)."""
        changed = self.changed
        if (metaslabs is not self.source or len(metaslabs) != self.count
                or ashift != self.ashift or rules is not self.rules):
            self._count_all(metaslabs, ashift, rules)
        elif changed:
            frag_table = rules.frag_table
            for ms in changed:
                ms._memo_reported = False
                frag, weight = ms.fragmentation(ashift, frag_table), ms.free // 512
                old_frag, old_weight = ms._memo_counted
                self.frag_sum += frag - old_frag
                self.weight_sum += weight - old_weight
                self.weighted_sum += frag * weight - old_frag * old_weight
                ms._memo_counted = (frag, weight)
            changed.clear()
        return _average(len(metaslabs), self.frag_sum, self.weight_sum, self.weighted_sum,
                        rules)

    def _count_all(self, metaslabs: list[Metaslab], ashift: int,
                   rules: MetaslabRules) -> None:
        self.source, self.count = metaslabs, len(metaslabs)
        self.ashift, self.rules = ashift, rules
        self.changed = []
        self.frag_sum = self.weight_sum = self.weighted_sum = 0
        for ms in metaslabs:
            frag, weight = ms.fragmentation(ashift, rules.frag_table), ms.free // 512
            self.frag_sum += frag
            self.weight_sum += weight
            self.weighted_sum += frag * weight
            ms._memo_counted = (frag, weight)
            ms._memo_changes, ms._memo_reported = self.changed, False



def segment_weight(size: int, free: int, free_lengths: list[int],
                   ashift: int) -> tuple[int, int]:
    """metaslab_segment_weight(): a completely free metaslab weighs as one segment of its
    whole size (the bucket of highbit64(ms_size) - 1); a full one weighs 0; otherwise
    the highest bucket holding free segments and their number
    (metaslab_weight_from_range_tree(); the range tree's buckets are capped at the
    space map's largest, SPACE_MAP_HISTOGRAM_SIZE + ashift - 1)."""
    max_idx = SPACE_MAP_HISTOGRAM_SIZE + ashift - 1
    if free == size:
        idx = highbit64(size) - 1
        if idx < max_idx:
            return idx, 1
        return max_idx, 1 << (idx - max_idx)
    if free == 0:
        return 0, 0
    top = max(free_lengths).bit_length() - 1  # the highest bucket holding a segment
    if top > max_idx:
        count = sum(1 << (length.bit_length() - 1 - max_idx) for length in free_lengths
                    if length.bit_length() - 1 >= max_idx)
        return max_idx, count
    # In bucket ``top``: no segment is above it, so those of at least 2^top bytes.
    return top, sum(map((1 << top).__le__, free_lengths))


# ---------------------------------------------------------------- choosing a metaslab


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
