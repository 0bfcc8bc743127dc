"""Comparing what lab 7 measures of its fio runs: the space each sparse image took.

The lab writes 1 MiB of 4K random writes with fio into a sparse volume and two sparse raw
image files (compression off), then reads each one's USED with
`zfs get -Hp -o name,property,value used ...`. Every record a write lands in is allocated
whole, so USED per MiB written is the write amplification. Which records fio's writes land
in comes from fio's own random sequence (randrepeat: the same in every run); labsim
estimates how many records a run touches on average. So these figures are compared as
ratios within AMPLIFICATION_TOLERANCE of the range the real runs spanned, not within the
1 % of the other space figures.
"""

from __future__ import annotations

AMPLIFICATION_TOLERANCE = 0.10
COMMAND_PREFIX = ["zfs", "get", "-Hp", "-o", "name,property,value", "used"]


def is_amplification_get(command: str) -> bool:
    return command.split()[:6] == COMMAND_PREFIX


def used_values(output: str) -> dict[str, int]:
    values = {}
    for line in output.splitlines():
        cells = line.split("\t")
        if len(cells) == 3 and cells[1] == "used" and cells[2].isdigit():
            values[cells[0]] = int(cells[2])
    return values


def compare_amplification(where: str, reals: list[str], simulated: str) -> list[str]:
    real_values = [used_values(r) for r in reals]
    got = used_values(simulated)
    problems = []
    for name in real_values[0]:
        runs = [r.get(name) for r in real_values]
        if name not in got or None in runs:
            problems.append(f"{where}: {name} missing")
            continue
        low, high = min(runs), max(runs)
        if not low * (1 - AMPLIFICATION_TOLERANCE) <= got[name] <= high * (
                1 + AMPLIFICATION_TOLERANCE):
            problems.append(f"{where}: {name} used {got[name]} in labsim, {low}..{high} on "
                            f"real OpenZFS ({got[name] / 2**20:.2f} vs "
                            f"{low / 2**20:.2f}..{high / 2**20:.2f} per MiB written)")
    return problems


# Properties lab 7 reads that labsim must give exactly: what zfs create set.
EXACT_PROPERTIES = {"volsize", "volblocksize", "refreservation", "type", "recordsize"}


def is_exact_get(command: str) -> bool:
    words = command.split()
    return (words[:5] == COMMAND_PREFIX[:5] and len(words) > 5
            and set(words[5].split(",")) <= EXACT_PROPERTIES)


def compare_exact(where: str, reals: list[str], simulated: str) -> list[str]:
    return [f"{where}: real printed {r!r}, labsim {simulated!r}"
            for r in reals if r != simulated][:1]
