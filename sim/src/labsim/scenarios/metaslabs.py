"""Lesson 3: one vdev's metaslabs as data is written and deleted.

The scenario cuts a vdev into metaslabs with vdev_metaslab_set_size()'s rule, then writes
files through labsim's metaslab allocator (labsim.zfs.metaslab_group): four allocators, each
with its own active metaslab, fresh metaslabs preferred, a metaslab given up once it is
about half used. Each file's data is 128 KiB blocks, and each file also gets one 4 KiB
indirect block, which hashes to an allocator of its own, as in OpenZFS.

It works on the metaslabs directly, not through a Session: for a 16 TiB vdev a run must
still take milliseconds. So it simulates a *sample* of at most SAMPLE_METASLABS
metaslabs (of the real size) and writes into the sample the share of data they would
get, with at most MAX_FILES files (larger files when the sample needs more data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from labsim.figures import BarSeries, stacked_bar_chart
from labsim.format import zdb as zdb_fmt
from labsim.format.numbers import nicenum
from labsim.scenarios import controls
from labsim.scenarios.base import ScenarioResult, Simulation, typed_fields
from labsim.scenarios.controls import Control
from labsim.zfs.labels import leaf_asize
from labsim.zfs.metaslab import (
    ZFS_VDEV_DEFAULT_MS_COUNT,
    ZFS_VDEV_DEFAULT_MS_SHIFT,
    ZFS_VDEV_MAX_MS_SHIFT,
    ZFS_VDEV_MIN_MS_COUNT,
    Metaslab,
    allocator_for,
    group_fragmentation,
    metaslab_shift,
)
from labsim.zfs.metaslab_group import GroupAllocators, group_allocate
from labsim.zfs.versions import (
    LAB_VM_CPUS,
    GiB,
    GroupFragmentation,
    KiB,
    MiB,
    ZfsVersion,
    allocator_count,
    get_version,
)

ASHIFT = 12
RECORDSIZE = 128 * KiB
INDIRECT = 4 * KiB  # one level-1 block per file: its psize at ashift 12
OBJSET = 54  # the root dataset's objset id in a new pool (any fixed number will do)
FIRST_OBJECT = 2
SAMPLE_METASLABS = 48
MAX_FILES = 1200

SIZES = [(1, "1 GiB"), (4, "4 GiB"), (16, "16 GiB"), (100, "100 GiB"), (1000, "1000 GiB"),
         (4096, "4 TiB"), (16384, "16 TiB")]
PATTERNS = [["sequential", "one large file, written sequentially"],
            ["small", "many small files"],
            ["holes", "many small files, then delete every other one"]]

CONTROLS: list[Control] = [
    {"name": "vdev_gib", "label": "Size of the vdev", "kind": "select",
     "options": [[g, label] for g, label in SIZES], "default": 1},
    {"name": "pattern", "label": "What is written", "kind": "select", "options": PATTERNS,
     "default": "holes"},
    {"name": "fill_percent", "label": "Data written, share of the vdev", "kind": "range",
     "min": 5, "max": 95, "step": 5, "default": 60, "unit": "%"},
    {"name": "file_mib", "label": "Size of each small file", "kind": "select",
     "options": [1, 8, 64], "default": 1, "unit": "MiB"},
    controls.zfs_version_control(),
]


@dataclass(frozen=True)
class Params:
    vdev_gib: int
    pattern: str
    fill_percent: int
    file_mib: int
    zfs_version: str
    notes: tuple[str, ...] = ()

    @property
    def version(self) -> ZfsVersion:
        return get_version(self.zfs_version)


def read(values: object) -> Params:
    """The controls' values, a number rounded and held to its slider's range; anything
    unusable falls back to the default."""
    merged = controls.defaults(CONTROLS)
    given = values if isinstance(values, dict) else {}
    for c in CONTROLS:
        value = given.get(c["name"])
        if value is None or isinstance(value, bool):
            continue
        if c["kind"] == "range":
            if not isinstance(value, int | float | str):
                continue
            try:
                number = float(value)
            except (ValueError, OverflowError):
                continue
            if math.isfinite(number):
                merged[c["name"]] = int(min(max(round(number), c["min"]), c["max"]))
        else:
            match = next((o for o in controls.option_values(c) if str(o) == str(value)), None)
            if match is not None:
                merged[c["name"]] = match
    return Params(**typed_fields(Params, merged))


def sizing_rule(asize: int, version: ZfsVersion) -> str:
    """Which branch of vdev_metaslab_set_size() (module/zfs/vdev.c) decided, in words."""
    count = asize >> ZFS_VDEV_DEFAULT_MS_SHIFT
    shift = metaslab_shift(asize, version)
    if count < ZFS_VDEV_MIN_MS_COUNT:
        why = (f"fewer than {ZFS_VDEV_MIN_MS_COUNT} metaslabs of 512 MiB would fit, so "
               f"the size is the power of two that makes about {ZFS_VDEV_MIN_MS_COUNT}")
    elif count > ZFS_VDEV_DEFAULT_MS_COUNT:
        why = (f"more than {ZFS_VDEV_DEFAULT_MS_COUNT} of 512 MiB would fit, so the size "
               f"is the power of two that makes about {ZFS_VDEV_DEFAULT_MS_COUNT}")
        if shift == ZFS_VDEV_MAX_MS_SHIFT:
            why += ", capped at 16 GiB (zfs_vdev_max_ms_shift), so the count grows past 200"
    else:
        why = f"{ZFS_VDEV_MIN_MS_COUNT} to {ZFS_VDEV_DEFAULT_MS_COUNT} metaslabs of 512 MiB fit"
    return why


def _files(p: Params, budget: int) -> tuple[list[int], int]:
    """Sizes of the files to write into the sample, and the small-file size used."""
    if p.pattern == "sequential":
        return [budget // RECORDSIZE * RECORDSIZE], 0
    size = p.file_mib * MiB
    while budget // size > MAX_FILES:
        size *= 2
    return [size] * max(1, budget // size), size


def _write(metaslabs: list[Metaslab], group: GroupAllocators, obj: int, nbytes: int,
           order: list[int], fill_fresh: bool) -> list[tuple[int, int]]:
    """One file: its data blocks by region of 2^20 blocks (each region hashes to an
    allocator), then its indirect block (level 1: another allocator)."""
    pieces = []
    region = RECORDSIZE << 20
    for first in range(0, nbytes, region):
        allocator = allocator_for(OBJSET, obj, 0, first // RECORDSIZE, group.count)
        length = min(region, nbytes - first)
        pieces += group_allocate(metaslabs, group, allocator, length, RECORDSIZE, ASHIFT,
                                 fill_fresh=fill_fresh)
        _note_activations(group, order)
    allocator = allocator_for(OBJSET, obj, 1, 0, group.count)
    pieces += group_allocate(metaslabs, group, allocator, INDIRECT, INDIRECT, ASHIFT,
                             fill_fresh=fill_fresh)
    _note_activations(group, order)
    return pieces


def _note_activations(group: GroupAllocators, order: list[int]) -> None:
    for index in group.primary:
        if index is not None and index not in order:
            order.append(index)


def run(p: Params) -> ScenarioResult:
    vdev_bytes = p.vdev_gib * GiB
    asize = leaf_asize(vdev_bytes)
    version = p.version
    shift = metaslab_shift(asize, version)
    count = asize >> shift
    sample = min(count, SAMPLE_METASLABS)
    metaslabs = [Metaslab.empty(i << shift, 1 << shift) for i in range(sample)]
    group = GroupAllocators.of(allocator_count(version, LAB_VM_CPUS))
    rules = version.metaslab_rules
    budget = (sample << shift) * p.fill_percent // 100
    sizes, small = _files(p, budget)
    order: list[int] = []
    files = []
    for n, size in enumerate(sizes):
        files.append(_write(metaslabs, group, FIRST_OBJECT + n, size, order,
                            rules.fill_fresh_metaslabs))
    deleted = 0
    if p.pattern == "holes":
        for pieces in files[1::2]:
            for offset, length in pieces:
                metaslabs[offset >> shift].release(offset, length)
            deleted += 1

    frag = [ms.fragmentation(ASHIFT, rules.frag_table) for ms in metaslabs]
    # A vdev's FRAG is what zpool list -v shows; the pool's is the space-weighted mean
    # over vdevs (metaslab_class_fragmentation()).
    vdev_frag = group_fragmentation(metaslabs, ASHIFT, rules)
    unit = GiB if shift >= 30 else MiB
    unit_name = "GiB" if unit == GiB else "MiB"
    rank = {index: n + 1 for n, index in enumerate(order)}
    categories = [str(i) for i in range(sample)]
    used = [round(ms.alloc / unit, 3) for ms in metaslabs]
    free = [round(ms.free / unit, 3) for ms in metaslabs]
    hover = [f"metaslab {i} at offset 0x{ms.start:x}: {nicenum(ms.alloc)} used, "
             f"{nicenum(ms.free)} free, {len(ms.free_lengths)} free segments, "
             f"fragmentation {frag[i]}%"
             + (f"; activated {_ordinal(rank[i])}" if i in rank else "; never activated")
             for i, ms in enumerate(metaslabs)]
    figure = stacked_bar_chart(
        categories,
        [BarSeries("allocated", used, unit_name, ",.2f",
                   text=[f"#{rank[i]}" if i in rank else "" for i in range(sample)],
                   hover=hover),
         BarSeries("free", free, unit_name, ",.2f", hover=hover)],
        title=(f"{sample} of {count} metaslabs of {nicenum(1 << shift)} "
               f"(colour: fragmentation %; #n: order of activation)"),
        x_title="metaslab", y_title=unit_name,
        colour_values=frag, colour_title="frag %",
    )
    summary = _summary(p, asize, shift, count, sample, metaslabs, sizes, small, deleted,
                       vdev_frag, order)
    return ScenarioResult(figure, summary,
                          _transcript(metaslabs, count, sample, shift, version))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _summary(p: Params, asize: int, shift: int, count: int, sample: int,
             metaslabs: list[Metaslab], sizes: list[int], small: int, deleted: int,
             vdev_frag: int | None, order: list[int]) -> str:
    label = dict(SIZES)[p.vdev_gib]
    lines = [f"A {label} vdev keeps {asize:,} bytes for metaslabs after its labels: "
             f"{count} metaslabs of "
             f"{nicenum(1 << shift)}, because {sizing_rule(asize, p.version)}."]
    if sample < count:
        lines.append(f"Simulated: the first {sample} metaslabs, with their share of the data "
                     f"(the others fill the same way).")
    written = sum(sizes)
    what = (f"one file of {nicenum(written)}" if p.pattern == "sequential"
            else f"{len(sizes)} files of {nicenum(small)}")
    if small and small != p.file_mib * MiB:
        what += f" (larger than {p.file_mib} MiB, to keep the run short)"
    lines.append(f"Written: {what}" + (f"; then {deleted} deleted." if deleted else "."))
    used = sum(1 for ms in metaslabs if ms.alloc)
    lines.append(f"Metaslabs used: {used} of {sample}; activated in this order: "
                 f"{', '.join(map(str, order[:12]))}{' …' if len(order) > 12 else ''}.")
    version = p.version
    how = ("weighted by their free space"
           if version.metaslab_rules.group_fragmentation is GroupFragmentation.FREE_WEIGHTED
           else "plain mean")
    frag_text = "- (nothing free)" if vdev_frag is None else f"{vdev_frag}%"
    lines.append(f"FRAG of the vdev in OpenZFS {version.release} (the metaslabs' "
                 f"fragmentation, {how}): {frag_text}; "
                 f"allocated {nicenum(sum(ms.alloc for ms in metaslabs))} of "
                 f"{nicenum(sample << shift)} simulated.")
    return "\n".join(lines)


def _transcript(metaslabs: list[Metaslab], count: int, sample: int, shift: int,
                version: ZfsVersion) -> str:
    """What `zdb -m` would print for the simulated metaslabs after an export (every
    space map flushed), with object numbers and txgs left out (zero)."""
    rows = [zdb_fmt.ZdbMetaslab(id=i, start=ms.start, size=ms.size,
                                sm_object=i + 1 if ms.has_space_map else 0,
                                sm_alloc=ms.alloc, sm_length=0, unflushed_txg=0)
            for i, ms in enumerate(metaslabs)]
    lines = [f"# zdb -m lab3, as after zpool export: the first {sample} of {count} metaslabs"
             " (space map numbers are placeholders)"]
    header = zdb_fmt.vdev_header(zdb_fmt.ZdbVdev(0, 0, rows, shift),
                                 version.zdb_prints_metaslab_shift)
    lines.append(header.rstrip("\n"))
    for row in rows:
        lines.append(zdb_fmt.metaslab_lines(row, False).splitlines()[0])
    return "\n".join(lines) + "\n"



SCENARIO = Simulation("metaslabs", "How a vdev's metaslabs fill up", CONTROLS, read, run)
