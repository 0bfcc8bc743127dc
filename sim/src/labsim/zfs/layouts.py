"""Top-level vdev layouts: a single device, a mirror, or RAID-Z with 1 to 3 parity columns.

Everything here is a pure function of the layout (kind, number of children, parity) and
the ashift; the pool model asks it three questions about a top-level vdev:

* how big is it? (``top_level_asize``): the allocatable bytes its metaslabs are cut from;
* what does a block cost on it? (``psize_to_asize``): the bytes one allocation takes,
  parity and padding included;
* how is raw space turned into the "deflated" space that datasets see?
  (``deflate_ratio``, ``deflated``).

Source read (OpenZFS, stored index; the zfs-2.1.11 tag itself, commit e25f9131d, is only
stored for META): module/zfs/vdev.c (vdev_open, vdev_set_deflate_ratio,
vdev_deflated_space, vdev_default_asize, vdev_get_ndisks/vdev_get_nparity),
module/zfs/vdev_raidz.c (vdev_raidz_open, vdev_raidz_asize) and module/zfs/vdev_mirror.c
(vdev_mirror_open), from versions carrying the 2.1 dRAID refactor (vd_logical_width,
vdev_open_children), whose rules below are the same as in 2.1.
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.zfs.labels import VDEV_LABEL_SIZE, leaf_asize

SPA_MINBLOCKSHIFT = 9
# vdev_set_deflate_ratio() (module/zfs/vdev.c) measures every top-level vdev with a
# 128 KiB block. The comment there says this cannot change even though larger blocks
# exist, or existing block pointers would be accounted inconsistently.
DEFLATE_REFERENCE_BLOCK = 1 << 17
VDEV_RAIDZ_MAXPARITY = 3  # include/sys/vdev_raidz.h

SINGLE = "file"  # a top-level vdev that is one leaf (labsim's leaves are files)
MIRROR = "mirror"
RAIDZ = "raidz"


@dataclass(frozen=True)
class Layout:
    """The shape of one top-level vdev: ``kind`` is "file", "mirror" or "raidz";
    ``width`` the number of leaves; ``nparity`` the RAID-Z parity (0 otherwise)."""

    kind: str = SINGLE
    width: int = 1
    nparity: int = 0

    @property
    def type_name(self) -> str:
        """The name zpool prints for the group: "mirror", "raidz1", "raidz2", ...
        (zpool_vdev_name() in lib/libzfs/libzfs_pool.c appends the parity to "raidz")."""
        return f"raidz{self.nparity}" if self.kind == RAIDZ else self.kind

    @property
    def data_disks(self) -> int:
        """vdev_get_ndisks() - vdev_get_nparity(): leaves and mirrors count as 1 (their
        vdev_ops have no vdev_op_ndisks), RAID-Z as its children minus parity."""
        if self.kind == RAIDZ:
            return self.width - self.nparity
        return 1


def raidz_asize(psize: int, ashift: int, cols: int, nparity: int) -> int:
    """Bytes a block of ``psize`` bytes takes on a RAID-Z vdev (vdev_raidz_asize()).

    Data sectors, plus ``nparity`` parity sectors for every row of ``cols - nparity``
    data sectors (a short last row still gets full parity), then rounded up to a
    multiple of ``nparity + 1`` sectors so that no free gap is too small to hold the
    smallest possible block (one data sector and its parity).
    """
    sectors = raidz_written(psize, ashift, cols, nparity) >> ashift
    sectors = -(-sectors // (nparity + 1)) * (nparity + 1)
    return sectors << ashift


def raidz_written(psize: int, ashift: int, cols: int, nparity: int) -> int:
    """The bytes of a RAID-Z block's data and parity sectors: its asize without the skip
    sectors that round it up. vdev_raidz_map_alloc() (module/zfs/vdev_raidz.c, 2.1.11
    and 2.3.9) puts those after the block's last row (rm_skipstart, rm_nskip), so they are
    the allocation's last sectors; they are written as zeros but never read back, used in
    parity or checked, so damage there is never found."""
    sectors = ((psize - 1) >> ashift) + 1
    sectors += nparity * ((sectors + cols - nparity - 1) // (cols - nparity))
    return sectors << ashift


def psize_to_asize(layout: Layout, psize: int, ashift: int) -> int:
    """vdev_psize_to_asize(): RAID-Z as above; a single device or a mirror rounds up to
    whole sectors (vdev_default_asize(); a mirror's cost is that of one copy, which is
    what its top-level vdev accounts, although every child stores the block)."""
    if psize == 0:
        return 0
    if layout.kind == RAIDZ:
        return raidz_asize(psize, ashift, layout.width, layout.nparity)
    sector = 1 << ashift
    return -(-psize // sector) * sector


def deflate_ratio(layout: Layout, ashift: int) -> int:
    """vdev_deflate_ratio: 512-byte units of deflated space per 512 bytes allocated,
    scaled by 512 (so 512 means no inflation). 3-wide RAID-Z1 at ashift 12 gives 341:
    a 128 KiB block takes 192 KiB there, and 131072 / (196608 >> 9) = 341."""
    asize = psize_to_asize(layout, DEFLATE_REFERENCE_BLOCK, ashift)
    return DEFLATE_REFERENCE_BLOCK // (asize >> SPA_MINBLOCKSHIFT)


def deflated(space: int, ratio: int) -> int:
    """vdev_deflated_space(): raw bytes (a multiple of 512) as deflated bytes."""
    return (space >> SPA_MINBLOCKSHIFT) * ratio


def deflated_total(spaces: list[int], ratio: int) -> int:
    """The sum of deflated(space, ratio) over ``spaces``, multiplied once."""
    return sum([space >> SPA_MINBLOCKSHIFT for space in spaces]) * ratio


def top_level_asize(layout: Layout, leaf_sizes: list[int]) -> int:
    """Allocatable bytes of a top-level vdev whose leaves are ``leaf_sizes`` bytes: each
    leaf loses its labels and boot region (vdev_open(), labels.py), then group_asize()."""
    return group_asize(layout, [leaf_asize(size) for size in leaf_sizes])


def group_asize(layout: Layout, child_asizes: list[int]) -> int:
    """Allocatable bytes of a top-level vdev whose (open) children have ``child_asizes``.

    A mirror can hold what its smallest child holds (vdev_mirror_open()); RAID-Z uses the
    smallest child's size on every child, the ones that did not open included
    (vdev_raidz_open(): ``asize *= vdev_children``). The parent's size is then aligned
    down to a whole label again, as vdev_open() does for every vdev.
    """
    smallest = min(child_asizes)
    asize = smallest * layout.width if layout.kind == RAIDZ else smallest
    return asize - asize % VDEV_LABEL_SIZE


def child_sector_span(first: int, end: int, child: int, width: int) -> tuple[int, int]:
    """Of a RAID-Z vdev's sectors [first, end), the first one on ``child`` and the one
    after the last (vdev_raidz_map_alloc(): sector s is on child s % width, row
    s // width); two equal numbers when none is."""
    s0 = first + (child - first) % width
    s1 = end - 1 - (end - 1 - child) % width
    return (s0, s1 + 1) if s0 <= s1 else (first, first)
