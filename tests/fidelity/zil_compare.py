"""Comparing what lab 5 reads of the intent log: the counters of /proc/spl/kstat/zfs/zil,
the files left after an import, and the rows of `zpool iostat -v`.

The kstat counts for the whole machine since the module was loaded, so a recording made
after other labs starts from other totals than labsim's fresh session. What a lab step
did is the difference between two readings: each counter's difference between
consecutive `cat` blocks must agree within KSTAT_TOLERANCE of the range the real runs
spanned (exactly, where the real runs all show zero).

`ls DIR` (names only) must list the same names. `zpool iostat -v` prints rates averaged
since import, which depend on the recording machine's speed: its rows must be the same
vdevs in the same order, and a vdev that wrote on real OpenZFS must have written in
labsim and the other way round.
"""

from __future__ import annotations

KSTAT_TOLERANCE = 0.05


def is_zil_kstat(command: str) -> bool:
    return command.split() == ["cat", "/proc/spl/kstat/zfs/zil"]


def kstat_values(output: str) -> dict[str, int]:
    values = {}
    for line in output.splitlines()[2:]:
        cells = line.split()
        if len(cells) == 3 and cells[2].isdigit():
            values[cells[0]] = int(cells[2])
    return values


def compare_kstat_steps(readings: list[tuple[str, list[str], str]]) -> list[str]:
    """``readings``: per `cat` block in order, (where, real outputs, labsim output)."""
    problems = []
    for (_, before_real, before_sim), (where, after_real, after_sim) in zip(
            readings, readings[1:], strict=False):
        reals = [(kstat_values(b), kstat_values(a)) for b, a in zip(before_real, after_real,
                                                                      strict=True)]
        sim_before, sim_after = kstat_values(before_sim), kstat_values(after_sim)
        if any(set(a) != set(sim_after) for _, a in reals):
            problems.append(f"{where}: counters {sorted(reals[0][1])} on real OpenZFS, "
                            f"{sorted(sim_after)} in labsim")
            continue
        for name in sim_after:
            seen = [a[name] - b[name] for b, a in reals]
            got = sim_after[name] - sim_before[name]
            low, high = min(seen), max(seen)
            if not low * (1 - KSTAT_TOLERANCE) <= got <= high * (1 + KSTAT_TOLERANCE):
                span = f"{low}" if low == high else f"{low}..{high}"
                problems.append(f"{where}: {name} grew by {span} on real OpenZFS, "
                                f"by {got} in labsim")
    return problems


def is_plain_ls(command: str) -> bool:
    words = command.split()
    return words[:1] == ["ls"] and not any(w.startswith("-") for w in words[1:])


def compare_names(where: str, reals: list[str], simulated: str) -> list[str]:
    got = sorted(simulated.split())
    return [f"{where}: real listed {sorted(r.split())}, labsim {got}"
            for r in reals if sorted(r.split()) != got][:1]


def is_iostat_verbose(command: str) -> bool:
    words = command.split()
    return words[:2] == ["zpool", "iostat"] and any(
        w.startswith("-") and "v" in w for w in words[2:])


def iostat_rows(output: str) -> list[tuple[str, bool]]:
    """(name, wrote anything) for each row between the rules."""
    rows = []
    for line in output.splitlines()[3:]:
        cells = line.split()
        if not cells or set(cells[0]) == {"-"}:
            continue
        wrote = len(cells) == 7 and cells[4] not in ("0", "-")
        rows.append((cells[0], wrote))
    return rows


def compare_iostat(where: str, reals: list[str], simulated: str) -> list[str]:
    got = iostat_rows(simulated)
    for real in reals:
        expected = iostat_rows(real)
        if [n for n, _ in expected] != [n for n, _ in got]:
            return [f"{where}: rows {[n for n, _ in expected]} on real OpenZFS, "
                    f"{[n for n, _ in got]} in labsim"]
        if expected != got:
            return [f"{where}: vdevs with writes {[n for n, w in expected if w]} on real "
                    f"OpenZFS, {[n for n, w in got if w]} in labsim"]
    return []
