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


def compare(real: str, simulated: str) -> list[str]:
    """Every disagreement between two transcripts of the same script, as readable lines."""
    problems = []
    real_blocks, sim_blocks = parse(real), parse(simulated)
    if [b.command for b in real_blocks] != [b.command for b in sim_blocks]:
        return ["the transcripts are of different command sequences"]
    for index, (r, s) in enumerate(zip(real_blocks, sim_blocks, strict=True)):
        where = f"command {index + 1} `{r.command}`"
        if is_compared_listing(r.command):
            problems += _compare_tables(where, table(r.output), table(s.output))
        elif (r.command.split()[0] in ("zpool", "zfs") and _is_error(r.output)
              and r.output != s.output):
            problems.append(f"{where}: real said {r.output!r}, labsim said {s.output!r}")
    return problems


def _is_error(output: str) -> bool:
    return output.startswith(("cannot ", "invalid ", "missing ", "property "))


def _compare_tables(where: str, real: dict, sim: dict) -> list[str]:
    problems = []
    if set(real) != set(sim):
        return [f"{where}: rows {sorted(real)} on real OpenZFS, {sorted(sim)} in labsim"]
    for name, row in real.items():
        is_vdev = name.startswith("/")
        for column, value in row.items():
            tolerance = _tolerance(column, is_vdev)
            if tolerance is None or not value.isdigit():
                continue
            want, got = int(value), int(sim[name].get(column, "-1"))
            if column == "ALLOC" and max(want, got) < SMALL_ALLOC:
                continue
            if abs(got - want) > tolerance * max(want, 1):
                problems.append(f"{where}: {name} {column} real {want}, labsim {got} "
                                f"({(got - want) / max(want, 1):+.2%})")
    return problems


def _tolerance(column: str, is_vdev: bool) -> float | None:
    if column in ("SIZE", "FREE", "AVAIL", "USED", "REFER"):
        return SPACE_TOLERANCE
    if column == "ALLOC":
        return VDEV_ALLOC_TOLERANCE if is_vdev else SPACE_TOLERANCE
    return None
