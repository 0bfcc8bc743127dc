"""Damage, scrub and resilver: which blocks a leaf's bad bytes hit, and what a scan does.

OpenZFS never trusts a read: every block pointer holds the checksum of the block it
points to, so a copy whose bytes were overwritten behind ZFS's back fails its checksum
when it is read. A scrub reads every allocated block (dsl_scan.c); a resilver does the
same for the blocks a new or returning leaf is missing. labsim models this at the level
of whole blocks: it knows where every block of every file, and of the pool's own
metadata, was allocated (pool.Extent), and which byte ranges of each leaf were damaged.

* Where a block lives on a leaf (module/zfs/vdev_label.c, vdev_mirror.c, vdev_raidz.c):
  a leaf's allocatable space starts after its front labels and boot region
  (VDEV_LABEL_START_SIZE, 4 MiB), so vdev offset ``o`` is leaf offset ``o + 4 MiB`` on a
  single device and on every child of a mirror. RAID-Z stripes the vdev's sectors over
  its children: sector ``i`` of the vdev is on child ``i % width`` at row ``i // width``
  (vdev_raidz_map_alloc(): the first column is ``b % dcols`` and the offset on each child
  is ``(b / dcols) << ashift``).
* What a scrub repairs (vdev_mirror_io_done(), vdev_raidz_io_done(), zio_checksum_verify()):
  a mirror block with at least one good copy is rewritten on the bad children; a RAID-Z
  block with no more bad columns than parity is reconstructed and its bad columns
  rewritten. A block with no good copy (a single device, copies=1; or too many bad
  columns) is a permanent error: it counts in the scan's errors and the pool's data
  errors. Labels are ignored: there are four copies of them, and damage to them alone
  does not fail a block read.
* What it counts: each bad copy read adds one to its leaf's CKSUM counter
  (vdev_stat_update() on a checksum failure, once per zio). So CKSUM is the number of
  damaged blocks on that leaf, data and metadata alike. "repaired" is the sum of the
  repair writes' sizes on leaves (vdev_stat_update(): ``scn_processed += psize`` for
  repair I/O); for a mirror that is the whole block on each bad child, for RAID-Z the bad
  child's columns.

Known simplifications: metadata is the fixed set of blocks a new pool has (pool.metadata)
plus each file's indirect blocks; dnode and directory blocks a file adds are not
modelled, so CKSUM after damage is a few counts low. Blocks written after the damage are
still seen as damaged if they land in a damaged range.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.layouts import MIRROR, RAIDZ
from labsim.zfs.pool import Extent, Leaf, Pool, ScanRecord, TopVdev

# Bytes of allocated data a scan examines per second, for its "in 00:00:01" (lab VM,
# software emulation: a 50 MiB scrub took about a second). Only the duration uses it.
SCAN_BYTES_PER_SECOND = 48 << 20


def find_leaf(pool: Pool, path: str) -> tuple[TopVdev, int] | None:
    """The top-level vdev holding the leaf at ``path``, and the leaf's index in it."""
    for vdev in [*pool.vdevs, *pool.logs]:
        for index, leaf in enumerate(vdev.leaves):
            if leaf.path == path:
                return vdev, index
    return None


def damage_leaf(leaf: Leaf, start: int, length: int) -> None:
    """Record that bytes [start, start + length) of the leaf were overwritten."""
    if length <= 0:
        return
    ranges = sorted([*leaf.damaged, (start, start + length)])
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    leaf.damaged = merged


def vdev_extents(pool: Pool, vdev: TopVdev) -> Iterator[Extent]:
    """Every allocated extent of a top-level vdev that a scan reads: the pool's own
    metadata and every file's blocks (deferred frees are not read)."""
    for extent in pool.metadata:
        if extent.vdev == vdev.id:
            yield extent
    for dataset in pool.datasets.values():
        for file in dataset.files.values():
            for extent in file.extents:
                if extent.vdev == vdev.id:
                    yield extent


def _damaged_blocks(vdev: TopVdev, leaf_index: int, extent: Extent) -> list[tuple[int, int]]:
    """Indexes [lo, hi) of the extent's blocks with at least one damaged byte on the leaf."""
    leaf = vdev.leaves[leaf_index]
    if not leaf.damaged:
        return []
    size = extent.block_size
    out: list[tuple[int, int]] = []
    for start, end in leaf.damaged:
        start -= VDEV_LABEL_START_SIZE
        end -= VDEV_LABEL_START_SIZE
        if vdev.kind == RAIDZ:
            # The leaf's rows [r0, r1) hold vdev sectors [r0 * width, r1 * width); the
            # block is hit if its sectors there include one of this child's.
            width, shift = vdev.layout.width, vdev.ashift
            start = max(0, start) >> shift
            end = -(-max(0, end) >> shift)
            lo_byte = (start * width) << shift
            hi_byte = (end * width) << shift
        else:
            lo_byte, hi_byte = start, end
        lo = max(lo_byte, extent.offset)
        hi = min(hi_byte, extent.offset + extent.length)
        if lo < hi:
            first = (lo - extent.offset) // size
            last = (hi - 1 - extent.offset) // size + 1
            if vdev.kind == RAIDZ and not _holds_child_sector(vdev, leaf_index, extent, first,
                                                              last):
                continue
            out.append((first, last))
    return _merge(out)


def _holds_child_sector(vdev: TopVdev, child: int, extent: Extent, first: int,
                        last: int) -> bool:
    """Whether blocks [first, last) of a RAID-Z extent put any sector on ``child``."""
    shift = vdev.ashift
    a = (extent.offset + first * extent.block_size) >> shift
    b = (extent.offset + last * extent.block_size) >> shift
    return child_sectors(a, b, child, vdev.layout.width) > 0


def child_sectors(first: int, end: int, child: int, width: int) -> int:
    """How many of the vdev's sectors [first, end) RAID-Z puts on ``child``: those with
    ``sector % width == child``."""
    return (end - child - 1) // width - (first - child - 1) // width


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _depths(per_leaf: list[list[tuple[int, int]]]) -> list[tuple[int, int, frozenset[int]]]:
    """Split block indexes into spans [lo, hi) with the set of leaves damaged there."""
    points = sorted({p for ranges in per_leaf for r in ranges for p in r})
    spans = []
    for lo, hi in zip(points, points[1:], strict=False):
        leaves = frozenset(i for i, ranges in enumerate(per_leaf)
                           if any(a <= lo and hi <= b for a, b in ranges))
        if leaves:
            spans.append((lo, hi, leaves))
    return spans


def _column_bytes(vdev: TopVdev, extent: Extent, lo: int, hi: int, child: int) -> int:
    """Bytes of blocks [lo, hi) of the extent that RAID-Z stores on ``child``."""
    shift = vdev.ashift
    a = (extent.offset + lo * extent.block_size) >> shift
    b = (extent.offset + hi * extent.block_size) >> shift
    return child_sectors(a, b, child, vdev.layout.width) << shift


def scrub(pool: Pool, now: float) -> ScanRecord:
    """Read every block, repair what has a good copy, count the rest as errors.

    Each damaged copy read adds to its leaf's CKSUM; offline leaves are not read.
    Returns the finished scan (also kept in ``pool.scan``).
    """
    repaired = errors = examined = 0
    for vdev in pool.vdevs:
        readable = [i for i, leaf in enumerate(vdev.leaves) if leaf.state == "ONLINE"]
        unrecoverable_here = 0
        for extent in vdev_extents(pool, vdev):
            examined += extent.length
            per_leaf = [_damaged_blocks(vdev, i, extent) if i in readable else []
                        for i in range(len(vdev.leaves))]
            for lo, hi, bad in _depths(per_leaf):
                blocks = hi - lo
                for i in bad:
                    vdev.leaves[i].cksum_errors += blocks
                if _recoverable(vdev, readable, bad):
                    for i in bad:
                        repaired += (_column_bytes(vdev, extent, lo, hi, i)
                                     if vdev.kind == RAIDZ else blocks * extent.block_size)
                else:
                    unrecoverable_here += blocks
        if unrecoverable_here:
            errors += unrecoverable_here
            if vdev.kind in (MIRROR, RAIDZ):
                pool.vdev_cksum_errors[vdev.id] = (pool.vdev_cksum_errors.get(vdev.id, 0)
                                                   + unrecoverable_here)
            pool.cksum_errors += unrecoverable_here
        else:
            for leaf in vdev.leaves:
                leaf.damaged = []  # every damaged block was rewritten from a good copy
    pool.data_errors += errors
    seconds = int(examined / SCAN_BYTES_PER_SECOND)
    pool.scan = ScanRecord("scrub", repaired, seconds, errors, now + seconds)
    return pool.scan


def _recoverable(vdev: TopVdev, readable: list[int], bad: frozenset[int]) -> bool:
    """A mirror needs one good readable copy; RAID-Z at most ``nparity`` missing or bad
    columns (offline children count as missing); a single device none."""
    if vdev.kind == MIRROR:
        return any(i not in bad for i in readable)
    if vdev.kind == RAIDZ:
        missing = len(vdev.leaves) - len(readable)
        return len(bad) + missing <= vdev.layout.nparity
    return False


def resilver_bytes(pool: Pool, vdev: TopVdev, child: int) -> int:
    """What resilvering leaf ``child`` of ``vdev`` writes: every block of a mirror (or
    of a single device becoming a mirror), or the child's columns of every RAID-Z block."""
    if vdev.kind != RAIDZ:
        return sum(e.length for e in vdev_extents(pool, vdev))
    shift = vdev.ashift
    return sum(child_sectors(e.offset >> shift, (e.offset + e.length) >> shift, child,
                             vdev.layout.width) << shift
               for e in vdev_extents(pool, vdev))


def resilver(pool: Pool, nbytes: int, now: float) -> ScanRecord:
    """A finished resilver of ``nbytes``; the time is what reading them takes."""
    seconds = int(nbytes / SCAN_BYTES_PER_SECOND)
    pool.scan = ScanRecord("resilver", nbytes, seconds, 0, now + seconds)
    return pool.scan


def clear_errors(pool: Pool, leaves: Iterable[Leaf] | None = None) -> None:
    """zpool clear: reset the error counters (vdev_clear()); the pool's list of damaged
    files is only rebuilt by the next scrub, as in spa_errlog.c."""
    targets = list(leaves) if leaves is not None else [
        leaf for vdev in pool.vdevs for leaf in vdev.leaves]
    for leaf in targets:
        leaf.read_errors = leaf.write_errors = leaf.cksum_errors = 0
    if leaves is None:
        pool.vdev_cksum_errors.clear()
        pool.cksum_errors = 0
