"""How big a vdev is over its life: what each open finds, when a vdev grows, and the
EXPANDSZ that ``zpool list`` prints in between.

From vdev_open(), vdev_online() and vdev_get_stats_ex() (module/zfs/vdev.c),
vdev_mirror_open() and vdev_raidz_open() and metaslab_class_expandable_space()
(module/zfs/metaslab.c), the same at zfs-2.1.11 and zfs-2.3.9:

* Every open of a vdev works out two sizes. ``max_asize`` is what the devices hold now:
  a leaf's file size, aligned down to a whole label, less the labels and boot region; a
  mirror's is its smallest child's, a RAID-Z's its smallest child's times the children,
  counting only the children that opened (a missing one is skipped). ``asize`` is what
  the vdev uses: fixed at its first open, and after that replaced by the newly computed
  one only when the vdev is healthy (every child open) and either it shrank or it grew
  while expanding (``zpool online -e``, which marks the onlined leaf and its parents) or
  with the pool's autoexpand on.
* An import builds the vdev tree anew: each leaf's first open fixes its asize at what the
  file holds now, while the top-level vdev's asize comes from the config the pool stored
  (ZPOOL_CONFIG_ASIZE), so the top-level vdev does not grow at an import. autoexpand
  does not change that: the pool's properties are read after the vdevs are opened.
* ``zpool online`` reopens the leaf's whole top-level vdev (vdev_reopen(tvd)), so every
  leaf's file is looked at again, with or without -e.
* ``vs_esize``, the EXPANDSZ of a row of ``zpool list -v``, is ``max_asize - asize`` of
  that vdev (a leaf too), aligned down to its top-level vdev's metaslab size; the pool's
  is the sum over its normal top-level vdevs.
* When the top-level vdev's asize grew, vdev_expand() (from the config update that
  ``online -e`` or autoexpand requests) adds metaslabs of the same size (the metaslab
  shift is not worked out again) up to ``asize >> ms_shift``.

Measured in tools/probes/model/lab15-expandsize.sh (both releases): a mirror imported
without its smaller side, files grown under a mirror and a single disk, online without
and with -e, export and import, autoexpand.
"""

from __future__ import annotations

from collections.abc import Callable

from labsim.zfs import health
from labsim.zfs.labels import leaf_asize
from labsim.zfs.layouts import RAIDZ, group_asize
from labsim.zfs.metaslab import Metaslab
from labsim.zfs.vdevs import Leaf, TopVdev

# The size of the file at a path now, or None when there is none.
FileSize = Callable[[str], int | None]


def _open_leaves(vdev: TopVdev) -> list[Leaf]:
    # A leaf that is offline or could not be opened has vdev_open_error set: skipped.
    return [leaf for leaf in vdev.leaves
            if leaf.state == health.ONLINE and not leaf.not_present]


def reopen(vdev: TopVdev, file_size: FileSize, expanding: Leaf | TopVdev | None = None,
           autoexpand: bool = False) -> None:
    """vdev_reopen() of a top-level vdev: each open leaf's file size is read again (a
    leaf ``file_size`` gives None for keeps the size it had); ``expanding`` is what
    vdev_online() with ZFS_ONLINE_EXPAND was called on, a leaf (it and the top-level
    vdev may grow) or the top-level vdev itself (only it may), ``autoexpand`` the pool's
    property (every vdev may grow)."""
    for leaf in _open_leaves(vdev):
        size = file_size(leaf.path)
        if size is None:
            continue
        leaf.psize = size
        grown = leaf_asize(size)
        if grown < leaf.asize or (grown > leaf.asize and (leaf is expanding or autoexpand)):
            leaf.asize = grown
    _top_level_opened(vdev, grow=expanding is not None or autoexpand)


def too_small(vdev: TopVdev, leaf_size: Callable[[Leaf], int | None]) -> list[Leaf]:
    """The leaves whose file now holds less than the vdev needs of each device
    (min_device_asize()); ``leaf_size`` gives a leaf's file size as the open would find
    it, None for a leaf not opened. vdev_open() fails such a leaf ("Make sure the
    allocatable size hasn't shrunk too much", VDEV_AUX_BAD_LABEL), which labsim does not
    model."""
    needed = min_device_asize(vdev)
    small = []
    for leaf in vdev.leaves:
        size = leaf_size(leaf)
        if size is not None and leaf_asize(size) < needed:
            small.append(leaf)
    return small


def imported(vdev: TopVdev, file_size: FileSize) -> None:
    """The vdev as an import opens it: the leaves found take their file's size, as at a
    first open; the top-level vdev keeps the asize its config stored."""
    for leaf in _open_leaves(vdev):
        size = file_size(leaf.path)
        if size is not None:
            leaf.psize = size
            leaf.asize = leaf_asize(size)
    _top_level_opened(vdev, grow=False)


def _top_level_opened(vdev: TopVdev, grow: bool) -> None:
    """vdev_open() of the top-level vdev after its children: max_asize always, asize when
    every child is open and it shrank, or grew while allowed to."""
    opened = _open_leaves(vdev)
    if not opened:
        return
    vdev.max_asize = group_asize(vdev.layout, [leaf_asize(leaf.psize) for leaf in opened])
    asize = group_asize(vdev.layout, [leaf.asize for leaf in opened])
    healthy = len(opened) == len(vdev.leaves)
    if healthy and (asize < vdev.asize or (asize > vdev.asize and grow)):
        vdev.asize = asize


def expand(vdev: TopVdev) -> None:
    """vdev_expand(): metaslabs of the vdev's metaslab size up to ``asize >> ms_shift``
    (vdev_metaslab_init() with the existing vdev_ms_shift)."""
    for index in range(len(vdev.metaslabs), vdev.asize >> vdev.ms_shift):
        ms = Metaslab.empty(index << vdev.ms_shift, 1 << vdev.ms_shift)
        vdev.metaslabs.append(ms)
        vdev.free += ms.size


def min_device_asize(vdev: TopVdev) -> int:
    """vdev_get_min_asize() of a device of ``vdev`` (the device attach or replace names,
    or the first child of a RAID-Z being widened): the smallest asize a new device may
    have (spa_vdev_attach(): EOVERFLOW, "device is too small"). The top-level vdev's
    asize rounded down to whole metaslabs, shared among the children for RAID-Z
    (vdev_raidz_min_asize()); a mirror child or a single device needs all of it."""
    needed = vdev.asize - vdev.asize % (1 << vdev.ms_shift)
    if vdev.layout.kind == RAIDZ:
        return -(-needed // len(vdev.leaves))
    return needed


def esize(vdev: TopVdev, leaf: Leaf | None = None) -> int:
    """vs_esize of the top-level vdev, or of one of its leaves: the room it could grow
    by, in whole metaslabs of the top-level vdev."""
    grown, used = ((leaf_asize(leaf.psize), leaf.asize) if leaf is not None
                   else (vdev.max_asize, vdev.asize))
    room = max(0, grown - used)
    return room - room % (1 << vdev.ms_shift)


def expandable_space(vdevs: list[TopVdev]) -> int:
    """metaslab_class_expandable_space(): the pool's EXPANDSZ, over its normal vdevs."""
    return sum(esize(vdev) for vdev in vdevs)
