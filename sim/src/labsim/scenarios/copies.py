"""Lesson 8: garbage over x % of one disk, and the files lost with copies=1, copies=2 and a
mirror.

The published experiment ("Testing copies=n resiliency", 2016) is rebuilt in labsim's own
model (the one the lesson's terminal and lab use): a 1 GiB file vdev (ashift=12) filled to
about 85 % with 1 MiB files of random data, 400 of them with copies=2 or 800 with
copies=1; then a seeded random choice of 8 KiB blocks of the disk (x % of its 131,072,
the same block may be picked twice) is overwritten with garbage, as the post's Perl script
did, and the pool is scrubbed. A file is lost when some block of it has no good copy left.
The mirror is the same 800 files on two 1 GiB disks, with only the first one damaged.

What it shows, as the post found: copies=2 saves most files when little is damaged and
few when much is, because both copies of a block sit on the same disk; the mirror loses
nothing whatever happens to one disk.
"""

from __future__ import annotations

import random

from labsim.figures import files_lost_chart
from labsim.scenarios import controls
from labsim.scenarios.controls import read_params
from labsim.shell.session import CommandResult, Session, note, transcript
from labsim.zfs import scan

DISK = "/var/tmp/c0.raw"
MIRROR_DISK = "/var/tmp/c1.raw"
DISK_BYTES = 1 << 30
GARBAGE_BLOCK = 8 << 10  # the post's corruptor wrote 8 KiB at a time
DISK_BLOCKS = DISK_BYTES // GARBAGE_BLOCK  # 131072, "$numblocks" in the post
PUBLISHED_LEVELS = (0.1, 1.0, 10.0)  # per cent of the disk's blocks
# The post's results: files lost of those written, per level (copies=1 only at 0.1 %).
PUBLISHED = {"copies=2": {0.1: (2, 400), 1.0: (64, 400), 10.0: (385, 400)},
             "copies=1": {0.1: (93, 800)}}
LAYOUTS = ("copies=1", "copies=2", "mirror")
FILES = {"copies=1": 800, "copies=2": 400, "mirror": 800}

# The level of damage in tenths of a per cent (whole numbers: what the page sends back).
CONTROLS = [
    {"name": "permille", "label": "Blocks of the disk overwritten", "kind": "select",
     "options": [[v, f"{v / 10:g} %"] for v in (1, 2, 5, 10, 20, 50, 100, 200)],
     "default": 10},
    {"name": "seed", "label": "Random seed", "kind": "range", "min": 1, "max": 50,
     "step": 1, "default": 7},
]


def describe() -> dict:
    return controls.describe("copies=1, copies=2 and a mirror against a damaged disk",
                             CONTROLS)


def build(layout: str) -> tuple[Session, list[tuple[str, CommandResult]]]:
    """The filled pool ``test`` for one layout, and the commands that made it."""
    session = Session()
    lines = ["mkdir -p /var/tmp", f"truncate -s 1G {DISK}"]
    if layout == "mirror":
        lines += [f"truncate -s 1G {MIRROR_DISK}",
                  f"zpool create -o ashift=12 test mirror {DISK} {MIRROR_DISK}"]
    else:
        lines.append(f"zpool create -o ashift=12 test {DISK}")
    if layout == "copies=2":
        lines.append("zfs set copies=2 test")
    pairs = [(line, session.run(line)) for line in lines]
    count = FILES[layout]
    for i in range(count):
        line = f"dd if=/dev/urandom of=/test/{i} bs=1M count=1 status=none"
        result = session.run(line)
        if i < 2:
            pairs.append((line, result))
    pairs.append(note(f"... and so on, to /test/{count - 1}"))
    return session, pairs


def garbage_ranges(percent: float, seed: int) -> list[tuple[int, int]]:
    """Byte ranges of the disk the corruptor overwrites: ``percent`` % of its 8 KiB
    blocks, picked at random with repeats, away from the last 100 (as in the post)."""
    rng = random.Random(seed)
    count = int(DISK_BLOCKS * percent / 100)
    picks = (rng.randrange(DISK_BLOCKS - 100) for _ in range(count))
    return [(b * GARBAGE_BLOCK, (b + 1) * GARBAGE_BLOCK) for b in picks]


def damage_and_scrub(session: Session, ranges: list[tuple[int, int]]) -> tuple[int, int]:
    """Start from an undamaged pool, overwrite ``ranges`` of the first disk, scrub.
    Returns (files lost, blocks lost)."""
    pool = session.pools["test"]
    scan.clear_errors(pool)
    for vdev in pool.vdevs:
        for leaf in vdev.leaves:
            leaf.damaged = []
    scan.damage_ranges(pool.vdevs[0].leaves[0], ranges)
    scan.scrub(pool, session.now())
    return len(pool.damaged_files), pool.data_errors


def _params(params: object) -> tuple[dict, list[str]]:
    p, notes = read_params(CONTROLS, params)
    return {"percent": int(p["permille"]) / 10, "seed": int(p["seed"])}, notes


def run(params: object) -> dict:
    p, notes = _params(params)
    levels = sorted({*PUBLISHED_LEVELS, p["percent"]})
    lost: dict[str, list[int]] = {layout: [] for layout in LAYOUTS}
    shown = None
    for layout in LAYOUTS:
        session, pairs = build(layout)
        for level in levels:
            files, _ = damage_and_scrub(session, garbage_ranges(level, p["seed"]))
            lost[layout].append(files)
            if layout == "copies=2" and level == p["percent"]:
                shown = pairs + [
                    note(f"garbage over {len(garbage_ranges(level, p['seed']))} random "
                         f"8K blocks of {DISK} (seed {p['seed']}), then:"),
                    ("zpool scrub test", CommandResult()),
                    ("zpool status test", session.run("zpool status test"))]
    figure = files_lost_chart([f"{v:g} %" for v in levels], lost, FILES,
                              published=_published_marks(levels))
    assert shown is not None
    return {"figure": figure, "summary": _summary(p, levels, lost, notes),
            "transcript": transcript(shown)}


def _published_marks(levels: list[float]) -> dict[str, list[float | None]]:
    """The post's results as per cent of files, where it has one for a level."""
    out = {}
    for layout, results in PUBLISHED.items():
        out[layout] = [100 * results[v][0] / results[v][1] if v in results else None
                       for v in levels]
    return out


def _summary(p: dict, levels: list[float], lost: dict[str, list[int]],
             notes: list[str]) -> str:
    i = levels.index(p["percent"])
    counts = ", ".join(f"{layout} {lost[layout][i]} of {FILES[layout]}" for layout in LAYOUTS)
    lines = [f"With {p['percent']:g} % of the disk's 8K blocks overwritten (seed {p['seed']}),"
             f" files lost: {counts}.",
             "The 2016 post lost 2, 64 and 385 of 400 files with copies=2 at 0.1, 1 and 10 %,"
             " and 93 of 800 with copies=1 at 0.1 %.",
             "Both copies of a block live on the one disk, so damage that is spread widely"
             " catches both; the mirror always has the other disk."]
    return " ".join(lines + [n + "." for n in notes])
