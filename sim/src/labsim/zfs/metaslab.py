"""Metaslabs: how a vdev is cut into allocation regions, and how free space is tracked.

Sizing follows vdev_metaslab_set_size() in module/zfs/vdev.c. Free space inside a
metaslab is kept as sorted, coalesced segments (the in-memory range tree); allocation
is first-fit from the lowest address, which is what the "dynamic fit" allocator does
while a metaslab has plenty of contiguous free space. Fragmentation is computed as
metaslab_set_fragmentation() does, from the free-segment size histogram and
zfs_frag_table (module/zfs/metaslab.c).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from labsim.zfs.versions import ZfsVersion

SPA_MINBLOCKSHIFT = 9
SPA_MAXBLOCKSHIFT = 24  # 16 MiB: no metaslab is smaller than the largest block

# OpenZFS 2.x tunables (module/zfs/vdev.c)
ZFS_VDEV_DEFAULT_MS_COUNT = 200
ZFS_VDEV_MIN_MS_COUNT = 16
ZFS_VDEV_MS_COUNT_LIMIT = 1 << 17
ZFS_VDEV_DEFAULT_MS_SHIFT = 29  # 512 MiB
ZFS_VDEV_MAX_MS_SHIFT = 34  # 16 GiB

# Fragmentation weight of a free segment by its size class, 512 B .. >= 16 MiB.
ZFS_FRAG_TABLE = (100, 100, 98, 95, 90, 80, 70, 60, 50, 40, 30, 20, 15, 10, 5, 0)


def highbit64(value: int) -> int:
    """1-based index of the highest set bit, 0 for 0 (as in the kernel's highbit64)."""
    return value.bit_length()


def metaslab_shift(asize: int, version: ZfsVersion) -> int:
    """log2 of the metaslab size for a top-level vdev of ``asize`` allocatable bytes."""
    if version.metaslab_sizing == "legacy":
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


@dataclass
class Metaslab:
    """One metaslab: its place on the vdev and its free segments (offset, length)."""

    start: int
    size: int
    free_starts: list[int] = field(default_factory=list)
    free_lengths: list[int] = field(default_factory=list)
    # A metaslab that has never been written has no space map; OpenZFS counts it as
    # 0 % fragmented.
    has_space_map: bool = False
    free: int = 0  # kept equal to sum(free_lengths)

    @classmethod
    def empty(cls, start: int, size: int) -> Metaslab:
        return cls(start=start, size=size, free_starts=[start], free_lengths=[size], free=size)

    @property
    def alloc(self) -> int:
        return self.size - self.free

    def largest_free_segment(self) -> int:
        return max(self.free_lengths, default=0)

    def allocate(self, length: int) -> list[tuple[int, int]]:
        """Take ``length`` bytes first-fit from the lowest address.

        Returns the (offset, length) pieces used; several pieces when no single free
        segment is large enough (a stream of records simply continues in the next
        hole). The caller checks there is enough free space.
        """
        pieces: list[tuple[int, int]] = []
        remaining = length
        i = 0
        while remaining > 0 and i < len(self.free_starts):
            seg_start, seg_len = self.free_starts[i], self.free_lengths[i]
            take = min(seg_len, remaining)
            pieces.append((seg_start, take))
            remaining -= take
            if take == seg_len:
                del self.free_starts[i]
                del self.free_lengths[i]
            else:
                self.free_starts[i] = seg_start + take
                self.free_lengths[i] = seg_len - take
                i += 1
        if remaining:
            raise ValueError("metaslab allocation larger than its free space")
        self.free -= length
        self.has_space_map = True
        return pieces

    def release(self, offset: int, length: int) -> None:
        """Return a segment to the free list, merging with its neighbours."""
        i = bisect.bisect_left(self.free_starts, offset)
        end = offset + length
        self.free += length
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

    def fragmentation(self, ashift: int) -> int:
        """Percent fragmentation as metaslab_set_fragmentation() computes it.

        Each free segment is counted in its power-of-two histogram bucket (at the
        bucket's lower bound, as the space map histogram does) and weighted by
        zfs_frag_table: many small holes score high, big free runs score 0.
        """
        if not self.has_space_map:
            return 0
        total = weighted = 0
        for length in self.free_lengths:
            bucket = length.bit_length() - 1
            if bucket < ashift:
                continue
            space = 1 << bucket
            idx = min(bucket - SPA_MINBLOCKSHIFT, len(ZFS_FRAG_TABLE) - 1)
            total += space
            weighted += space * ZFS_FRAG_TABLE[idx]
        return weighted // total if total else 0
