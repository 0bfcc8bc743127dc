"""Metaslabs: how a vdev is cut into allocation regions, and how free space, weight and
fragmentation are tracked in each.

Sizing follows vdev_metaslab_set_size() in module/zfs/vdev.c.

Free space inside a metaslab is kept as sorted, coalesced segments (the in-memory range
tree, ms_allocatable). Inside the chosen metaslab a block goes to the lowest free segment
that holds it whole: the "dynamic fit" allocator (metaslab_df_alloc()) keeps a cursor per
block alignment and searches onward from it, which for a metaslab that is filled once
from its start is the same thing; it differs after frees (OpenZFS resumes after its
cursor, labsim goes back to the first hole), which moves data inside a metaslab but never
changes how much a metaslab holds.

Which metaslab an allocation goes to is labsim.zfs.metaslab_group's.

Fragmentation is metaslab_set_fragmentation()'s: the space map histogram of free
segments (space_map_histogram_add(), module/zfs/space_map.c), each bucket's space
weighted by zfs_frag_table.
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass, field
from functools import lru_cache

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


# ---------------------------------------------------------------- metaslab


@dataclass(slots=True)
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
        # Each report is made once until it is read: the flag is tested first, since
        # most changes of a metaslab come after its first in a txg.
        if not self._memo_reported and self._memo_changes is not None:
            self._memo_reported = True
            self._memo_changes.append(self)
        if not self._order_reported and self._order_changes is not None:
            self._order_reported = True
            self._order_changes.append(self)
        self.has_space_map = True
        # mark_changed(), in place (every allocation and free comes here).
        self.dirty = True
        self.unflushed = True
        if not self._dirty_reported and self._dirty_reports is not None:
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
        starts, lengths = self.free_starts, self.free_lengths
        i = bisect.bisect_left(starts, offset)
        end = offset + length
        self.free += length
        self._touch()
        merge_prev = i > 0 and starts[i - 1] + lengths[i - 1] == offset
        merge_next = i < len(starts) and starts[i] == end
        if merge_prev and merge_next:
            lengths[i - 1] += length + lengths[i]
            del starts[i]
            del lengths[i]
        elif merge_prev:
            lengths[i - 1] += length
        elif merge_next:
            starts[i] = offset
            lengths[i] += length
        else:
            starts.insert(i, offset)
            lengths.insert(i, length)

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
