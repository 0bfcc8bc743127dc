"""Lesson 1: where writes go in a pool of unequal vdevs.

The scenario writes its experiment as real command lines and runs them through a
labsim Session, so the transcript it returns runs unchanged in the lab VM. After each
file it samples every vdev's ALLOC, which is what `zpool list -v` would print.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from labsim.figures import line_chart
from labsim.scenarios import controls
from labsim.scenarios.base import ScenarioResult, Simulation, typed_fields
from labsim.scenarios.controls import Control
from labsim.shell.session import Session, note, run_script, transcript
from labsim.zfs.pool import Pool
from labsim.zfs.versions import GiB, MiB, get_version

POOL = "alloctest"
DIRECTORY = "/var/tmp/labs"
# Keeps a re-run well under 100 ms in the browser: larger pools get larger files.
MAX_FILES = 400

CONTROLS: list[Control] = [
    {"name": "vdev1_gib", "label": "First vdev (GiB)", "kind": "range", "min": 1, "max": 64,
     "step": 1, "default": 10, "unit": "GiB"},
    {"name": "vdev2_gib", "label": "Second vdev (GiB)", "kind": "range", "min": 1, "max": 64,
     "step": 1, "default": 2, "unit": "GiB"},
    {"name": "ashift", "label": "ashift", "kind": "select", "options": [9, 12, 13],
     "default": 13},
    {"name": "fill_percent", "label": "Write until the pool is this full", "kind": "range",
     "min": 5, "max": 100, "step": 5, "default": 100, "unit": "%"},
    {"name": "add_vdev_gib", "label": "Add a third vdev later (GiB, 0 = no)", "kind": "range",
     "min": 0, "max": 64, "step": 1, "default": 0, "unit": "GiB"},
    {"name": "add_at_percent", "label": "…after writing this share of the data",
     "kind": "range", "min": 0, "max": 95, "step": 5, "default": 50, "unit": "%"},
    {"name": "delete_every_other", "label": "Then delete every other file",
     "kind": "checkbox", "default": False},
    controls.zfs_version_control("Allocator of OpenZFS", extra=("0.6.5",)),
    {"name": "file_mib", "label": "Size of each file (MiB)", "kind": "select",
     "options": [64, 128, 256, 512], "default": 256},
]


@dataclass(frozen=True)
class Params:
    vdev1_gib: int
    vdev2_gib: int
    ashift: int
    fill_percent: float
    add_vdev_gib: int
    add_at_percent: float
    delete_every_other: bool
    zfs_version: str
    file_mib: int
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    """The controls' values: a number is held to its slider's range, a select's value
    made the type of its options (a number sent as text); anything unusable (not a number,
    not an option, not a JSON object at all) is the default."""
    given = values if isinstance(values, dict) else {}
    merged = controls.defaults(CONTROLS)
    for c in CONTROLS:
        name = c["name"]
        value = given.get(name, c["default"])
        if c["kind"] == "range":
            number = _number(value)
            merged[name] = (c["default"] if number is None
                            else min(max(number, c["min"]), c["max"]))
        elif c["kind"] == "checkbox":
            merged[name] = bool(value)
        else:
            options = c["options"]
            try:
                option = type(options[0])(value)
            except (TypeError, ValueError):
                option = None
            merged[name] = option if option in options else c["default"]
    return Params(**typed_fields(Params, merged))


def _number(value: object) -> float | None:
    if not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def run(p: Params) -> ScenarioResult:
    session = Session(version=get_version(p.zfs_version))
    sizes = [p.vdev1_gib, p.vdev2_gib]
    paths = [f"{DIRECTORY}/vdev{i + 1}.raw" for i in range(len(sizes))]
    setup = [f"mkdir -p {DIRECTORY}"]
    setup += [f"truncate -s {size}G {path}" for size, path in zip(sizes, paths, strict=True)]
    setup += [f"zpool create -o ashift={p.ashift} {POOL} {' '.join(paths)}",
              f"zfs set compression=off {POOL}"]
    log = run_script("\n".join(setup), session)
    pool = session.pools[POOL]

    budget = pool.space * p.fill_percent / 100
    file_mib = p.file_mib
    while budget / (file_mib * MiB) > MAX_FILES:
        file_mib *= 2
    add_at = budget * p.add_at_percent / 100 if p.add_vdev_gib else None
    names = [v.name.rsplit("/", 1)[-1] for v in pool.vdevs]
    x: list[float] = [0.0]
    alloc: list[list[float]] = [[v.alloc / GiB] for v in pool.vdevs]
    vlines: list[tuple[float, str]] = []
    written = 0
    files: list[str] = []
    full = False
    while written < budget and not full:
        if add_at is not None and written >= add_at:
            path = f"{DIRECTORY}/vdev3.raw"
            log += run_script(f"truncate -s {p.add_vdev_gib}G {path}\n"
                              f"zpool add -o ashift={p.ashift} {POOL} {path}", session)
            names.append("vdev3.raw")
            alloc.append([0.0] * len(x))
            vlines.append((written / GiB, "vdev3 added"))
            add_at = None
        name = f"/{POOL}/file{len(files) + 1:04d}.bin"
        count = min(file_mib, max(1, int((budget - written) // MiB)))
        (line, result), = run_script(f"dd if=/dev/zero of={name} bs=1M count={count}", session)
        if len(files) < 2 or result.status:
            log.append((line, result))
        elif len(files) == 2:
            log.append(note("… the same dd for each further file …"))
        files.append(name)
        written += pool.root.files[name.rsplit("/", 1)[1]].size
        full = result.status != 0
        x.append(written / GiB)
        for series, vdev in zip(alloc, pool.vdevs, strict=True):
            series.append(vdev.alloc / GiB)

    markers: list[tuple[str, float, list[float]]] = []
    if p.delete_every_other:
        removed = run_script("\n".join(f"rm {f}" for f in files[1::2]), session)
        log += removed[:1] + [note(f"… rm every other file, {len(removed)} in all …")]
        markers.append(("after deleting every other file", x[-1],
                        [v.alloc / GiB for v in pool.vdevs]))
    log += run_script(f"zpool list -v {POOL}", session)

    figure = line_chart(
        x, list(zip(names, alloc, strict=True)),
        title=f"ALLOC per vdev as data is written (OpenZFS {p.zfs_version} allocator)",
        x_title="data written (GiB)", y_title="ALLOC (GiB)", markers=markers, vlines=vlines,
    )
    summary = _summary(pool, names)
    if file_mib != p.file_mib:
        summary += f" (files of {file_mib} MiB, to keep the run short)"
    return ScenarioResult(figure, summary, transcript(log))


def _summary(pool: Pool, names: list[str]) -> str:
    parts = [f"{n}: {v.alloc / GiB:.2f} GiB of {v.space / GiB:.2f} GiB "
             f"({100 * v.alloc / v.space:.0f}% full)" for n, v in zip(names, pool.vdevs,
                                                                    strict=True)]
    ratio = ""
    if len(pool.vdevs) >= 2 and pool.vdevs[1].alloc:
        ratio = f"; ratio {pool.vdevs[0].alloc / pool.vdevs[1].alloc:.2f}:1"
    return "; ".join(parts) + ratio



SCENARIO = Simulation("pools-vdevs", "Where do writes go?", CONTROLS, read, run)
