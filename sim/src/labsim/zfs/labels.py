"""Vdev labels: the space a leaf loses to them and the boot region
(include/sys/vdev_impl.h), and what they say (module/zfs/vdev_label.c).

Each leaf carries four 256 KiB labels, two at the front and two at the back, plus a
3.5 MiB boot block reservation after the front pair. What remains is the allocatable
size ("asize") that metaslabs are carved from. Each label names the pool (name, guid,
state), the txg it was written in, the leaf's own guid and its top-level vdev's tree:
what ``zpool import`` finds a pool's devices by, whatever their file names.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from labsim.zfs.versions import KiB, MiB

VDEV_LABEL_SIZE = 256 * KiB  # sizeof (vdev_label_t)
VDEV_LABELS = 4
VDEV_BOOT_SIZE = 7 << 19  # 3.5 MiB
VDEV_LABEL_START_SIZE = 2 * VDEV_LABEL_SIZE + VDEV_BOOT_SIZE  # 4 MiB
VDEV_LABEL_END_SIZE = 2 * VDEV_LABEL_SIZE  # 512 KiB
SPA_MINDEVSIZE = 64 * MiB  # smallest device zpool accepts (include/sys/spa.h)


def leaf_asize(psize: int) -> int:
    """Allocatable bytes of a leaf of ``psize`` bytes, as vdev_open() computes it.

    The device size is first aligned down to a whole label (P2ALIGN(osize,
    sizeof (vdev_label_t))), then the front and back reservations are removed.
    """
    osize = psize - psize % VDEV_LABEL_SIZE
    return osize - (VDEV_LABEL_START_SIZE + VDEV_LABEL_END_SIZE)


# ---------------------------------------------------------------- what a label says
#
# Each of the four copies holds the same nvlist (vdev_label_sync() in
# module/zfs/vdev_label.c writes the config vdev_config_generate() makes for the leaf's
# top-level vdev, with the pool's name, guid, state and the txg): labsim keeps the fields
# zpool import reads (lib/libzutil/zutil_import.c at zfs-2.3.9).

# pool_state_t (include/sys/fs/zfs.h): the state a label records.
POOL_STATE_ACTIVE = "active"
POOL_STATE_EXPORTED = "exported"
POOL_STATE_DESTROYED = "destroyed"


@dataclass(frozen=True)
class LeafConfig:
    """A leaf in a label's vdev tree: its guid and the path it was opened by."""

    guid: int
    path: str


@dataclass(frozen=True)
class TopConfig:
    """ZPOOL_CONFIG_VDEV_TREE: the leaf's top-level vdev, its id, guid, type ("disk"
    stands for a file vdev too, "mirror", "raidz") and its leaves."""

    id: int
    guid: int
    kind: str
    leaves: tuple[LeafConfig, ...]


@dataclass(frozen=True)
class VdevLabel:
    """The config one leaf's labels hold (vdev_label_sync() / spa_config_generate())."""

    pool_name: str
    pool_guid: int
    state: str  # POOL_STATE_*
    txg: int  # ZPOOL_CONFIG_POOL_TXG: the txg the config was written in
    top_guid: int
    guid: int  # the leaf's own vdev guid
    vdev_children: int  # ZPOOL_CONFIG_VDEV_CHILDREN: top-level vdevs of the pool
    vdev_tree: TopConfig

    def path_of(self, guid: int) -> str | None:
        """label_paths(): the ZPOOL_CONFIG_PATH the tree gives the leaf ``guid``."""
        return next((leaf.path for leaf in self.vdev_tree.leaves if leaf.guid == guid), None)


@dataclass(frozen=True)
class LabelCopy:
    """One of the four copies on a device, at byte ``offset`` of it."""

    offset: int
    label: VdevLabel


def label_offset(size: int, index: int) -> int:
    """vdev_label_offset() / label_offset() in zutil_import.c: where copy ``index`` of a
    device of ``size`` bytes (aligned down to a whole label) starts: L0 and L1 at the
    front, L2 and L3 in the last 512 KiB."""
    aligned = size - size % VDEV_LABEL_SIZE
    back = 0 if index < VDEV_LABELS // 2 else aligned - VDEV_LABELS * VDEV_LABEL_SIZE
    return index * VDEV_LABEL_SIZE + back


def write_copies(size: int, label: VdevLabel) -> tuple[LabelCopy, ...]:
    """vdev_label_sync() on a device of ``size`` bytes: all four copies."""
    return tuple(LabelCopy(label_offset(size, i), label) for i in range(VDEV_LABELS))


def read_label(copies: tuple[LabelCopy, ...], size: int) -> tuple[VdevLabel, int] | None:
    """zpool_read_label() on a device of ``size`` bytes: the four places a label can be
    are read; the first copy that is there (a txg, a guid) is the config, and the number
    of copies with the same vdev guid is returned with it (``num_labels``, which
    fix_paths() prefers). None when no copy is left. A device smaller than
    SPA_MINDEVSIZE is skipped before any read (zpool_open_func())."""
    if size < SPA_MINDEVSIZE:
        return None
    at = {copy.offset: copy.label for copy in copies}
    found = [at[offset] for offset in (label_offset(size, i) for i in range(VDEV_LABELS))
             if offset in at and offset + VDEV_LABEL_SIZE <= size]
    found = [label for label in found if label.txg > 0 and label.guid != 0]
    if not found:
        return None
    first = found[0]
    return first, sum(1 for label in found if label.guid == first.guid)


def overwrite(copies: tuple[LabelCopy, ...], start: int, end: int) -> tuple[LabelCopy, ...]:
    """The copies left after bytes [start, end) of the device were written over (dd)."""
    return tuple(c for c in copies if c.offset + VDEV_LABEL_SIZE <= start or c.offset >= end)


def truncated(copies: tuple[LabelCopy, ...], size: int) -> tuple[LabelCopy, ...]:
    """The copies a device cut to ``size`` bytes keeps (truncate, dd without notrunc);
    a device grown keeps them all where they were, so its back pair is no longer where
    the labels are read (label_offset() follows the new size)."""
    return tuple(c for c in copies if c.offset + VDEV_LABEL_SIZE <= size)


# ---------------------------------------------------------------- guids


@dataclass
class GuidSource:
    """Where a session's guids come from: spa_generate_guid() draws a random non-zero
    64-bit number for each pool and vdev; labsim derives them from a seed and a count so
    that a session repeats itself, while two pools of the same name get different ones."""

    seed: str = ""
    issued: int = 0


def new_guid(source: GuidSource) -> int:
    source.issued += 1
    digest = hashlib.sha256(f"{source.seed}/{source.issued}".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1
