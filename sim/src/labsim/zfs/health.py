"""Vdev and pool states, and the reason ``zpool status`` gives for a pool that is not OK.

States follow vdev_propagate_state() (module/zfs/vdev.c): a mirror is DEGRADED while
some child is not ONLINE and UNAVAIL when none is; RAID-Z is DEGRADED with up to
``nparity`` children missing and UNAVAIL beyond; the pool (root vdev) is DEGRADED when a
top-level vdev is, and UNAVAIL when one is unusable.

The reason follows check_status() (lib/libzfs/libzfs_status.c), in its order:
persistent data errors (ZPOOL_STATUS_CORRUPT_DATA) first, then devices missing since the
import (ZPOOL_STATUS_MISSING_DEV_R; ZPOOL_STATUS_CORRUPT_LABEL_R for one found without a
good label), then devices with error counts (ZPOOL_STATUS_FAILING_DEV), then offlined
devices (ZPOOL_STATUS_OFFLINE_DEV).
"""

from __future__ import annotations

from labsim.zfs.layouts import MIRROR, RAIDZ
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import TopVdev

ONLINE, DEGRADED, UNAVAIL, OFFLINE = "ONLINE", "DEGRADED", "UNAVAIL", "OFFLINE"

# Keys of labsim.format.zpool_status.REASONS.
CORRUPT_DATA, FAILING_DEV, OFFLINE_DEV = "corrupt_data", "failing_dev", "offline_dev"
MISSING_DEV_R, CORRUPT_LABEL_R = "missing_dev_r", "corrupt_label_r"


def vdev_state(vdev: TopVdev) -> str:
    missing = sum(1 for leaf in vdev.leaves if leaf.state != ONLINE)
    return group_state(vdev.kind, len(vdev.leaves), vdev.layout.nparity, missing)


def group_state(kind: str, children: int, nparity: int, missing: int) -> str:
    """A top-level vdev's state with ``missing`` of its ``children`` not usable."""
    if missing == 0:
        return ONLINE
    if kind == MIRROR:
        return UNAVAIL if missing == children else DEGRADED
    if kind == RAIDZ:
        return UNAVAIL if missing > nparity else DEGRADED
    return UNAVAIL


def pool_state(pool: Pool) -> str:
    states = {vdev_state(v) for v in pool.vdevs}
    if UNAVAIL in states:
        return UNAVAIL
    return DEGRADED if DEGRADED in states else ONLINE


def can_take_offline(vdev: TopVdev, index: int) -> bool:
    """vdev_offline_locked() refuses (EBUSY, "no valid replicas") when the top-level
    vdev would stop working (vdev_dtl_required(): no other copy of some data)."""
    if vdev.leaves[index].state != ONLINE:
        return True
    others = [leaf for i, leaf in enumerate(vdev.leaves) if i != index]
    if vdev.kind == MIRROR:
        return any(leaf.state == ONLINE for leaf in others)
    if vdev.kind == RAIDZ:
        missing = sum(1 for leaf in others if leaf.state != ONLINE)
        return missing + 1 <= vdev.layout.nparity
    return False


def status_reason(pool: Pool) -> str | None:
    """The check_status() reason for ``zpool status``, or None when the pool is OK."""
    if pool.data_errors:
        return CORRUPT_DATA
    leaves = [leaf for v in pool.vdevs for leaf in v.leaves]
    # Leaves that could not be opened at import (UNAVAIL, a vs_aux): vdev_missing()
    # for "cannot open", vdev_broken() for any other reason.
    if any(leaf.state == UNAVAIL and leaf.aux == "cannot open" for leaf in leaves):
        return MISSING_DEV_R
    if any(leaf.state == UNAVAIL for leaf in leaves):
        return CORRUPT_LABEL_R
    if any(leaf.read_errors or leaf.write_errors or leaf.cksum_errors for leaf in leaves):
        return FAILING_DEV
    if any(leaf.state == OFFLINE for leaf in leaves):
        return OFFLINE_DEV
    return None
