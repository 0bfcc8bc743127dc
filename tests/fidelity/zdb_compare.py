"""Comparing `zdb -m` / `zdb -mm` output of real OpenZFS and of labsim.

What is compared, per top-level vdev: the number of metaslabs, the offset of every
metaslab (exactly: both follow from vdev_metaslab_set_size()), and the vdev's total free
space, the sum of the free column read back from zdb's human sizes, within
ZDB_FREE_TOLERANCE. Also that the same vdevs appear, and an error text ("zdb: can't
open ...") word for word.

What is ignored: space map object numbers, txgs (unflushed txg, log space map txgs),
the smp_length / smp_alloc lines, the histograms of -mm, the log space map sections,
and which metaslab holds what. Object numbers and txgs depend on everything the pool
ever did; where data lands inside a vdev depends on timing (which allocator a block of
metadata hashes to, when a metaslab is loaded). labsim reproduces the rules that decide
it, not the exact indices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ZDB_FREE_TOLERANCE = 0.01

_VDEV = re.compile(r"^\tvdev\s+(\d+)")
_COUNT = re.compile(r"^\tmetaslabs\s+(\d+)\s+offset")
_METASLAB = re.compile(r"^\tmetaslab\s+(\d+)\s+offset\s+([0-9a-f]+)\s+spacemap\s+(\d+)"
                       r"\s+free\s+(\S+)$")
_UNITS = "KMGTPE"


@dataclass
class ZdbVdev:
    id: int
    count: int = -1
    offsets: list[int] = field(default_factory=list)
    free: int = 0


def parse_nicenum(text: str) -> int:
    """A zfs_nicenum() string back to bytes: "512", "64M", "64.0M", "33.3M", "1.50G"
    (the value as printed, so within rounding of the real one)."""
    if text[-1] in _UNITS:
        return round(float(text[:-1]) * 1024 ** (_UNITS.index(text[-1]) + 1))
    return int(text)


def is_zdb_metaslabs(command: str) -> bool:
    words = command.split()
    return bool(words) and words[0] == "zdb" and any(
        re.fullmatch(r"-[A-Za-z]*m[A-Za-z]*", w) for w in words[1:])


def parse_zdb_metaslabs(output: str) -> dict[int, ZdbVdev]:
    """The vdevs of `zdb -m` output, by id."""
    vdevs: dict[int, ZdbVdev] = {}
    current: ZdbVdev | None = None
    for line in output.splitlines():
        if match := _VDEV.match(line):
            current = vdevs.setdefault(int(match[1]), ZdbVdev(int(match[1])))
        elif current is not None and (match := _COUNT.match(line)):
            current.count = int(match[1])
        elif current is not None and (match := _METASLAB.match(line)):
            current.offsets.append(int(match[2], 16))
            current.free += parse_nicenum(match[4])
    return vdevs


def compare_zdb(where: str, reals: list[str], simulated: str) -> list[str]:
    """Every disagreement between real `zdb -m` output(s) and labsim's."""
    if reals[0].startswith("zdb: "):
        return [f"{where}: real said {o!r}, labsim said {simulated!r}"
                for o in reals if o != simulated][:1]
    parsed = [parse_zdb_metaslabs(o) for o in reals]
    sim = parse_zdb_metaslabs(simulated)
    if any(set(p) != set(sim) for p in parsed):
        return [f"{where}: vdevs {sorted(parsed[0])} on real OpenZFS, {sorted(sim)} in labsim"]
    problems = []
    for vid, real in parsed[0].items():
        got = sim[vid]
        if got.count != real.count or len(got.offsets) != len(real.offsets):
            problems.append(f"{where}: vdev {vid} has {real.count} metaslabs on real "
                            f"OpenZFS, {got.count} in labsim")
            continue
        wrong = [i for i, (a, b) in enumerate(zip(real.offsets, got.offsets, strict=True))
                 if a != b]
        if wrong:
            i = wrong[0]
            problems.append(f"{where}: vdev {vid} metaslab {i} at offset "
                            f"{real.offsets[i]:x} on real OpenZFS, {got.offsets[i]:x} in labsim")
        seen = [p[vid].free for p in parsed]
        low, high = min(seen), max(seen)
        if not low * (1 - ZDB_FREE_TOLERANCE) <= got.free <= high * (1 + ZDB_FREE_TOLERANCE):
            span = f"{low}" if low == high else f"{low}..{high}"
            problems.append(f"{where}: vdev {vid} free (sum of the free column) real {span}, "
                            f"labsim {got.free}")
    return problems


_UNFLUSHED = re.compile(r"^\tunflushed txg=(\d+)$")
_LOG_SPACE_MAP = re.compile(r"^Log Spacemap object \d+ txg (\d+)$")


@dataclass(frozen=True)
class FlushState:
    """What `zdb -mmm` says of the log space maps, with txgs replaced by their rank among
    the txgs it names (0 the oldest): each metaslab's unflushed txg (vdev, metaslab ->
    rank; metaslabs with a space map only) and the txg of each log space map. Ranks, not
    txgs: labsim's txg numbers are its own (every command's txgs are counted, not timed),
    but the order in which metaslabs are flushed and logs freed is a rule
    (spa_flush_metaslabs(), spa_cleanup_old_sm_logs()) and comparable."""

    metaslabs: tuple[tuple[tuple[int, int], int], ...]
    logs: tuple[int, ...]


def flush_state(output: str) -> FlushState:
    unflushed: dict[tuple[int, int], int] = {}
    logs: list[int] = []
    vdev = metaslab = -1
    mapped = False
    for line in output.splitlines():
        if m := _VDEV.match(line):
            vdev = int(m.group(1))
        elif m := _METASLAB.match(line):
            metaslab, mapped = int(m.group(1)), m.group(3) != "0"
        elif (m := _UNFLUSHED.match(line)) and mapped:
            unflushed[(vdev, metaslab)] = int(m.group(1))
        elif m := _LOG_SPACE_MAP.match(line):
            logs.append(int(m.group(1)))
    rank = {txg: i for i, txg in enumerate(sorted({*unflushed.values(), *logs}))}
    return FlushState(tuple(sorted((k, rank[t]) for k, t in unflushed.items())),
                      tuple(sorted(rank[t] for t in logs)))
