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

How it stays fast (a re-run must take well under 100 ms, in Pyodide too) without a
coarser model:

* The three filled pools do not depend on the controls: each is built once, through the
  shell as a reader would type it, and kept as pickled bytes plus, per file, where each
  copy of each data block sits on the damaged disk (``Layout``).
* The corruptor's picks for a seed are one random sequence; a level of damage is a prefix
  of it (the first x % of the disk's block count). So each copy gets the index of the
  first pick that hits it, a block is lost from the pick that hits its last good copy
  (the largest of its copies' indexes), and a file from its first lost block (the
  smallest of its blocks'). Files lost at a level are then those whose index is below the
  level's pick count: one pass over the picks and the blocks for every level at once.
  This is what scan.scrub() decides block by block (a block is lost when every copy of
  it is damaged and no other leaf holds it; metadata on a single disk is taken from its
  ditto copy), and tests/unit/test_scenario_copies.py checks the two agree.
* Only the pool the transcript shows (copies=2 at the chosen level) is damaged and
  scrubbed in full. It is unpickled once per process (``scrubbed_pool``), not per run
  (that alone took 20 ms in CPython): a run saves what damage, a scrub and `zpool
  status` change in it (``ScrubState``: the leaves' damage and error counters, the
  pool's scan record, data errors and damaged files) and puts it back after, so every
  run starts from the pool as built; tests/unit/test_scenario_copies.py checks it pickles
  to the same bytes as a fresh copy after runs at every level.
"""

from __future__ import annotations

import bisect
import pickle
import random
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import cache, partial

from labsim.figures import files_lost_chart
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.scenarios.steps import Resumable
from labsim.shell.base import CommandResult
from labsim.shell.session import Session, note, transcript
from labsim.zfs import ditto, scan
from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.pool import Pool, ScanRecord

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
CONTROLS: list[Control] = [
    {"name": "permille", "label": "Blocks of the disk overwritten", "kind": "select",
     "options": [[v, f"{v / 10:g} %"] for v in (1, 2, 5, 10, 20, 50, 100, 200)],
     "default": 10},
    {"name": "seed", "label": "Random seed", "kind": "range", "min": 1, "max": 50,
     "step": 1, "default": 7},
]


Built = tuple[Session, list[tuple[str, CommandResult]]]
"""A filled pool's session and the commands that made it (the transcript's pairs)."""


def build_steps(layout: str) -> Generator[None, None, Built]:
    """The filled pool ``test`` for one layout, and the commands that made it; it yields
    before each command, so that its caller can do other work in between."""
    session = Session()
    lines = ["mkdir -p /var/tmp", f"truncate -s 1G {DISK}"]
    if layout == "mirror":
        lines += [f"truncate -s 1G {MIRROR_DISK}",
                  f"zpool create -o ashift=12 test mirror {DISK} {MIRROR_DISK}"]
    else:
        lines.append(f"zpool create -o ashift=12 test {DISK}")
    if layout == "copies=2":
        lines.append("zfs set copies=2 test")
    pairs = []
    for line in lines:
        yield
        pairs.append((line, session.run(line)))
    count = FILES[layout]
    for i in range(count):
        yield
        line = f"dd if=/dev/urandom of=/test/{i} bs=1M count=1 status=none"
        result = session.run(line)
        if i < 2:
            pairs.append((line, result))
    pairs.append(note(f"... and so on, to /test/{count - 1}"))
    return session, pairs


def garbage_count(percent: float) -> int:
    """How many 8 KiB blocks the corruptor overwrites for ``percent`` % of the disk."""
    return int(DISK_BLOCKS * percent / 100)


def garbage_picks(count: int, seed: int) -> list[int]:
    """The corruptor's first ``count`` picks: 8 KiB block numbers of the disk, at random
    with repeats, away from the last 100 (as in the post). Fewer picks are a prefix of
    more with the same seed."""
    # rng.randrange(n) draws n.bit_length() random bits until they make a number below
    # n; drawing them here gives the same numbers several times faster.
    bits = random.Random(seed).getrandbits
    below = DISK_BLOCKS - 100
    width = below.bit_length()
    picks: list[int] = []
    while len(picks) < count:
        picks += [b for b in (bits(width) for _ in range(count - len(picks))) if b < below]
    return picks


def garbage_ranges(picks: list[int]) -> list[tuple[int, int]]:
    """Byte ranges of the disk the corruptor overwrites at ``picks``, in disk order."""
    return [(b * GARBAGE_BLOCK, (b + 1) * GARBAGE_BLOCK) for b in sorted(set(picks))]


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


@dataclass(frozen=True)
class Params:
    permille: int  # of the disk's 8 KiB blocks overwritten: what the page sends back
    seed: int
    notes: tuple[str, ...] = ()

    @property
    def percent(self) -> float:
        return self.permille / 10


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


# A copy's place on DISK as the corruptor's 8 KiB blocks [first, end) it overlaps; a
# block, the places of all its copies; a file, its blocks that can be lost (those with
# every copy on DISK alone).
CopyUnits = tuple[int, int]
BlockCopies = tuple[CopyUnits, ...]


@dataclass(frozen=True)
class Layout:
    """One filled pool: the pickled (Session, transcript pairs) that made it, and per
    file the data blocks whose every copy lies on DISK alone."""

    pickled: bytes
    files_at_risk: tuple[tuple[BlockCopies, ...], ...]


def blocks_at_risk(session: Session) -> tuple[tuple[BlockCopies, ...], ...]:
    """Per file of pool ``test`` (in order), its data blocks that damage to DISK alone
    can lose: every copy (ditto DVA) of the block is on a one-leaf vdev whose leaf is
    DISK. A copy on a mirror has the other child, so its block is never at risk here.
    Neighbouring blocks of one copy each are joined: the file is lost at the first hit
    on any of them, which is the first hit on the whole run."""
    pool = session.pools["test"]
    out = []
    for file in pool.datasets["test"].files.values():
        if file.ditto:
            groups = file.ditto
        else:
            data = file.extents[:len(file.extents) - file.indirect_extents]
            groups = [(block,) for block in ditto.one_block_extents(data)]
        at_risk: list[BlockCopies] = []
        for group in groups:
            leaves = [pool.top(copy.vdev).leaves for copy in group]
            if not all(len(ls) == 1 and ls[0].path == DISK for ls in leaves):
                continue
            places = tuple(((copy.offset + VDEV_LABEL_START_SIZE) // GARBAGE_BLOCK,
                            (copy.offset + VDEV_LABEL_START_SIZE + copy.length - 1)
                            // GARBAGE_BLOCK + 1) for copy in group)
            if len(places) == 1 and at_risk and len(at_risk[-1]) == 1 \
                    and at_risk[-1][0][0] <= places[0][0] <= at_risk[-1][0][1]:
                (first, end), = at_risk[-1]  # this block continues the run before it
                at_risk[-1] = ((first, max(end, places[0][1])),)
            else:
                at_risk.append(places)
        out.append(tuple(at_risk))
    return tuple(out)


def layout_steps(name: str) -> Generator[None, None, Layout]:
    """The filled pool of one layout, built a step at a time (build_steps)."""
    session, pairs = yield from build_steps(name)
    yield
    pickled = pickle.dumps((session, pairs))
    yield
    return Layout(pickled, blocks_at_risk(session))


@cache
def building(name: str) -> Resumable[Layout]:
    """The one build of a layout's pool per process (it does not depend on the controls),
    which the page's worker advances a step at a time while the reader reads (warm) and a
    run completes if it is not done yet."""
    return Resumable(partial(layout_steps, name))


def layout(name: str) -> Layout:
    """The filled pool of one layout, handed out as bytes, so no caller can change what
    the next one gets."""
    return building(name).result()


@dataclass(frozen=True)
class ScrubState:
    """What damage_and_scrub() and `zpool status` change in a pool: per leaf (in vdev
    order) its damaged ranges and READ, WRITE and CKSUM counters; the pool's scan record,
    data errors, damaged files and CKSUM counters."""

    leaves: tuple[tuple[list[tuple[int, int]], int, int, int], ...]
    scan: ScanRecord | None
    data_errors: int
    damaged_files: list[tuple[str, str]]
    vdev_cksum_errors: dict[int, int]
    cksum_errors: int

    @classmethod
    def of(cls, pool: Pool) -> ScrubState:
        return cls(tuple((list(leaf.damaged), leaf.read_errors, leaf.write_errors,
                          leaf.cksum_errors)
                         for vdev in pool.vdevs for leaf in vdev.leaves),
                   pool.scan, pool.data_errors, list(pool.damaged_files),
                   dict(pool.vdev_cksum_errors), pool.cksum_errors)

    def put_back(self, pool: Pool) -> None:
        leaves = [leaf for vdev in pool.vdevs for leaf in vdev.leaves]
        for leaf, (damaged, read, write, cksum) in zip(leaves, self.leaves, strict=True):
            leaf.damaged = list(damaged)
            leaf.read_errors, leaf.write_errors, leaf.cksum_errors = read, write, cksum
        pool.scan, pool.data_errors, pool.cksum_errors = (self.scan, self.data_errors,
                                                          self.cksum_errors)
        pool.damaged_files = list(self.damaged_files)
        pool.vdev_cksum_errors = dict(self.vdev_cksum_errors)


@dataclass(frozen=True)
class ScrubbedPool:
    """The copies=2 pool the transcript damages and scrubs, unpickled once: its session,
    the commands that made it, what a run puts back (``pristine``) and a lock that keeps
    two runs from sharing it at once."""

    session: Session
    pairs: list[tuple[str, CommandResult]]
    pristine: ScrubState
    lock: threading.Lock


@cache
def scrubbed_pool() -> ScrubbedPool:
    session, pairs = pickle.loads(layout("copies=2").pickled)  # noqa: S301 - our own bytes
    return ScrubbedPool(session, pairs, ScrubState.of(session.pools["test"]),
                        threading.Lock())


def scrub_transcript(ranges: list[tuple[int, int]]) -> tuple[list[tuple[str, CommandResult]],
                                                              CommandResult]:
    """The commands that made the copies=2 pool, and `zpool status test` after
    ``ranges`` of DISK were overwritten and the pool scrubbed; the pool is as built again
    afterwards."""
    shown = scrubbed_pool()
    with shown.lock:
        lines_run = shown.session.lines_run  # the session's count of lines, run() adds one
        try:
            damage_and_scrub(shown.session, ranges)
            status = shown.session.run("zpool status test")
        finally:
            shown.pristine.put_back(shown.session.pools["test"])
            shown.session.lines_run = lines_run
    return shown.pairs, status


def warm() -> Iterator[None]:
    """Build the three pools ahead of the first run, a command per step
    (labsim.web.Bridge.warming), then unpickle the copy the transcript scrubs."""
    for name in LAYOUTS:
        while building(name).step():
            yield
    scrubbed_pool()  # a step more: the copy of copies=2 that runs scrub


def first_hits(picks: list[int]) -> list[int]:
    """Per 8 KiB block of the disk, the index of the first pick that hits it, or
    len(picks) + 1 when none does."""
    first_hit = [len(picks) + 1] * DISK_BLOCKS
    for index in range(len(picks) - 1, -1, -1):  # backwards: the earliest index stays
        first_hit[picks[index]] = index
    return first_hit


def first_lost_pick(files_at_risk: tuple[tuple[BlockCopies, ...], ...],
                    first_hit: list[int], never: int | None = None) -> list[int]:
    """Sorted, per file: the number of picks after which the file is lost (a file no
    pick loses counts ``never``, more than all of them: max(first_hit) + 1 unless
    given). Files lost by the first n picks: bisect_right(.., n)."""
    if never is None:
        never = max(first_hit) + 1
    out = []
    for blocks in files_at_risk:
        lost_at = never
        for copies_ in blocks:
            # a block is lost once its last good copy is hit; a copy at its first hit
            block_at = max([min(first_hit[first:end]) for first, end in copies_])
            lost_at = min(lost_at, block_at + 1)
        out.append(lost_at)
    return sorted(out)


def files_lost(name: str, first_hit: list[int], counts: list[int],
               never: int | None = None) -> list[int]:
    """Files of layout ``name`` lost to the first n picks (``first_hit``: first_hits() of
    them), for each n of ``counts`` (``never``: as first_lost_pick() takes it)."""
    lost_at = first_lost_pick(layout(name).files_at_risk, first_hit, never)
    return [bisect.bisect_right(lost_at, n) for n in counts]


def run(p: Params) -> ScenarioResult:
    levels = sorted({*PUBLISHED_LEVELS, p.percent})
    counts = [garbage_count(level) for level in levels]
    picks = garbage_picks(max(counts), p.seed)
    first_hit = first_hits(picks)
    never = max(first_hit) + 1  # once for the three layouts: the disk has 131,072 blocks
    lost = {name: files_lost(name, first_hit, counts, never) for name in LAYOUTS}
    shown_picks = picks[:garbage_count(p.percent)]
    pairs, status = scrub_transcript(garbage_ranges(shown_picks))
    shown = pairs + [
        note(f"garbage over {len(shown_picks)} random 8K blocks of {DISK} "
             f"(seed {p.seed}), then:"),
        ("zpool scrub test", CommandResult()),
        ("zpool status test", status)]
    figure = files_lost_chart([f"{v:g} %" for v in levels], lost, FILES,
                              published=_published_marks(levels))
    return ScenarioResult(figure, _summary(p, levels, lost), transcript(shown))


def _published_marks(levels: list[float]) -> dict[str, list[float | None]]:
    """The post's results as per cent of files, where it has one for a level."""
    out = {}
    for layout, results in PUBLISHED.items():
        out[layout] = [100 * results[v][0] / results[v][1] if v in results else None
                       for v in levels]
    return out


def _summary(p: Params, levels: list[float], lost: dict[str, list[int]]) -> str:
    i = levels.index(p.percent)
    counts = ", ".join(f"{layout} {lost[layout][i]} of {FILES[layout]}" for layout in LAYOUTS)
    lines = [f"With {p.percent:g} % of the disk's 8K blocks overwritten (seed {p.seed}),"
             f" files lost: {counts}.",
             "The 2016 post lost 2, 64 and 385 of 400 files with copies=2 at 0.1, 1 and 10 %,"
             " and 93 of 800 with copies=1 at 0.1 %.",
             "Both copies of a block live on the one disk, so damage that is spread widely"
             " catches both; the mirror always has the other disk."]
    return " ".join(lines + [n + "." for n in p.notes])


SCENARIO = Simulation("copies", "copies=1, copies=2 and a mirror against a damaged disk",
                      CONTROLS, read, run, warm)
