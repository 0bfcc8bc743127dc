"""Lesson 6: where the space of snapshots goes, what a clone pins, and what destroying a
run of snapshots would free.

The scenario runs labsim's own shell (the same model the lesson's terminal and lab use,
checked against real 2.1.11 recordings): a dataset of four 1 MiB files gets a snapshot a
day, and between snapshots some files are rewritten, new ones written and old ones
deleted, as the controls say; optionally a clone of one snapshot writes files of its own.
The chart shows every version of every file along the dataset's chain of snapshots: the
snapshots and the head that hold it. The summary gives each snapshot's USED (its unique
space), usedbysnapshots, and what ``zfs destroy -nv`` says destroying the chosen range
would reclaim, or why it would be refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from labsim.figures import Span, snapshot_timeline
from labsim.format.numbers import nicebytes
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.shell.base import CommandResult
from labsim.shell.session import Session, transcript
from labsim.zfs import snapshot_space
from labsim.zfs import snapshots as snap
from labsim.zfs.pool import Dataset, File, Pool
from labsim.zfs.space import file_used_bytes

DAYS = ["mon", "tue", "wed", "thu", "fri", "sat"]
POOL, DATASET, CLONE = "tank", "tank/data", "tank/work"
INITIAL_FILES = 4

CONTROLS: list[Control] = [
    {"name": "days", "label": "Snapshots (one a day)", "kind": "range", "min": 2, "max": 6,
     "step": 1, "default": 4},
    {"name": "rewrite_mib", "label": "Files rewritten after each snapshot", "kind": "range",
     "min": 0, "max": 4, "step": 1, "default": 1, "unit": "× 1 MiB"},
    {"name": "new_mib", "label": "New files written after each snapshot", "kind": "range",
     "min": 0, "max": 3, "step": 1, "default": 1, "unit": "× 1 MiB"},
    {"name": "delete_mib", "label": "Old files deleted after each snapshot", "kind": "range",
     "min": 0, "max": 2, "step": 1, "default": 0, "unit": "× 1 MiB"},
    {"name": "clone_of", "label": "Clone (tank/work) of", "kind": "select",
     "options": [["none", "no clone"], *[[d, f"@{d}"] for d in DAYS]], "default": "tue"},
    {"name": "clone_mib", "label": "Written in the clone", "kind": "range", "min": 0,
     "max": 4, "step": 1, "default": 1, "unit": "MiB"},
    {"name": "range_from", "label": "Destroy from", "kind": "select",
     "options": [[d, f"@{d}"] for d in DAYS], "default": "wed"},
    {"name": "range_to", "label": "Destroy to", "kind": "select",
     "options": [[d, f"@{d}"] for d in DAYS], "default": "thu"},
]

GROUPS = [
    ("still in the head", "#0072B2"),
    ("only in one snapshot (its USED)", "#E69F00"),
    ("only in snapshots, shared by several", "#CC79A7"),
    ("freed by destroying the range", "#D55E00"),
    ("held by the clone", "#009E73"),
]


@dataclass(frozen=True)
class Params:
    days: int
    rewrite_mib: int
    new_mib: int
    delete_mib: int
    clone_of: str
    clone_mib: int
    range_from: str
    range_to: str
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    """The controls' values, and what the other controls leave possible: a clone or a
    range of snapshots that are not taken falls back (with a note), and a range given
    backwards is turned round."""
    p = typed_params(Params, CONTROLS, values)
    notes = list(p.notes)
    taken = DAYS[:p.days]
    clone_of = p.clone_of
    if clone_of != "none" and clone_of not in taken:
        notes.append(f"there is no @{clone_of} with {p.days} snapshots: no clone")
        clone_of = "none"
    ends = []
    for day in (p.range_from, p.range_to):
        if day not in taken:
            notes.append(f"@{day} is not taken with {p.days} snapshots: @{taken[-1]} instead")
            day = taken[-1]
        ends.append(day)
    first, last = sorted(ends, key=DAYS.index)
    return replace(p, clone_of=clone_of, range_from=first, range_to=last, notes=tuple(notes))


def _script(p: Params) -> list[str]:
    """The commands the scenario runs (in labsim), in order."""
    lines = ["truncate -s 256M /var/tmp/tank.raw",
             f"zpool create -o ashift=12 {POOL} /var/tmp/tank.raw", f"zfs create {DATASET}"]
    files = [f"f{i}" for i in range(1, INITIAL_FILES + 1)]
    lines += [_dd(f"/{DATASET}/{f}", 1) for f in files]
    turn = 0
    for day in DAYS[:p.days]:
        lines.append(f"zfs snapshot {DATASET}@{day}")
        if p.clone_of == day:
            lines.append(f"zfs clone {DATASET}@{day} {CLONE}")
            lines += [_dd(f"/{CLONE}/w{j}", 1) for j in range(1, p.clone_mib + 1)]
        for _ in range(min(p.rewrite_mib, len(files))):
            lines.append(_dd(f"/{DATASET}/{files[turn % len(files)]}", 1))
            turn += 1
        new = [f"{day}{j}" for j in range(1, p.new_mib + 1)]
        lines += [_dd(f"/{DATASET}/{f}", 1) for f in new]
        gone, files = files[:p.delete_mib], files[p.delete_mib:] + new
        lines += [f"rm /{DATASET}/{f}" for f in gone]
    return lines


def _dd(path: str, mib: int) -> str:
    return f"dd if=/dev/urandom of={path} bs=1M count={mib} status=none"


def run(p: Params) -> ScenarioResult:
    session = Session()
    pairs = [(line, session.run(line)) for line in _script(p)]
    pool = session.pools[POOL]
    dataset = pool.datasets[DATASET]
    spec = f"{DATASET}@{p.range_from}%{p.range_to}"
    listing = f"zfs list -r -t all -o name,used,refer,usedbysnapshots,origin {POOL}"
    shown = [(line, session.run(line)) for line in (listing, f"zfs destroy -nv {spec}")]
    figure = _figure(pool, dataset, p)
    return ScenarioResult(figure, _summary(pool, dataset, p, shown[1][1]),
                          transcript(pairs + shown))


def _figure(pool: Pool, dataset: Dataset, p: Params) -> dict:
    members = snap.chain(pool, dataset)
    columns = [f"@{s.short}" for s in dataset.snapshots] + ["head"]
    first = dataset.snapshots[DAYS.index(p.range_from)]
    last = dataset.snapshots[DAYS.index(p.range_to)]
    lo, hi = members.index(first), members.index(last)
    clone = pool.datasets.get(CLONE)
    clone_files = {id(f) for f in clone.files.values()} if clone else set()
    if clone is not None:
        columns.append("clone")
    versions: dict[int, tuple[str, list[int]]] = {}
    for index, member in enumerate(members):
        for name, file in member.files.items():
            versions.setdefault(id(file), (name, []))[1].append(index)
    seen: dict[str, int] = {}
    rows: list[str] = []
    spans: list[Span] = []
    for key, (name, held) in sorted(versions.items(), key=lambda kv: (kv[1][0], kv[1][1][0])):
        seen[name] = seen.get(name, 0) + 1
        row = f"{name} v{seen[name]}"
        rows.append(row)
        start, end = held[0], held[-1]
        version = _file(members, key)
        size = nicebytes(file_used_bytes(pool, version))
        if end == len(members) - 1:
            group = GROUPS[0][0]
        elif lo <= start and end <= hi:
            group = GROUPS[3][0]
        elif start == end:
            group = GROUPS[1][0]
        else:
            group = GROUPS[2][0]
        spans.append(Span(row, start, end - start + 1, group,
                          hover=f"{row}: {size}, born in txg {version.birth}, "
                                f"held by {columns[start]}"
                                + (f" to {columns[end]}" if end > start else ""),
                          text=size))
        if key in clone_files:
            spans.append(Span(row, len(columns) - 1, 1, GROUPS[4][0],
                              hover=f"{row} is still in the clone"))
    if clone is not None:
        for name, file in sorted(clone.files.items()):
            if id(file) not in versions:
                row = f"{name} (clone)"
                rows.append(row)
                spans.append(Span(row, len(columns) - 1, 1, GROUPS[4][0],
                                  hover=f"{name}, written in the clone: "
                                        f"{nicebytes(file_used_bytes(pool, file))}"))
    marks = [(lo, f"destroy @{p.range_from}", "#D55E00"),
             (hi + 1, f"to @{p.range_to}", "#D55E00")]
    return snapshot_timeline(columns, rows, spans, GROUPS,
                             title=f"{DATASET}: what each snapshot holds",
                             marks=marks, height=160 + 22 * len(rows))


def _file(members: list[snap.Objset], key: int) -> File:
    return next(f for m in members for f in m.files.values() if id(f) == key)


def _summary(pool: Pool, dataset: Dataset, p: Params, dry_run: CommandResult) -> str:
    uses = ", ".join(f"@{s.short} {nicebytes(snapshot_space.snapshot_used(pool, s))}"
                     for s in dataset.snapshots)
    lines = [f"Each snapshot's USED (what destroying it alone frees): {uses}.",
             "Together the snapshots hold"
             f" {nicebytes(snapshot_space.usedbysnapshots(pool, dataset))}"
             " the head no longer has (usedbysnapshots); blocks that several snapshots"
             " share are in no snapshot's USED."]
    reclaim = [line for line in dry_run.stdout.splitlines() if "reclaim" in line]
    if dry_run.status:
        lines.append(f"zfs destroy -nv of @{p.range_from} to @{p.range_to} is "
                     f"refused: {dry_run.stderr.splitlines()[0].split(': ', 1)[1]} "
                     "(the clone pins its origin).")
    elif reclaim:
        lines.append(f"Destroying @{p.range_from} to @{p.range_to}: zfs destroy -nv "
                     f"says it {reclaim[0]}.")
    clone = pool.datasets.get(CLONE)
    if clone is not None:
        used = snapshot_space.space(pool, clone).used
        lines.append(f"The clone tank/work uses {nicebytes(used)} of its own"
                     f" and keeps @{p.clone_of} alive.")
    return " ".join(lines + [n + "." for n in p.notes])


SCENARIO = Simulation("snapshots", "Snapshots, a clone, and what destroying them frees",
                      CONTROLS, read, run)
