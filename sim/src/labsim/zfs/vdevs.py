"""Top-level vdevs and their leaves: how ``zpool create`` and ``zpool add`` open them,
size them and cut them into metaslabs, and what a block costs on each.

A top-level vdev is one metaslab group (metaslab_group_t) over one leaf, a mirror or a
RAID-Z group (module/zfs/vdev.c, vdev_mirror.c, vdev_raidz.c).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.zfs import raidz_expansion_state
from labsim.zfs.byte_ranges import merge, subtract
from labsim.zfs.errors import DeviceTooSmall
from labsim.zfs.labels import (
    SPA_MINDEVSIZE,
    VDEV_LABEL_SIZE,
    VDEV_LABEL_START_SIZE,
    leaf_asize,
)
from labsim.zfs.layouts import (
    MIRROR,
    RAIDZ,
    SINGLE,
    Layout,
    child_sector_span,
    deflate_ratio,
    deflated,
    psize_to_asize,
    raidz_written,
    top_level_asize,
)
from labsim.zfs.metaslab import FragmentationMemo, Metaslab, metaslab_shift
from labsim.zfs.metaslab_group import GroupAllocators, group_allocate
from labsim.zfs.versions import (
    LAB_VM_CPUS,
    METASLAB_RULES_2_1,
    AliquotScaling,
    KiB,
    MetaslabRules,
    ZfsVersion,
    allocator_count,
)

# A mirror's write is done when its slowest child is (vdev_mirror_io_done() waits for
# every child), so under the allocation throttle, which counts a top-level vdev's
# writes in flight until they complete (labsim.zfs.throttle), a 2-way mirror drains its
# queue more slowly than a single device of the same speed. First calibrated on three real
# 2.1.11 recordings of lab 2 (a single file next to a 2-way mirror of files: the single
# device took 50 %, 52 % and 55 % of a 48 MiB copy) under the earlier fixed-share model;
# with the queue model that 384-block txg stays below the queues' limits and the split is
# the rotor's, 50 %, whatever this factor. It now matters only in txgs that fill a queue.
MIRROR_CHILD_SPEED = 0.9


@dataclass
class Leaf:
    path: str
    psize: int  # the file's size in bytes
    # "ONLINE", or "OFFLINE" after zpool offline (vdev_offline(), module/zfs/vdev.c).
    state: str = "ONLINE"
    # vs_read_errors, vs_write_errors, vs_checksum_errors: the READ WRITE CKSUM columns of
    # zpool status, until zpool clear (vdev_clear(), module/zfs/vdev.c) resets them.
    read_errors: int = 0
    write_errors: int = 0
    cksum_errors: int = 0
    # Byte ranges [start, end) of the leaf that were overwritten behind ZFS's back (dd
    # onto the backing file of an imported pool). Reads of blocks there fail their
    # checksum until a scrub or resilver rewrites them (labsim.zfs.scan).
    damaged: list[tuple[int, int]] = field(default_factory=list)
    # The pool's allocated bytes when the leaf went offline: what was written while it
    # was away is what a resilver copies when it comes back (the leaf's DTL).
    offline_alloc: int = 0
    # Its vdev guid (spa_generate_guid()), which its labels carry: 0 until the shell
    # gives it one (labsim.zfs.labels.new_guid).
    guid: int = 0
    # Why an UNAVAIL leaf could not be used (vs_aux as print_status_config() words it):
    # "cannot open" (VDEV_AUX_OPEN_FAILED, no device at its path), "invalid label"
    # (VDEV_AUX_BAD_LABEL). None for a usable leaf.
    aux: str | None = None
    # vdev_not_present: the leaf could not be opened during an import (vdev_set_state()
    # in module/zfs/vdev.c), so zpool names it by its guid, "was <path>" after the row.
    not_present: bool = False
    # The vdev's blocks (offset, length) when the leaf went missing at an import: what
    # was written after, while it was away, is stale on it when it comes back.
    blocks_when_missing: frozenset[tuple[int, int]] | None = None
    # vdev_asize: the allocatable bytes fixed at the leaf's first open (at creation, or
    # anew at each import), grown only by an expanding open (labsim.zfs.vdev_size); 0
    # takes them from ``psize``.
    asize: int = 0

    def __post_init__(self) -> None:
        if not self.asize:
            self.asize = leaf_asize(self.psize)

    @property
    def name(self) -> str:
        """zpool_vdev_name(): the path, or the guid of a leaf not present at import."""
        return str(self.guid) if self.not_present else self.path

    @property
    def label_aligned_size(self) -> int:
        """vdev_psize: the size vdev_open() keeps, aligned down to a whole label; what
        ``zpool list -v`` prints as a leaf's SIZE (vs_pspace)."""
        return self.psize - self.psize % VDEV_LABEL_SIZE


@dataclass(frozen=True)
class VdevSpec:
    """One top-level vdev as ``zpool create``/``add`` give it: a layout and its leaves,
    each (path, size in bytes)."""

    layout: Layout
    devices: tuple[tuple[str, int], ...]


def single(path: str, size: int) -> VdevSpec:
    return VdevSpec(Layout(), ((path, size),))


def mirror(*devices: tuple[str, int]) -> VdevSpec:
    return VdevSpec(Layout("mirror", len(devices)), tuple(devices))


def raidz(nparity: int, *devices: tuple[str, int]) -> VdevSpec:
    return VdevSpec(Layout(RAIDZ, len(devices), nparity), tuple(devices))


@dataclass
class TopVdev:
    """A top-level vdev: one metaslab group, over one leaf, a mirror or a RAID-Z group."""

    id: int
    leaves: list[Leaf]
    ashift: int
    ms_shift: int
    metaslabs: list[Metaslab]
    layout: Layout = field(default_factory=Layout)
    speed: float = 1.0
    # Each allocator's active metaslabs on this vdev (metaslab_group_allocator_t).
    allocators: GroupAllocators = field(default_factory=GroupAllocators)
    # The release's rules for choosing metaslabs and computing FRAG.
    rules: MetaslabRules = METASLAB_RULES_2_1
    free: int = -1  # kept equal to the sum of the metaslabs' free space
    deflate_ratio: int = 0  # vdev_deflate_ratio, set from the layout when 0
    # A RAID-Z vdev that has been expanded: its blocks' width by birth txg
    # (labsim.zfs.raidz_expansion); None for every other vdev.
    geometry: raidz_expansion_state.Geometry | None = None
    # Write I/Os and bytes the vdev has done since the pool was imported, as far as
    # labsim counts them (file data blocks, one I/O each, and intent-log blocks):
    # zpool iostat's operations and bandwidth. Real vdevs aggregate neighbouring
    # writes and also write metadata, so real counts differ; the lab compares only
    # which vdevs wrote.
    write_ops: int = 0
    write_bytes: int = 0
    guid: int = 0  # the top-level vdev's guid (ZPOOL_CONFIG_TOP_GUID in its labels)
    # vdev_asize, the allocatable bytes its metaslabs are cut from (fixed at creation,
    # stored in the pool's config, grown by an expansion), and vdev_max_asize, what its
    # devices held at its last open (labsim.zfs.vdev_size); 0: from the leaves.
    asize: int = 0
    max_asize: int = 0
    # ``fragmentation`` as last computed, until a metaslab changes.
    _fragmentation: FragmentationMemo = field(default_factory=FragmentationMemo,
                                              compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.free < 0:
            self.free = sum(m.free for m in self.metaslabs)
        if not self.deflate_ratio:
            self.deflate_ratio = deflate_ratio(self.layout, self.ashift)
        if not self.asize:
            self.asize = (top_level_asize(self.layout, [leaf.psize for leaf in self.leaves])
                          if self.leaves else self.space)
        if not self.max_asize:
            self.max_asize = self.asize

    @property
    def kind(self) -> str:
        return self.layout.kind

    @property
    def name(self) -> str:
        """The name zpool status and (2.1.3 and later) zpool list -v print: the leaf's
        path, or the type with the vdev's id, "mirror-0", "raidz2-1" (VDEV_NAME_TYPE_ID
        in zpool_vdev_name(), lib/libzfs/libzfs_pool.c)."""
        if self.layout.kind == SINGLE:
            return self.leaves[0].path
        return f"{self.layout.type_name}-{self.id}"

    def psize_to_asize(self, psize: int) -> int:
        """What a block allocated now costs: after a RAID-Z expansion, at the width in
        force in the open txg (vdev_raidz_asize() with the block's birth txg)."""
        if self.geometry is not None:
            return raidz_expansion_state.block_asize(psize, self.ashift, self.layout.nparity,
                                               self.geometry, self.geometry.txg)
        return psize_to_asize(self.layout, psize, self.ashift)

    def read_bytes(self, psize: int) -> int:
        """Extent.read for one block of ``psize`` bytes allocated whole here: on RAID-Z its
        data and parity sectors when skip sectors pad its asize, else 0 (all of it)."""
        if self.kind != RAIDZ or self.geometry is not None:
            return 0
        read = raidz_written(psize, self.ashift, self.layout.width, self.layout.nparity)
        return read if read < self.psize_to_asize(psize) else 0

    @property
    def write_speed(self) -> float:
        """Relative write throughput the allocation throttle sees (MIRROR_CHILD_SPEED)."""
        if self.kind == MIRROR:
            return self.speed * MIRROR_CHILD_SPEED ** (len(self.leaves) - 1)
        return self.speed

    def dsize(self, psize: int) -> int:
        """What a block of ``psize`` bytes counts for in dataset space (bp_get_dsize)."""
        return self.deflate(self.psize_to_asize(psize))

    def deflate(self, raw: int) -> int:
        return deflated(raw, self.deflate_ratio)

    def aliquot_disks(self, scaling: AliquotScaling) -> int:
        """The n of mg_aliquot = metaslab_aliquot * MAX(1, n) (ZfsVersion.aliquot_scaling)."""
        if scaling is AliquotScaling.CHILDREN:
            return max(1, len(self.leaves) if self.kind != SINGLE else 0)
        return self.layout.data_disks

    @property
    def dspace(self) -> int:
        """vs_dspace: the vdev's space as datasets count it (parity removed for RAID-Z)."""
        return self.deflate(self.space)

    @property
    def dalloc(self) -> int:
        return self.deflate(self.alloc)

    @property
    def space(self) -> int:
        return len(self.metaslabs) << self.ms_shift

    @property
    def alloc(self) -> int:
        return self.space - self.free

    @property
    def fragmentation(self) -> int | None:
        """metaslab_group_fragmentation() (labsim.zfs.metaslab.group_fragmentation)."""
        return self._fragmentation.get(self.metaslabs, self.ashift, self.rules)

    def take(self, nbytes: int, block: int = 0, allocator: int = 0,
             secondary: bool = False, claim: bool = False) -> list[tuple[int, int]]:
        """Allocate ``nbytes`` (the caller checked they fit) in blocks of ``block`` bytes
        (0: a single block) for ``allocator``: in the metaslab it has active on this
        vdev, chosen and given up as OpenZFS does (labsim.zfs.metaslab_group); ``secondary``
        and ``claim``: for a block's second or third copy on this vdev."""
        pieces = group_allocate(self.metaslabs, self.allocators, allocator, nbytes,
                                block or nbytes, self.ashift, secondary,
                                self.rules.fill_fresh_metaslabs, claim)
        self.free -= nbytes
        # New blocks are written next, with good bytes: written_in_place(), called only
        # when a leaf is damaged (a fill takes some 12,000 times, on whole leaves).
        for leaf in self.leaves:
            if leaf.damaged:
                self.written_in_place(pieces)
                break
        return pieces

    def written_in_place(self, pieces: list[tuple[int, int]]) -> None:
        """Ranges (offset, length) of blocks written: their damage on the leaves that take
        the write is gone (new blocks from take(), and blocks labsim keeps in place where
        OpenZFS writes them anew: labsim.zfs.mos.mos_written_anew())."""
        # A plain loop (a generator for any() costs more than the whole test, and a fill
        # takes some 9,000 times).
        for leaf in self.leaves:
            if leaf.damaged:
                if self.kind != RAIDZ:
                    self._written_anew(pieces)
                elif self.geometry is None:
                    self._raidz_written_anew(pieces)
                return

    def _written_anew(self, pieces: list[tuple[int, int]]) -> None:
        """What is allocated is written next, with good bytes and a checksum to match:
        its ranges leave the damage of the leaves that take the write (a single device,
        every child of a mirror that is ONLINE: vdev_mirror_io_start() writes to each
        readable child, a missing or offline one catches up later by resilver)."""
        joined = merge((VDEV_LABEL_START_SIZE + offset, VDEV_LABEL_START_SIZE + offset + length)
                       for offset, length in pieces if length > 0)
        for leaf in self.leaves:
            if leaf.damaged and leaf.state == "ONLINE" and not leaf.not_present:
                leaf.damaged = subtract(leaf.damaged, joined)

    def _raidz_written_anew(self, pieces: list[tuple[int, int]]) -> None:
        """_written_anew() for RAID-Z: vdev_raidz_map_alloc() puts the vdev's sector s on
        child s % width, row s // width (module/zfs/vdev_raidz.c, 2.1.11 and 2.3.9), so an
        allocation of consecutive sectors writes one run of consecutive rows on each child
        it reaches (parity and data alike: every column of the block is written). An
        expanded RAID-Z's older blocks have other widths; its damage is left as it is."""
        width, shift = self.layout.width, self.ashift
        for child, leaf in enumerate(self.leaves):
            if not (leaf.damaged and leaf.state == "ONLINE" and not leaf.not_present):
                continue
            rows = [raidz_child_rows(offset >> shift, (offset + length) >> shift, child, width)
                    for offset, length in pieces if length > 0]
            written = merge((VDEV_LABEL_START_SIZE + (lo << shift),
                             VDEV_LABEL_START_SIZE + (hi << shift))
                            for lo, hi in rows if hi > lo)
            if written:
                leaf.damaged = subtract(leaf.damaged, written)

    def release(self, offset: int, length: int) -> None:
        while length > 0:
            index = offset >> self.ms_shift
            ms = self.metaslabs[index]
            piece = min(length, ms.start + ms.size - offset)
            ms.release(offset, piece)
            self.free += piece
            offset += piece
            length -= piece


def raidz_child_rows(first: int, end: int, child: int, width: int) -> tuple[int, int]:
    """The rows [lo, hi) of ``child`` that RAID-Z's vdev sectors [first, end) use (sector
    s is child s % width's row s // width); lo == hi when they put none there."""
    s0, s1 = child_sector_span(first, end, child, width)
    return (s0 // width, (s1 - 1) // width + 1) if s1 > s0 else (0, 0)


def _as_spec(item: VdevSpec | tuple[str, int]) -> VdevSpec:
    return item if isinstance(item, VdevSpec) else single(*item)


def build_vdev(vdev_id: int, spec: VdevSpec | tuple[str, int], ashift: int,
               version: ZfsVersion) -> TopVdev:
    """Open a top-level vdev: size it from its leaves (layouts.top_level_asize) and cut
    it into metaslabs (vdev_metaslab_set_size() on the top-level asize)."""
    spec = _as_spec(spec)
    for path, size in spec.devices:
        # vdev_open(): a leaf below SPA_MINDEVSIZE fails with EOVERFLOW, in a group too.
        if size - size % VDEV_LABEL_SIZE < SPA_MINDEVSIZE:
            raise DeviceTooSmall(path)
    asize = top_level_asize(spec.layout, [size for _, size in spec.devices])
    shift = metaslab_shift(asize, version)
    count = asize >> shift
    metaslabs = [Metaslab.empty(i << shift, 1 << shift) for i in range(count)]
    return TopVdev(id=vdev_id, leaves=[Leaf(path, size) for path, size in spec.devices],
                   ashift=ashift, ms_shift=shift, metaslabs=metaslabs, layout=spec.layout,
                   asize=asize,
                   allocators=GroupAllocators.of(allocator_count(version, LAB_VM_CPUS)),
                   rules=version.metaslab_rules)


def metadata_allocation(vdev: TopVdev, nbytes: int) -> int:
    """Raw bytes that ``nbytes`` of new-pool metadata (measured on single-file vdevs)
    take on ``vdev``. The metadata is small blocks, modelled as 4 KiB each: the same
    bytes on a single device or a mirror (one copy is accounted), but on RAID-Z each
    block pays parity and padding. The RAID-Z figure is an estimate until recorded."""
    if vdev.kind != RAIDZ:
        return nbytes
    block = 4 * KiB
    return nbytes // block * vdev.psize_to_asize(block)
