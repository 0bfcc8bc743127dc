"""How ``zpool import`` finds pools: by the labels on the devices it scans, not by names.

lib/libzutil/zutil_import.c at zfs-2.3.9: zpool_find_import_scan() lists the entries
of each searched directory (not recursively; a path that is a file is taken as it is),
zpool_open_func() reads each one's label (zpool_read_label(), labsim.zfs.labels),
add_config() files every label under its pool guid and top-level vdev guid, and
get_configs() assembles one config per pool: for each top-level vdev the label with the
highest txg (labels of the same txg count once), top-level vdevs no label was found for
as "missing" placeholders, and every leaf's path replaced by where a device with its guid
was found (fix_paths()). The kernel then opens the pool from that config
(spa_tryimport(), spa_import()): labsim.zfs.import_config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.zfs.labels import VdevLabel


@dataclass(frozen=True)
class FoundDevice:
    """A device whose label was read: its path, the position of its directory among the
    searched ones (rn_order: earlier -d directories are preferred), the label and how
    many of its four copies agree (num_labels)."""

    path: str
    order: int
    label: VdevLabel
    num_labels: int


@dataclass
class FoundPool:
    """What get_configs() makes of the labels of one pool guid."""

    guid: int
    # Pool-level fields come from the first top-level vdev of get_configs()'s list
    # (the one whose first label was filed last, as add_config() prepends), from its
    # best label.
    name: str
    state: str
    # For each top-level vdev found, by guid, its label with the highest txg.
    tops: dict[int, VdevLabel] = field(default_factory=dict)
    devices: list[FoundDevice] = field(default_factory=list)

    @property
    def txg(self) -> int:
        return max(label.txg for label in self.tops.values())

    def config_path(self, top_guid: int, leaf_guid: int) -> str | None:
        """The leaf's ZPOOL_CONFIG_PATH in the best label of its top-level vdev."""
        best = self.tops.get(top_guid)
        return None if best is None else best.path_of(leaf_guid)


def find_pools(devices: list[FoundDevice]) -> list[FoundPool]:
    """add_config() and get_configs() over every label read, in the order the devices
    were read (the slice cache is sorted by path). Labels with txg 0 (a half-made
    label, vdev_label_init()) are skipped."""
    by_guid: dict[int, list[FoundDevice]] = {}
    for device in devices:
        if device.label.txg == 0:
            continue
        by_guid.setdefault(device.label.pool_guid, []).append(device)
    pools = []
    for guid, found in by_guid.items():
        best: dict[int, VdevLabel] = {}
        for device in found:
            label = device.label
            held = best.get(label.top_guid)
            if held is None or label.txg > held.txg:
                best[label.top_guid] = label
        # add_config() prepends each new top-level vdev: get_configs() takes the pool's
        # name and state from the one filed last.
        order = list(dict.fromkeys(d.label.top_guid for d in found))
        first_top = order[-1]
        pools.append(FoundPool(guid=guid, name=best[first_top].pool_name,
                               state=best[first_top].state, tops=best, devices=found))
    return pools


def fix_path(devices: list[FoundDevice], guid: int, config_path: str | None) -> str | None:
    """fix_paths() for one leaf: among the devices found with its guid, the one at the
    config's own path; else the one with the most intact labels; else the earliest in
    the search order, and of those the last read (add_config() prepends each name to the
    list fix_paths() walks). None if no device has its guid."""
    best: FoundDevice | None = None
    for device in reversed(devices):
        if device.label.guid != guid:
            continue
        if config_path is None or device.path == config_path:
            return device.path
        if (best is None or device.num_labels > best.num_labels
                or (device.num_labels == best.num_labels and device.order < best.order)):
            best = device
    return None if best is None else best.path
