"""What a layout of N identical disks gives and what it costs: space, random IOPS,
the work of rebuilding a failed disk, and the odds of surviving disk failures.

A pool here is N disks of one size arranged as identical top-level vdevs: N single
disks (a stripe), N/w mirrors of w disks, or N/w RAID-Z groups of w disks. Three kinds
of answer live in this module, and they differ in how far they can be trusted:

* Space follows OpenZFS exactly as labsim models it (layouts.py, metaslab.py, slop.py,
  vdevs.py, lifecycle.py, space.py): ``zpool list`` SIZE and ``zfs list`` AVAIL of the
  empty pool, and what blocks of a given size cost there.
* Survival odds are exact combinatorics, given one stated assumption (every set of k
  failed disks is equally likely).
* IOPS and rebuild times are a teaching model: rules of thumb written down as
  arithmetic, not OpenZFS code. Each function says what it assumes.

Every function is pure; the Monte-Carlo cross-check takes its seed as an argument.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb

from labsim.zfs.history import features_of
from labsim.zfs.labels import SPA_MINDEVSIZE
from labsim.zfs.layouts import (
    MIRROR,
    RAIDZ,
    SINGLE,
    VDEV_RAIDZ_MAXPARITY,
    Layout,
    deflate_ratio,
    deflated,
    psize_to_asize,
    top_level_asize,
)
from labsim.zfs.metadata_blocks import (
    EMPTY_FILESYSTEM,
    NEW_POOL_SPACE_MAPS,
    UNFLUSHED_TXGS_BLOCK,
    copy_psizes,
    vdev_zap_map,
)
from labsim.zfs.metaslab import metaslab_shift
from labsim.zfs.slop import slop_space
from labsim.zfs.vdevs import TopVdev, metadata_allocation
from labsim.zfs.versions import ZfsVersion

SECONDS_PER_HOUR = 3600


class LayoutError(ValueError):
    """N disks cannot be arranged the way that was asked; the message says why."""


# ---------------------------------------------------------------- the layouts


@dataclass(frozen=True)
class PoolLayout:
    """A pool of ``vdev_count`` identical top-level vdevs shaped like ``vdev``."""

    vdev: Layout
    vdev_count: int

    @property
    def disks(self) -> int:
        return self.vdev.width * self.vdev_count

    @property
    def tolerance(self) -> int:
        """Failed disks one vdev survives: none for a single disk, all but one child of
        a mirror, ``nparity`` for RAID-Z. A pool is lost as soon as any one of its
        top-level vdevs is lost, since every vdev holds part of every large file."""
        return vdev_tolerance(self.vdev)

    @property
    def label(self) -> str:
        """Short name: the vdev type, then vdevs × disks per vdev ("raidz2 2×6",
        "mirror 4×3" for four 3-way mirrors, "stripe 12×1")."""
        kind = "stripe" if self.vdev.kind == SINGLE else self.vdev.type_name
        return f"{kind} {self.vdev_count}×{self.vdev.width}"

    def zpool_create(self, pool: str, devices: list[str], ashift: int) -> str:
        """The command line that builds this pool from ``devices`` (in order)."""
        if len(devices) != self.disks:
            raise LayoutError(f"{self.label} needs {self.disks} devices, not {len(devices)}")
        words = ["zpool", "create", "-o", f"ashift={ashift}", pool]
        width = self.vdev.width
        for i in range(self.vdev_count):
            if self.vdev.kind != SINGLE:
                words.append(self.vdev.type_name)
            words.extend(devices[i * width:(i + 1) * width])
        return " ".join(words)


def vdev_tolerance(layout: Layout) -> int:
    """Children of one top-level vdev that may fail without losing it."""
    if layout.kind == MIRROR:
        return layout.width - 1
    if layout.kind == RAIDZ:
        return layout.nparity
    return 0


def stripe(disks: int) -> PoolLayout:
    """Every disk a top-level vdev of its own (``zpool create tank sda sdb ...``)."""
    if disks < 1:
        raise LayoutError("a pool needs at least one disk")
    return PoolLayout(Layout(), disks)


def mirrors(disks: int, width: int) -> PoolLayout:
    """``disks / width`` mirrors of ``width`` disks each."""
    if width < 2:
        raise LayoutError("a mirror needs at least 2 disks")
    if disks < width or disks % width:
        raise LayoutError(f"{disks} disks do not split into {width}-way mirrors "
                          f"(needs a multiple of {width})")
    return PoolLayout(Layout(MIRROR, width), disks // width)


def raidz_groups(disks: int, width: int, nparity: int) -> PoolLayout:
    """``disks / width`` RAID-Z groups of ``width`` disks with ``nparity`` parity."""
    if not 1 <= nparity <= VDEV_RAIDZ_MAXPARITY:
        raise LayoutError(f"RAID-Z parity is 1 to {VDEV_RAIDZ_MAXPARITY}, not {nparity}")
    if width < nparity + 1:
        # The same minimum zpool create enforces (one data column and the parity).
        raise LayoutError(f"raidz{nparity} requires at least {nparity + 1} devices "
                          f"per vdev, not {width}")
    if disks < width or disks % width:
        raise LayoutError(f"{disks} disks do not split into raidz{nparity} vdevs of "
                          f"{width} disks (needs a multiple of {width})")
    return PoolLayout(Layout(RAIDZ, width, nparity), disks // width)


# ---------------------------------------------------------------- space


@dataclass(frozen=True)
class PoolSpace:
    """Sizes of a new, empty pool, in bytes."""

    size: int  # zpool list SIZE: the metaslabs' raw space, parity included
    dspace: int  # spa_get_dspace(): deflated space, parity removed (128 KiB estimate)
    slop: int  # held back from ordinary writes (slop.py)
    used: int  # what the new pool's own metadata counts for, deflated
    avail: int  # zfs list AVAIL of the pool's root dataset


def vdev_space(layout: Layout, disk_size: int, version: ZfsVersion) -> int:
    """Raw allocatable bytes of one top-level vdev over disks of ``disk_size`` bytes:
    its size less labels (top_level_asize), cut into whole metaslabs; the tail smaller
    than one metaslab is never used (vdev_metaslab_set_size(), module/zfs/vdev.c)."""
    if disk_size < SPA_MINDEVSIZE:
        raise LayoutError(f"a disk must hold at least {SPA_MINDEVSIZE >> 20} MiB")
    asize = top_level_asize(layout, [disk_size] * layout.width)
    shift = metaslab_shift(asize, version)
    return (asize >> shift) << shift


def empty_pool_space(pool: PoolLayout, disk_size: int, ashift: int,
                     version: ZfsVersion) -> PoolSpace:
    """What ``zpool list`` and ``zfs list`` show right after ``zpool create``.

    The same arithmetic as labsim's pool model (lifecycle.create_pool and
    space.dataset_available) without building a metaslab object per 16 GiB: AVAIL is the
    deflated space less slop less the new pool's metadata.
    """
    raw = vdev_space(pool.vdev, disk_size, version)
    ratio = deflate_ratio(pool.vdev, ashift)
    dspace = pool.vdev_count * deflated(raw, ratio)
    if version.create_metadata is None:
        # metadata_allocation() only asks the vdev for its layout and ashift.
        probe = TopVdev(id=0, leaves=[], ashift=ashift, ms_shift=0, metaslabs=[],
                        layout=pool.vdev)
        metadata = metadata_allocation(probe, version.create_alloc_per_vdev)
        used = pool.vdev_count * deflated(metadata, ratio)
    else:
        # The new pool's live blocks, wherever they land (all vdevs are alike here);
        # deferred frees do not count against AVAIL.
        profile = version.create_metadata
        live = [*profile.live, *(EMPTY_FILESYSTEM if profile.with_root_objset else ())]
        if profile.with_root_objset and pool.vdev_count > 1:  # as lifecycle.create_pool
            live.append(replace(UNFLUSHED_TXGS_BLOCK, count=pool.vdev_count - 1))
        live.extend(NEW_POOL_SPACE_MAPS)  # labsim.zfs.txg charges them at the create
        if profile.with_root_objset:
            zap_map = vdev_zap_map([pool.vdev.width] * pool.vdev_count,
                                   "vdev_zaps_v2" in features_of(version.name))
            live.extend([zap_map] if zap_map is not None else [])
        used = sum(deflated(psize_to_asize(pool.vdev, psize, ashift), ratio)
                   for psize in copy_psizes(live, ashift, version.compression_min_savings))
    slop = slop_space(dspace, version)
    return PoolSpace(size=pool.vdev_count * raw, dspace=dspace, slop=slop, used=used,
                     avail=max(0, dspace - slop - used))


def block_charge(layout: Layout, block: int, ashift: int) -> int:
    """Bytes of AVAIL one block of ``block`` bytes uses up: its allocated size with
    parity and padding (vdev_raidz_asize()), deflated with the vdev's 128 KiB ratio
    (bp_get_dsize(), module/zfs/dsl_dataset.c). For a 128 KiB block on RAID-Z this is
    about the block's own size; smaller blocks pay relatively more parity and padding,
    which is why ``zfs list`` USED can exceed the data written."""
    return deflated(psize_to_asize(layout, block, ashift), deflate_ratio(layout, ashift))


def data_that_fits(pool: PoolLayout, avail: int, block: int, ashift: int) -> int:
    """Bytes of data (incompressible) that fit in ``avail`` when written as blocks of
    ``block`` bytes: AVAIL counts every block at its charge, not at its size."""
    return avail // block_charge(pool.vdev, block, ashift) * block


def raw_efficiency(layout: Layout, block: int, ashift: int) -> Fraction:
    """Share of the raw disk bytes a block of ``block`` bytes uses for data: a mirror
    writes the block to every child; RAID-Z adds parity sectors for every row and
    pads the allocation to a multiple of nparity + 1 sectors (raidz_asize)."""
    copies = layout.width if layout.kind == MIRROR else 1
    return Fraction(block, psize_to_asize(layout, block, ashift) * copies)


# ---------------------------------------------------------------- random IOPS


@dataclass(frozen=True)
class RandomIops:
    read: int
    write: int


def random_iops(pool: PoolLayout, disk_iops: int) -> RandomIops:
    """Small random reads and writes per second the pool can serve, as a teaching model.

    Assumptions (a rule of thumb, not OpenZFS code): every disk serves ``disk_iops``
    small random I/Os per second; the I/Os are spread evenly over the top-level vdevs
    (the allocator spreads blocks over them); nothing comes from cache (ARC, L2ARC) and
    writes are not merged into larger ones (transaction groups do merge them, so real
    write figures are often better). Then:

    * stripe: each I/O touches one disk, so N disks give N times one disk;
    * mirror: a read needs one child, any child (vdev_mirror_child_select() in
      module/zfs/vdev_mirror.c), so reads scale with all N disks; a write goes to every
      child, so writes scale with the number of vdevs;
    * RAID-Z: a block is spread over the data columns of its vdev, so reading or
      writing it keeps all of them busy: each vdev gives about one disk's IOPS.
    """
    if disk_iops < 0:
        raise ValueError("IOPS of a disk cannot be negative")
    if pool.vdev.kind == SINGLE:
        return RandomIops(read=pool.disks * disk_iops, write=pool.disks * disk_iops)
    if pool.vdev.kind == MIRROR:
        return RandomIops(read=pool.disks * disk_iops, write=pool.vdev_count * disk_iops)
    return RandomIops(read=pool.vdev_count * disk_iops, write=pool.vdev_count * disk_iops)


# ---------------------------------------------------------------- resilver and scrub


@dataclass(frozen=True)
class Rebuild:
    """Work of a resilver or a scrub, in bytes, and its duration in hours."""

    bytes_read: int
    bytes_written: int
    hours: float


def _allocated_per_disk(pool: PoolLayout, vdev_raw: int, fill: float) -> int:
    """Allocated bytes on each disk when the pool is ``fill`` full (CAP as a fraction).

    The allocator fills vdevs in proportion to their free space, so equal vdevs are
    equally full. A mirror child holds the whole vdev; a RAID-Z child about 1/width of
    it (parity columns are spread over the children), as does a single disk (1/1).
    """
    per_disk = vdev_raw if pool.vdev.kind == MIRROR else vdev_raw // pool.vdev.width
    return int(per_disk * fill)


def _check(fill: float, disk_rate: float) -> None:
    if not 0 <= fill <= 1:
        raise ValueError(f"fill is a fraction from 0 to 1, not {fill}")
    if disk_rate <= 0:
        raise ValueError("the sequential rate of a disk must be positive")


def resilver(pool: PoolLayout, vdev_raw: int, fill: float, disk_rate: float) -> Rebuild | None:
    """Rebuilding one failed disk onto a new one, or None when nothing can be rebuilt
    (a stripe has no redundancy: losing a disk loses the pool).

    A resilver walks the block tree and copies only allocated blocks, not the whole
    disk (dsl_scan.c; since OpenZFS 0.8 it sorts them so the disks read mostly
    sequentially): an empty pool resilvers in seconds, a full one in hours. It reads,
    from the failed disk's vdev only, the surviving copy of a mirror (one child's
    allocated data) or the other children of a RAID-Z group (their allocated data, to
    recompute the missing columns), and writes the new disk's share.

    Teaching-model duration: the new disk writes its share at ``disk_rate`` bytes per
    second while the survivors read theirs in parallel at the same rate; seeks, other
    load on the pool and the scan's metadata walk are ignored, so real resilvers take
    longer, especially on fragmented pools of small blocks.
    """
    _check(fill, disk_rate)
    if pool.tolerance == 0:
        return None
    share = _allocated_per_disk(pool, vdev_raw, fill)
    # A mirror reads one surviving copy of the vdev's allocated data; RAID-Z reads
    # every other child of the group.
    read = share if pool.vdev.kind == MIRROR else share * (pool.vdev.width - 1)
    return Rebuild(bytes_read=read, bytes_written=share,
                   hours=share / disk_rate / SECONDS_PER_HOUR)


def scrub(pool: PoolLayout, vdev_raw: int, fill: float, disk_rate: float) -> Rebuild:
    """Reading and checking every allocated block: all copies of a mirror (a scrub
    reads every healthy child, vdev_mirror_io_start() in module/zfs/vdev_mirror.c) and
    all data and parity columns of RAID-Z. All disks read in parallel, so it takes
    one disk's allocated data at ``disk_rate`` (the same teaching model as resilver)."""
    _check(fill, disk_rate)
    share = _allocated_per_disk(pool, vdev_raw, fill)
    return Rebuild(bytes_read=share * pool.disks, bytes_written=0,
                   hours=share / disk_rate / SECONDS_PER_HOUR)


# ---------------------------------------------------------------- surviving failures


def surviving_failure_sets(groups: list[tuple[int, int]], failures: int) -> int:
    """Sets of ``failures`` failed disks that leave every group within its tolerance.

    ``groups`` are (disks, tolerance) pairs. A group of n disks tolerating t failures
    contributes the polynomial sum(C(n, j) x^j for j <= t): the ways to pick j of its
    disks. The product over all groups counts, at x^k, the ways to pick k disks in all
    with no group over its tolerance. The product is built one group at a time,
    keeping only the coefficients up to x^failures: exact, and polynomial in size.
    """
    if failures < 0:
        raise ValueError("the number of failed disks cannot be negative")
    total = sum(n for n, _ in groups)
    if failures > total:
        raise ValueError(f"cannot fail {failures} disks in a pool of {total}")
    ways = [1]  # ways[j]: sets of j failed disks in the groups so far, none lost
    for disks, tolerance in groups:
        group = [comb(disks, j) for j in range(min(disks, tolerance) + 1)]
        product = [0] * min(len(ways) + len(group) - 1, failures + 1)
        for i, a in enumerate(ways):
            for j in range(min(len(group), len(product) - i)):
                product[i + j] += a * group[j]
        ways = product
    return ways[failures] if failures < len(ways) else 0


def survival_probability(pool: PoolLayout, failures: int) -> Fraction:
    """Chance, as an exact fraction, that the pool loses no data when ``failures``
    disks fail at once (before any resilver finishes), every set of that many disks
    being equally likely. Mirrors of 2 over 4 disks and 2 failures: of the C(4, 2) = 6
    pairs, the 2 that are a whole mirror lose the pool, so 4/6 = 2/3."""
    groups = [(pool.vdev.width, pool.tolerance)] * pool.vdev_count
    return Fraction(surviving_failure_sets(groups, failures), comb(pool.disks, failures))


def survival_monte_carlo(pool: PoolLayout, failures: int, trials: int, seed: int) -> Fraction:
    """The same chance estimated by drawing ``trials`` random failure sets: a
    cross-check of the exact count, reproducible through ``seed``."""
    if failures > pool.disks:
        raise ValueError(f"cannot fail {failures} disks in a pool of {pool.disks}")
    rng = random.Random(seed)
    width, tolerance = pool.vdev.width, pool.tolerance
    survived = 0
    for _ in range(trials):
        per_vdev = [0] * pool.vdev_count
        for disk in rng.sample(range(pool.disks), failures):
            per_vdev[disk // width] += 1  # disks are numbered vdev by vdev
        survived += max(per_vdev, default=0) <= tolerance
    return Fraction(survived, trials)
