"""Space a leaf vdev loses to labels and the boot region (include/sys/vdev_impl.h).

Each leaf carries four 256 KiB labels, two at the front and two at the back, plus a
3.5 MiB boot block reservation after the front pair. What remains is the allocatable
size ("asize") that metaslabs are carved from.
"""

from __future__ import annotations

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
