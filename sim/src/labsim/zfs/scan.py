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

Known simplifications: metadata is the blocks a new pool has (pool.all_metadata(), some of
them moved by each txg that writes, labsim.zfs.metadata_rewrite), each dataset's objset
blocks and each file's indirect blocks; dnode and directory blocks a file adds are not
modelled, so CKSUM after damage is a few counts low. A block written after the damage has
good bytes: allocating it takes its range out of the damage (TopVdev.take), except on
RAID-Z, whose damage stays until a scrub reads it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from labsim.zfs import ditto
from labsim.zfs.byte_ranges import intersect, subtract
from labsim.zfs.byte_ranges import merge as _merge
from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.layouts import MIRROR, RAIDZ, SINGLE, child_sector_span
from labsim.zfs.mos import mos_blocks_written_anew
from labsim.zfs.pool import Dataset, Extent, File, Pool, ScanRecord
from labsim.zfs.vdevs import Leaf, TopVdev

# Bytes of allocated data a scan examines per second, for its "in 00:00:01" (lab VM,
# software emulation: a 50 MiB scrub took about a second). Only the duration uses it.
# The MOS's objset id (DMU_META_OBJSET): the objset a scan's txgs change.
MOS_OBJSET = 0
# Of the five txgs a scan syncs on a small pool (labsim.zfs.scan_sync: setup, visit, issue,
# done, error logs), those that change the MOS; the visit's does not. A scrub and a
# resilver alike (dsl_scan_sync() runs both, module/zfs/dsl_scan.c).
SCAN_TXGS_CHANGING_MOS = (True, False, True, True, True)
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
    if length > 0:
        damage_ranges(leaf, [(start, start + length)])


def merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` sorted and merged, as leaf damage is kept."""
    return _merge(ranges)


def damage_ranges(leaf: Leaf, ranges: Iterable[tuple[int, int]]) -> None:
    """Record many overwritten byte ranges [lo, hi) of the leaf at once."""
    leaf.damaged = _merge(leaf.damaged + [r for r in ranges if r[1] > r[0]])


def vdev_extents(pool: Pool, vdev: TopVdev) -> Iterator[Extent]:
    """Every allocated extent of a top-level vdev that a scan reads: the pool's own
    metadata, every dataset's objset blocks and every file's blocks (deferred frees are
    not read)."""
    for extent in (*pool.all_metadata(), *pool.held_metadata_extents()):
        if extent.vdev == vdev.id:
            yield extent
    for dataset in pool.datasets.values():
        for extent in dataset.objset_extents:
            if extent.vdev == vdev.id:
                yield extent
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
    ranges = leaf.damaged
    if vdev.kind != RAIDZ:  # only the ranges that can overlap the extent (they are sorted)
        first = extent.offset + VDEV_LABEL_START_SIZE
        lo_index = max(0, bisect.bisect_right(ranges, (first, first)) - 1)
        hi_index = bisect.bisect_left(ranges, (first + extent.length, 0))
        ranges = ranges[lo_index:hi_index]
    for start, end in ranges:
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
        hi = min(hi_byte, extent.offset + (extent.read or extent.length))
        if lo < hi and vdev.kind == RAIDZ:
            # Only the child's own sectors in those rows: the first and the last of them
            # decide the first and the last block hit.
            lo, hi = _child_span(lo, hi, leaf_index, vdev.layout.width, vdev.ashift)
        if lo < hi:
            first = (lo - extent.offset) // size
            last = (hi - 1 - extent.offset) // size + 1
            if vdev.kind == RAIDZ and not _holds_child_sector(vdev, leaf_index, extent, first,
                                                              last):
                continue
            out.append((first, last))
    return _merge(out)


@dataclass(frozen=True)
class LeafDamage:
    """A leaf's damaged ranges as two sorted lists of ints, which bisect faster than
    the tuples: what a scrub looks up once per block."""

    starts: list[int]
    ends: list[int]

    @classmethod
    def of(cls, leaf: Leaf) -> LeafDamage:
        return cls([lo for lo, _ in leaf.damaged], [hi for _, hi in leaf.damaged])

    def hits(self, lo: int, hi: int) -> bool:
        """Whether the ranges overlap [lo, hi): being sorted and disjoint, the last
        one starting before ``hi`` is the one that reaches furthest."""
        index = bisect.bisect_left(self.starts, hi)
        return index > 0 and self.ends[index - 1] > lo


def _hits(ranges: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """LeafDamage.hits() on the leaf's own list of ranges."""
    index = bisect.bisect_left(ranges, (hi, hi))
    return index > 0 and ranges[index - 1][1] > lo


def _bad_leaves(vdev: TopVdev, readable: list[int], extent: Extent,
                damage: list[LeafDamage] | None = None) -> frozenset[int]:
    """The readable leaves on which some block of ``extent`` is damaged (``damage``: the
    vdev's leaves indexed, when a scrub made that)."""
    if vdev.kind == RAIDZ:
        return frozenset(i for i in readable if _damaged_blocks(vdev, i, extent))
    lo = extent.offset + VDEV_LABEL_START_SIZE  # the same place on every leaf
    hi = lo + extent.length
    if damage is not None:
        return frozenset(i for i in readable if damage[i].hits(lo, hi))
    return frozenset(i for i in readable if _hits(vdev.leaves[i].damaged, lo, hi))


def _holds_child_sector(vdev: TopVdev, child: int, extent: Extent, first: int,
                        last: int) -> bool:
    """Whether blocks [first, last) of a RAID-Z extent put any sector on ``child``."""
    shift = vdev.ashift
    a = (extent.offset + first * extent.block_size) >> shift
    b = _read_end(extent, last) >> shift
    return child_sectors(a, b, child, vdev.layout.width) > 0


def _read_end(extent: Extent, last: int) -> int:
    """Where blocks [.., last) of the extent end, skip sectors a single block's
    allocation ends with left out (Extent.read: they are never read)."""
    if extent.read and extent.block == 0:
        return extent.offset + extent.read
    return extent.offset + last * extent.block_size


def _child_span(lo: int, hi: int, child: int, width: int, shift: int) -> tuple[int, int]:
    """The bytes [lo, hi) of a RAID-Z vdev narrowed to run from the first to the end of the
    last sector in them that is on ``child`` (sector s is on child s % width); an empty
    span when none is."""
    s0, s1 = child_sector_span(lo >> shift, -(-hi >> shift), child, width)
    if s1 <= s0:
        return lo, lo
    return max(lo, s0 << shift), min(hi, s1 << shift)


def child_sectors(first: int, end: int, child: int, width: int) -> int:
    """How many of the vdev's sectors [first, end) RAID-Z puts on ``child``: those with
    ``sector % width == child``."""
    return (end - child - 1) // width - (first - child - 1) // width


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
    b = _read_end(extent, hi) >> shift
    return child_sectors(a, b, child, vdev.layout.width) << shift


# Who an extent belongs to: a dataset's file, or None for the pool's own metadata.
Owner = tuple[Dataset, File] | None


def scanned_extents(pool: Pool, vdev: TopVdev) -> Iterator[tuple[Owner, Extent, bool]]:
    """What vdev_extents() gives, with each extent's owner (the dataset and file it
    belongs to, None for the pool's own metadata) and whether it is metadata; blocks of
    copies=2 or 3 files are left out (ditto_fates() judges them a block at a time)."""
    for extent in (*pool.all_metadata(), *pool.held_metadata_extents()):
        if extent.vdev == vdev.id:
            yield None, extent, True
    for dataset in pool.datasets.values():
        for file in dataset.files.values():
            dittos = ditto.ditto_extent_ids(file) if file.ditto else set()
            for index, extent in enumerate(file.extents):
                if extent.vdev == vdev.id and id(extent) not in dittos:
                    yield (dataset, file), extent, ditto.is_indirect(file, index)



@dataclass
class _Tally:
    """What a scrub adds up as it goes."""

    repaired: int = 0
    errors: int = 0
    examined: int = 0
    lost: list[tuple[Dataset, File]] = field(default_factory=list)
    # top-level vdevs that keep damage nobody could repair
    unrepaired: set[int] = field(default_factory=set)
    lost_ids: set[int] = field(default_factory=set)
    # per top-level vdev (by id), its leaves' damage as the scrub found it
    damage: dict[int, list[LeafDamage]] = field(default_factory=dict)  # by vdev id
    # leaf byte ranges [lo, hi) rewritten from a good copy, per top-level vdev id
    repairs: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def lose(self, owner: Owner) -> None:
        if owner is not None and id(owner[1]) not in self.lost_ids:
            self.lost_ids.add(id(owner[1]))
            self.lost.append(owner)


def _readable(vdev: TopVdev) -> list[int]:
    """Indexes of the leaves a scan reads (offline ones are not)."""
    return [i for i, leaf in enumerate(vdev.leaves) if leaf.state == "ONLINE"]


def _scrub_copy(vdev: TopVdev, readable: list[int], extent: Extent, tally: _Tally) -> bool:
    """Read one copy of a ditto block on its vdev, whose ``readable`` leaves are read;
    returns whether it is good, after whatever repair its own vdev (a mirror or RAID-Z)
    could make."""
    if len(readable) == 0:
        return False
    bad = _bad_leaves(vdev, readable, extent, tally.damage[vdev.id])
    if not bad:
        return True
    for i in bad:
        vdev.leaves[i].cksum_errors += 1
    if _recoverable(vdev, readable, bad):
        tally.repaired += sum(_column_bytes(vdev, extent, 0, 1, i) if vdev.kind == RAIDZ
                              else extent.length for i in bad)
        return True
    return False


def ditto_fates(pool: Pool, tally: _Tally) -> None:
    """Scrub the blocks of copies=2 and 3 files: every copy is read (a block of several
    DVAs is read like a mirror of them, vdev_mirror_map_init()), each bad copy counts
    on its leaf, and bad copies are rewritten from a good one. A block with no good copy
    is a permanent error of its file."""
    # By vdev id, as a copy names its vdev (Pool.top()).
    vdevs = {vdev.id: vdev for vdev in pool.vdevs}
    readable = {vdev.id: _readable(vdev) for vdev in pool.vdevs}
    # A copy on a single device that is read (most copies of most pools) is good unless the
    # leaf's damage overlaps it, and then counts one CKSUM: what _scrub_copy() decides for
    # it, looked up here without its calls (lesson 8's widget scrubs 6,400 copies a run).
    single_hits = {vdev.id: tally.damage[vdev.id][0].hits
                   if vdev.kind == SINGLE and readable[vdev.id] == [0] else None
                   for vdev in pool.vdevs}
    for dataset in pool.datasets.values():
        for file in dataset.files.values():
            for group in file.ditto:
                good = []
                for copy in group:
                    tally.examined += copy.length
                    hits = single_hits[copy.vdev]
                    if hits is None:
                        good.append(_scrub_copy(vdevs[copy.vdev], readable[copy.vdev], copy,
                                                tally))
                        continue
                    lo = copy.offset + VDEV_LABEL_START_SIZE
                    if hits(lo, lo + copy.length):
                        vdevs[copy.vdev].leaves[0].cksum_errors += 1
                        good.append(False)
                    else:
                        good.append(True)
                if any(good):
                    for copy, ok in zip(group, good, strict=True):
                        if not ok:
                            tally.repaired += copy.length
                            repair(tally, pool.top(copy.vdev), copy)
                else:  # the pool row does not count it (recorded on 2.1.11, lab 8)
                    tally.errors += 1
                    tally.lose((dataset, file))
                    tally.unrepaired.update(copy.vdev for copy in group)


def repair(tally: _Tally, vdev: TopVdev, extent: Extent) -> None:
    """The extent's bytes on every leaf of a single device or mirror are good again once
    the scrub ends (apply_repairs()). Blocks do not overlap, so a repair cannot change
    what the scrub finds in another block; applying them together keeps a scrub of a
    badly damaged disk from reshaping its long list of ranges once per block."""
    if vdev.kind == RAIDZ:
        return  # leaf ranges of a RAID-Z block are not contiguous; left as they are
    lo = extent.offset + VDEV_LABEL_START_SIZE
    tally.repairs.setdefault(vdev.id, []).append((lo, lo + extent.length))


def apply_repairs(pool: Pool, tally: _Tally) -> None:
    """Take the repaired byte ranges out of each leaf's damage."""
    for vdev_id, cuts in tally.repairs.items():
        merged = _merge(cuts)
        for leaf in pool.top(vdev_id).leaves:
            if leaf.damaged:
                leaf.damaged = subtract(leaf.damaged, merged)


def scrub(pool: Pool, now: float) -> ScanRecord:
    """Read every block, repair what has a good copy, count the rest as errors.

    Each damaged copy read adds to its leaf's CKSUM; offline leaves are not read.
    Metadata on a single-device vdev has a ditto copy elsewhere (two or three DVAs,
    dmu_write_policy()); labsim does not track where, and takes that copy to be good.
    Returns the finished scan (also kept in ``pool.scan``).
    """
    # Damage only changes when the scrub ends (apply_repairs()), so it is indexed once.
    tally = _Tally(damage={vdev.id: [LeafDamage.of(leaf) for leaf in vdev.leaves]
                           for vdev in pool.vdevs})
    ditto_fates(pool, tally)  # before any vdev's damage is forgotten below
    for vdev in pool.vdevs:
        readable = _readable(vdev)
        unrecoverable_here = 0
        for owner, extent, metadata in scanned_extents(pool, vdev):
            tally.examined += extent.length
            if vdev.kind != RAIDZ and not _bad_leaves(vdev, readable, extent,
                                                      tally.damage[vdev.id]):
                continue  # the common case, found without splitting the extent in blocks
            per_leaf = [_damaged_blocks(vdev, i, extent) if i in readable else []
                        for i in range(len(vdev.leaves))]
            for lo, hi, bad in _depths(per_leaf):
                blocks = hi - lo
                for i in bad:
                    vdev.leaves[i].cksum_errors += blocks
                if _recoverable(vdev, readable, bad) or (metadata and vdev.kind == SINGLE):
                    for i in bad:
                        tally.repaired += (_column_bytes(vdev, extent, lo, hi, i)
                                           if vdev.kind == RAIDZ
                                           else blocks * extent.block_size)
                    size = extent.block_size
                    repair(tally, vdev,
                           Extent(vdev.id, extent.offset + lo * size, blocks * size))
                else:
                    unrecoverable_here += blocks
                    tally.lose(owner)
        if unrecoverable_here:
            tally.errors += unrecoverable_here
            if vdev.kind in (MIRROR, RAIDZ):
                pool.vdev_cksum_errors[vdev.id] = (pool.vdev_cksum_errors.get(vdev.id, 0)
                                                   + unrecoverable_here)
                pool.cksum_errors += unrecoverable_here
            # Blocks lost on a single-device vdev leave the pool row at 0 on 2.1.11 (lab 8's
            # recordings); ZFS on Linux 0.6 counted them there.
        elif vdev.id not in tally.unrepaired:
            for leaf in vdev.leaves:
                leaf.damaged = []  # every damaged block was rewritten from a good copy
    apply_repairs(pool, tally)
    # A finished scrub replaces the error log with what it found (spa_errlog_sync():
    # the scrub's log becomes the last log), so blocks found again count once.
    pool.data_errors = tally.errors
    pool.damaged_files = [(dataset.name, file.name) for dataset, file in tally.lost]
    seconds = int(tally.examined / SCAN_BYTES_PER_SECOND)
    pool.scan = ScanRecord("scrub", tally.repaired, seconds, tally.errors, now + seconds)
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
    """What resilvering leaf ``child`` of ``vdev`` writes when it holds nothing yet (an
    attach or a replace): every block of the vdev the resilver scans (resilver_writes())."""
    return resilver_writes(vdev, child, scanned_by_resilver(pool, vdev))


def scanned_by_resilver(pool: Pool, vdev: TopVdev) -> Iterator[Extent]:
    """The blocks of ``vdev`` a resilver starting now reads: all but the MOS blocks its
    own txgs write anew. A scan reads only blocks born before the txg that set it up
    (scn_max_txg, dsl_scan_scrub_cb(), module/zfs/dsl_scan.c), and that txg and the
    scan's next ones rewrite the MOS's path to the uberblock, the object directory (the
    scan's state) among it (labsim.zfs.mos.mos_blocks_written_anew()): the versions
    before are freed (dsl_scan_freed() takes them off the scan's queues), the new ones
    are written to the new device too. Recorded on 2.3.9 (tests/fixtures/real/2.3.9/
    probes/lab15-whole-resilver.txt): an empty RAID-Z1's member replaced resilvered 356K."""
    anew = {id(extent) for extent in mos_blocks_written_anew(pool, scan_setup=True)}
    return (extent for extent in vdev_extents(pool, vdev) if id(extent) not in anew)


def resilver_writes(vdev: TopVdev, child: int, extents: Iterable[Extent],
                    within: list[tuple[int, int]] | None = None) -> int:
    """The bytes a resilver writes to leaf ``child`` for the blocks of ``extents`` (those
    bytes of them ``within`` these sorted, disjoint vdev ranges): what it adds to the
    resilvered amount, scn_processed (vdev_stat_update(): the leaves' repair writes).

    Each copy the leaf holds is written once for every DVA of its block. A sorted scan
    queues a block needing resilver once per DVA, on that DVA's top-level vdev
    (dsl_scan_enqueue(), module/zfs/dsl_scan.c, 2.1.11 and 2.3.9), and issues each as a
    read of the whole block pointer. The read takes one copy; its vdev_mirror_io_done()
    (the DVAs are read as a mirror of them, and a mirror's children too) then writes the
    good data to every copy it did not read whose vdev's DTL holds the block's txg, and
    zio_vdev_io_start() drops those writes on leaves that do not miss it ("This prevents
    spurious resilvering", module/zfs/zio.c). So a copy the leaf misses is written by each
    of the block's reads: a file's data once at copies=1, twice at copies=2; each copy of
    a MOS block (three copies) three times. Recorded on 2.3.9 (tests/fixtures/real/2.3.9/
    probes/lab15-degraded-window.txt): a returning member missed one copy of each of
    seven copies=2 records, 896K, and 1.83M was resilvered. On a mirror's member a copy
    is the whole block, on RAID-Z the child's columns (member_bytes())."""
    seen: dict[tuple[int, int], int] = {}  # an extent listed twice is one block
    for extent in extents:
        # A RAID-Z block's skip sectors are no column: nothing writes them
        key = (extent.offset, _read_end(extent, extent.blocks))
        seen[key] = max(seen.get(key, 0), extent.dvas)
    by_copies: dict[int, list[tuple[int, int]]] = {}
    for key, dvas in seen.items():
        by_copies.setdefault(dvas, []).append(key)
    total = 0
    for dvas, blocks in by_copies.items():
        ranges = _merge(blocks)
        if within is not None:
            ranges = intersect(ranges, within)
        total += member_bytes(vdev, child, ranges) * dvas
    return total


def member_bytes(vdev: TopVdev, child: int, ranges: Iterable[tuple[int, int]]) -> int:
    """Bytes of the vdev's ranges [lo, hi) that leaf ``child`` stores: all of them on a
    mirror's member, the child's sectors of them on RAID-Z."""
    if vdev.kind != RAIDZ:
        return sum(hi - lo for lo, hi in ranges)
    shift, width = vdev.ashift, vdev.layout.width
    return sum(child_sectors(lo >> shift, hi >> shift, child, width) << shift
               for lo, hi in ranges)


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


def _copy_readable(pool: Pool, extent: Extent) -> bool:
    """Whether one copy of a block reads back good (its vdev's own redundancy included)."""
    vdev = pool.top(extent.vdev)
    readable = _readable(vdev)
    bad = _bad_leaves(vdev, readable, extent)
    return bool(readable) and (not bad or _recoverable(vdev, readable, bad))


def first_unreadable_block(pool: Pool, file: File) -> int | None:
    """The first data block of ``file`` (in file order) that no copy of can be read, or
    None: what makes read(2) fail with EIO (zio_checksum_verify() failing on every DVA,
    dmu_buf_hold_array() returning the error). Reads do not change the counters here."""
    if file.ditto:
        for index, group in enumerate(file.ditto):
            if not any(_copy_readable(pool, copy) for copy in group):
                return index
        return None
    data = file.extents[:len(file.extents) - file.indirect_extents]
    for index, block in enumerate(ditto.one_block_extents(data)):
        if not _copy_readable(pool, block):
            return index
    return None
