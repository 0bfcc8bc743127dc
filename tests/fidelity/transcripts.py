"""Reading transcripts ("$ command" followed by its output) and comparing their numbers.

A transcript recorded on real OpenZFS and one produced by labsim from the same script are
compared block by block: every `zpool list -p` / `zfs list -p` figure within a tolerance,
and every error message word for word. Timings (dd) and other free-form output are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PROMPT = "$ "

# Relative tolerances (issue: simulator versus reality).
SPACE_TOLERANCE = 0.01  # SIZE, FREE, AVAIL, USED, REFER
VDEV_ALLOC_TOLERANCE = 0.05  # per-vdev ALLOC
# ALLOC of a nearly empty pool or vdev is a few hundred KiB of metadata: compare it in
# absolute terms below this many bytes.
SMALL_ALLOC = 4 << 20


@dataclass
class Block:
    command: str
    output: str


def parse(text: str) -> list[Block]:
    blocks: list[Block] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(PROMPT):
            blocks.append(Block(line[len(PROMPT):].rstrip("\n"), ""))
        elif line.startswith("# "):
            continue  # a note, not output
        elif blocks:
            blocks[-1].output += line
    return blocks


def table(output: str) -> dict[str, dict[str, str]]:
    """Rows of a `zpool list -p` / `zfs list -p` table, keyed by their NAME column."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return {}
    header = lines[0].split()
    rows = {}
    for line in lines[1:]:
        cells = line.split()
        rows[cells[0]] = dict(zip(header, cells, strict=False))
    return rows


def is_compared_listing(command: str) -> bool:
    words = command.split()
    return (len(words) >= 2 and words[0] in ("zpool", "zfs") and words[1] == "list"
            and any(re.fullmatch(r"-\w*p\w*", w) for w in words[2:])
            and not any(re.fullmatch(r"-\w*H\w*", w) for w in words[2:]))


def compare(real: str | list[str], simulated: str) -> list[str]:
    """Every disagreement between real transcript(s) and labsim's, as readable lines.

    Real OpenZFS is not deterministic: with the allocation throttle, which vdev receives a
    block depends on how fast each write completes, and two recordings of the same script
    split the data differently. Given several recordings, a figure passes when it lies
    within the tolerance of the range the real runs spanned.
    """
    runs = [real] if isinstance(real, str) else list(real)
    parsed = [parse(text) for text in runs]
    sim_blocks = parse(simulated)
    commands = [b.command for b in sim_blocks]
    if any([b.command for b in blocks] != commands for blocks in parsed):
        return ["the transcripts are of different command sequences"]
    problems = []
    for index, s in enumerate(sim_blocks):
        where = f"command {index + 1} `{s.command}`"
        outputs = [blocks[index].output for blocks in parsed]
        words = s.command.split()
        if words[:2] in (["zpool", "list"], ["zfs", "list"]) and outputs[0].strip():
            # Same columns, same widths: the header line must match character for character.
            header = outputs[0].splitlines()[0]
            if s.output.splitlines()[:1] != [header]:
                problems.append(f"{where}: header {header!r} on real OpenZFS, "
                                f"{s.output.splitlines()[:1]} in labsim")
        if words[:2] == ["zpool", "status"] and s.output != outputs[0]:
            problems.append(f"{where}: real printed {outputs[0]!r}, labsim {s.output!r}")
        if is_compared_listing(s.command):
            problems += _compare_tables(where, [table(o) for o in outputs], table(s.output))
        elif s.command.split()[0] in ("zpool", "zfs") and _is_error(outputs[0]):
            problems += [f"{where}: real said {o!r}, labsim said {s.output!r}"
                         for o in outputs if o != s.output][:1]
    return problems


def _is_error(output: str) -> bool:
    return output.startswith(("cannot ", "invalid ", "missing ", "property "))


def _compare_tables(where: str, reals: list[dict], sim: dict) -> list[str]:
    problems = []
    if any(set(real) != set(sim) for real in reals):
        return [f"{where}: rows {sorted(reals[0])} on real OpenZFS, {sorted(sim)} in labsim"]
    for name, row in reals[0].items():
        is_vdev = name.startswith("/")
        for column, value in row.items():
            tolerance = _tolerance(column, is_vdev)
            if tolerance is None or not value.isdigit():
                continue
            seen = [int(real[name][column]) for real in reals]
            low, high = min(seen), max(seen)
            got = int(sim[name].get(column, "-1"))
            if column == "ALLOC" and max(high, got) < SMALL_ALLOC:
                continue
            if not low * (1 - tolerance) <= got <= high * (1 + tolerance):
                span = f"{low}" if low == high else f"{low}..{high}"
                problems.append(f"{where}: {name} {column} real {span}, labsim {got} "
                                f"({(got - high if got > high else got - low) / max(low, 1):+.2%}"
                                " outside)")
    return problems


def _tolerance(column: str, is_vdev: bool) -> float | None:
    if is_vdev and column == "FREE":
        return None  # a vdev's FREE is its usable space less ALLOC: judged through ALLOC
    if column in ("SIZE", "FREE", "AVAIL", "USED", "REFER"):
        return SPACE_TOLERANCE
    if column == "ALLOC":
        return VDEV_ALLOC_TOLERANCE if is_vdev else SPACE_TOLERANCE
    return None
