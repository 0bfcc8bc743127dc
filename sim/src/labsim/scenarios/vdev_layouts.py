"""Lesson 2: the same N disks as a stripe, as mirrors, or as RAID-Z.

For every layout that N disks allow, the scenario computes what `zpool list` and
`zfs list` would show for the new pool, what blocks of a chosen size really cost,
random IOPS and resilver time from a stated teaching model, and the exact chance of
surviving k simultaneous disk failures (labsim.zfs.tradeoffs). Nothing is simulated
block by block, so a run takes about a millisecond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from labsim.figures import BarPanel, BarSeries, bar_panels
from labsim.format.numbers import nicenum
from labsim.scenarios import controls
from labsim.scenarios.base import ScenarioResult, Simulation, typed_fields
from labsim.scenarios.controls import Control
from labsim.zfs.layouts import VDEV_RAIDZ_MAXPARITY
from labsim.zfs.tradeoffs import (
    LayoutError,
    PoolLayout,
    PoolSpace,
    RandomIops,
    Rebuild,
    data_that_fits,
    empty_pool_space,
    mirrors,
    raidz_groups,
    random_iops,
    raw_efficiency,
    resilver,
    stripe,
    survival_probability,
)
from labsim.zfs.versions import DEFAULT_VERSION, TiB

POOL = "tank"
ASHIFT = 12  # what zpool picks for today's 4K-sector disks
TB = 10**12  # disks are sold in decimal terabytes; zpool and zfs print binary (TiB) "T"
MB = 10**6
# Auto width: RAID-Z groups of about 6 disks are a common compromise between space
# (wider is more efficient) and IOPS and resilver reads (narrower is better).
PREFERRED_RAIDZ_WIDTH = 6
WIDEST_AUTO_RAIDZ = 12
AUTO = "auto"
BLOCK_SIZES_KIB = [4, 8, 16, 32, 64, 128, 1024]

CONTROLS: list[Control] = [
    {"name": "disks", "label": "Number of disks", "kind": "range", "min": 4, "max": 24,
     "step": 1, "default": 12},
    {"name": "disk_tb", "label": "Size of each disk", "kind": "select",
     "options": [1, 2, 4, 8, 12, 16, 20], "default": 4, "unit": "TB"},
    {"name": "raidz_width", "label": "Disks per RAID-Z vdev", "kind": "select",
     "options": [[AUTO, "auto (about 6)"], 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], "default": AUTO},
    {"name": "block_kib", "label": "Block size (recordsize or volblocksize)", "kind": "select",
     "options": [[k, f"{k}K" if k < 1024 else "1M"] for k in BLOCK_SIZES_KIB], "default": 16},
    {"name": "disk_iops", "label": "Random IOPS of one disk", "kind": "range", "min": 50,
     "max": 1000, "step": 50, "default": 200, "unit": "IOPS"},
    {"name": "disk_mbps", "label": "Sequential speed of one disk", "kind": "range", "min": 50,
     "max": 500, "step": 10, "default": 200, "unit": "MB/s"},
    {"name": "fill_percent", "label": "How full the pool is (CAP)", "kind": "range", "min": 0,
     "max": 100, "step": 5, "default": 50, "unit": "%"},
    {"name": "failures", "label": "Disks that fail at the same time", "kind": "range",
     "min": 0, "max": 4, "step": 1, "default": 2},
]


@dataclass(frozen=True)
class Params:
    disks: int
    disk_tb: int
    raidz_width: int | str  # disks per RAID-Z vdev, or AUTO
    block_kib: int
    disk_iops: int
    disk_mbps: int
    fill_percent: int
    failures: int
    notes: tuple[str, ...] = ()


def _shown(value: object) -> str:
    """A value as the reader gave it, short and free of markup characters, for a note."""
    text = repr(value)
    text = text if len(text) <= 24 else text[:23] + "…"
    return "".join(ch for ch in text if ch not in "<>&")


def read(values: object) -> Params:
    """The controls' values, with a note for each value that could not be used as given.
    Anything unusable falls back to the default: a widget must show a chart, never a
    traceback."""
    merged, notes = _values(values)
    return Params(**typed_fields(Params, merged), notes=tuple(notes))


def _values(params: object) -> tuple[dict[str, object], list[str]]:
    merged = controls.defaults(CONTROLS)
    notes: list[str] = []
    if not isinstance(params, dict):
        return merged, ["parameters must be a JSON object; using the defaults"]
    for c in CONTROLS:
        name = c["name"]
        if name not in params:
            continue
        value = params[name]
        if c["kind"] == "range":
            try:
                number = float(value)
            except (TypeError, ValueError, OverflowError):
                number = math.nan
            if isinstance(value, bool) or not math.isfinite(number):
                notes.append(f"{c['label']}: {_shown(value)} is not a number; "
                             f"using {c['default']}")
                continue
            clamped = min(max(round(number), c["min"]), c["max"])
            if clamped != number:
                notes.append(f"{c['label']}: {_shown(value)} is outside {c['min']} to "
                             f"{c['max']} or not a whole number; using {clamped}")
            merged[name] = clamped
        else:
            options = controls.option_values(c)
            match = next((o for o in options
                          if o == value or (not isinstance(value, bool) and str(o) == str(value))),
                         None)
            if match is None:
                notes.append(f"{c['label']}: {_shown(value)} is not one of the choices; "
                             f"using {c['default']}")
            else:
                merged[name] = match
    return merged, notes


def auto_raidz_width(disks: int, nparity: int) -> int | None:
    """A group width for raidz``nparity`` that divides ``disks``: the one closest to
    PREFERRED_RAIDZ_WIDTH (the wider on a tie) with at least two data disks and at most
    WIDEST_AUTO_RAIDZ disks; failing that, all disks in one group (a prime number of
    disks has no other split); None if there are too few disks."""
    fits = [w for w in range(nparity + 2, WIDEST_AUTO_RAIDZ + 1) if disks % w == 0]
    if fits:
        return min(fits, key=lambda w: (abs(w - PREFERRED_RAIDZ_WIDTH), -w))
    return disks if disks >= nparity + 2 else None


def layouts_for(disks: int, raidz_width: int | str) -> tuple[list[PoolLayout], list[str]]:
    """The layouts compared for ``disks`` disks, and why any usual one is missing."""
    chosen = [stripe(disks)]
    missing = []
    for mirror_width in (2, 3):
        try:
            chosen.append(mirrors(disks, mirror_width))
        except LayoutError as err:
            missing.append(str(err))
    for nparity in range(1, VDEV_RAIDZ_MAXPARITY + 1):
        width = (auto_raidz_width(disks, nparity) if isinstance(raidz_width, str)
                 else raidz_width)
        if width is None:
            missing.append(f"raidz{nparity} with at least 2 data disks needs "
                           f"{nparity + 2} disks, not {disks}")
            continue
        try:
            chosen.append(raidz_groups(disks, width, nparity))
        except LayoutError as err:
            missing.append(str(err))
    return chosen, missing


def _fraction_text(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _percent_text(p: Fraction) -> str:
    return f"{float(p) * 100:.4g}%"


def _resilver_short(rebuild: Rebuild | None) -> str:
    return "pool lost" if rebuild is None else f"{rebuild.hours:.1f} h"


def _resilver_long(rebuild: Rebuild | None) -> str:
    if rebuild is None:
        return "no redundancy: a failed disk loses the pool"
    return (f"reads {rebuild.bytes_read / TB:,.1f} TB, writes "
            f"{rebuild.bytes_written / TB:,.1f} TB to the new disk: {rebuild.hours:.1f} h")


def _tib(nbytes: int | float) -> float:
    return round(nbytes / TiB, 3)


def _block_text(block_kib: int) -> str:
    return f"{block_kib}K" if block_kib < 1024 else f"{block_kib // 1024}M"


@dataclass(frozen=True)
class LayoutRow:
    """What one layout gives: the new pool's space, what fits as the chosen blocks, the
    share of raw space a block keeps, random IOPS, a resilver (None: no redundancy) and the
    chance to survive the failures."""

    pool: PoolLayout
    space: PoolSpace
    fits: int
    efficiency: Fraction
    iops: RandomIops
    resilver: Rebuild | None
    survival: Fraction


def run(p: Params) -> ScenarioResult:
    disks, failures = p.disks, p.failures
    disk_size = p.disk_tb * TB
    block = p.block_kib * 1024
    fill = p.fill_percent / 100
    disk_rate = p.disk_mbps * MB
    block_text = _block_text(p.block_kib)

    pools, missing = layouts_for(disks, p.raidz_width)
    rows = []
    for pool in pools:
        # The widget has no release control: it models the default release.
        space = empty_pool_space(pool, disk_size, ASHIFT, DEFAULT_VERSION)
        vdev_raw = space.size // pool.vdev_count
        rows.append(LayoutRow(
            pool=pool,
            space=space,
            fits=data_that_fits(pool, space.avail, block, ASHIFT),
            efficiency=raw_efficiency(pool.vdev, block, ASHIFT),
            iops=random_iops(pool, p.disk_iops),
            resilver=resilver(pool, vdev_raw, fill, disk_rate),
            survival=survival_probability(pool, failures),
        ))

    categories = [r.pool.label.replace(" ", "<br>") for r in rows]
    panels = [
        BarPanel(f"Space: new pool, and data stored as {block_text} blocks", "TiB", [
            BarSeries("SIZE (zpool list)", [_tib(r.space.size) for r in rows], "TiB"),
            BarSeries("AVAIL (zfs list)", [_tib(r.space.avail) for r in rows], "TiB"),
            BarSeries(f"fits as {block_text} blocks", [_tib(r.fits) for r in rows], "TiB"),
        ]),
        BarPanel("Small random I/O (teaching model)", "IOPS", [
            BarSeries("read", [r.iops.read for r in rows], "IOPS", ",.0f"),
            BarSeries("write", [r.iops.write for r in rows], "IOPS", ",.0f"),
        ]),
        BarPanel(f"Resilver one disk, pool {p.fill_percent}% full: data read, hours",
                 "TB read", [
            BarSeries("resilver", [0 if r.resilver is None else
                                   round(r.resilver.bytes_read / TB, 3) for r in rows],
                      "TB", text=[_resilver_short(r.resilver) for r in rows],
                      hover=[_resilver_long(r.resilver) for r in rows]),
        ]),
        BarPanel(f"Pool survives {failures} failed disk{'s' * (failures != 1)}", "%", [
            BarSeries("survives", [round(float(r.survival) * 100, 3) for r in rows], "%",
                      ".4g", text=[_fraction_text(r.survival) for r in rows]),
        ], y_range=(0, 110)),  # room above 100 % for the fractions
    ]
    figure = bar_panels(
        categories, panels,
        title=f"{disks} disks of {p.disk_tb} TB: space, speed and safety by layout",
    )
    return ScenarioResult(figure, _summary(p, rows, missing, block_text),
                          _transcript(disks, [r.pool for r in rows]))


def _summary(p: Params, rows: list[LayoutRow], missing: list[str], block_text: str) -> str:
    """One sentence per layout (each line ends with a full stop, so the text still
    reads well where the page joins the lines into one paragraph)."""
    failures = p.failures
    disk_tib = p.disk_tb * TB / TiB
    lines = [f"{p.disks} disks of {p.disk_tb} TB ({disk_tib:.2f} TiB) each, ashift "
             f"{ASHIFT}, OpenZFS {DEFAULT_VERSION.release}; layouts are named type, "
             f"vdevs × disks per vdev."]
    for r in rows:
        space, iops, rebuild = r.space, r.iops, r.resilver
        if rebuild is None:
            rebuild_text = "no resilver possible (a failed disk loses the pool)"
        else:
            rebuild_text = (f"resilver {rebuild.hours:.1f} h, reading "
                            f"{rebuild.bytes_read / TB:.1f} TB")
        lines.append(
            f"{r.pool.label}: SIZE {nicenum(space.size)}, AVAIL {nicenum(space.avail)}, "
            f"{r.fits / TiB:.1f} TiB as {block_text} blocks "
            f"({float(r.efficiency) * 100:.0f}% of raw); "
            f"random read {iops.read:,} and write {iops.write:,} IOPS; {rebuild_text}; "
            f"survives {failures} failed disk{'s' * (failures != 1)}: "
            f"{_fraction_text(r.survival)} = {_percent_text(r.survival)}.")
    lines += [f"Not shown: {m}." for m in missing]
    lines += [f"Note: {n}." for n in p.notes]
    return "\n".join(lines)


def _device_names(count: int) -> list[str]:
    """sda, sdb, ... sdz, sdaa, ... as Linux names SCSI disks."""
    names = []
    for i in range(count):
        suffix = ""
        n = i + 1
        while n:
            n, r = divmod(n - 1, 26)
            suffix = chr(ord("a") + r) + suffix
        names.append("sd" + suffix)
    return names


def _transcript(disks: int, pools: list[PoolLayout]) -> str:
    devices = _device_names(disks)
    lines = [f"# Not run: the command that builds each layout from {devices[0]} … "
             f"{devices[-1]}."]
    for pool in pools:
        lines.append(f"# {pool.label}")
        lines.append(f"$ {pool.zpool_create(POOL, devices, ASHIFT)}")
    return "\n".join(lines) + "\n"


SCENARIO = Simulation("vdev-layouts", "Which layout for N disks?", CONTROLS, read, run)
