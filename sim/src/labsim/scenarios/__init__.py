"""Lesson simulations. Each scenario module offers ``describe()`` (its controls and
defaults) and ``run(params)`` (a plotly figure spec, a summary and the command
transcript that produced it). Add a lesson's scenario here and it is on every page."""

from __future__ import annotations

from types import ModuleType

from labsim.scenarios import (
    copies,
    metaslabs,
    pools_vdevs,
    records,
    slow_ssh,
    snapshots,
    sync_crash,
    vdev_layouts,
    vm_images,
    wg_topology,
)

SCENARIOS: dict[str, ModuleType] = {
    "pools-vdevs": pools_vdevs,
    "vdev-layouts": vdev_layouts,
    "metaslabs": metaslabs,
    "records": records,
    "sync-crash": sync_crash,
    "wg-topology": wg_topology,
    "slow-ssh": slow_ssh,
    "snapshots": snapshots,
    "copies": copies,
    "vm-images": vm_images,
}


def get_scenario(name: str) -> ModuleType:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}") from None
