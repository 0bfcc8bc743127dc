"""Reading a vdev specification as ``zpool create``/``add`` do (cmd/zpool/zpool_vdev.c).

Two steps of make_root_vdev() live here, as pure functions:

* ``split_groups()``: construct_spec()'s grammar. A group keyword (is_grouping())
  takes the words after it, up to the next keyword, as its members; any other word is a
  top-level device of its own.
* ``check_replication()`` with ``get_replication()``: unless ``-f`` is given, all
  top-level vdevs must have the same replication (type, parity, width; RAID-Z and a
  mirror count as equal when they survive as many failures), and the members of a group
  must not differ in size by more than 16 MiB. Since 2.1, RAID-Z vdevs of different
  widths are consistent if their parity agrees (is_raidz_draid()). Each problem is one
  line of text; the caller puts them under vdev_error()'s header.

Read in a stored zpool_vdev.c newer than 2.1 whose get_replication()/check_replication()
match 2.1 (see messages.py); labsim's leaves are all files, so the "contains both files
and devices" case cannot arise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labsim.shell import messages as msg
from labsim.zfs.layouts import MIRROR, RAIDZ, SINGLE, VDEV_RAIDZ_MAXPARITY

ZPOOL_FUZZ = 16 << 20  # sizes within a group may differ by this much (zpool_vdev.c)

# Keywords is_grouping() knows that labsim does not model yet.
UNMODELLED_GROUPS = ("draid", "cache", "spare", "special", "dedup")
LOG = "log"
_RAIDZ = re.compile(r"^raidz([1-9][0-9]*)?$")


@dataclass(frozen=True)
class Group:
    """One top-level vdev as written: ``keyword`` as typed ("mirror", "raidz",
    "raidz2"; None for a lone device), its layout kind and parity, and member words."""

    keyword: str | None
    kind: str
    nparity: int
    words: tuple[str, ...]

    @property
    def min_devices(self) -> int:
        """is_grouping(): a mirror needs 2 devices, RAID-Z its parity plus one."""
        return self.nparity + 1 if self.kind == RAIDZ else 2


def grouping(word: str) -> tuple[str, int] | None:
    """is_grouping() for the layouts labsim models: ("mirror", 0) or ("raidz", parity),
    else None. "raidz" means raidz1; "raidz0", "raidz4" or "raidz01" are not keywords
    (get_parity() returns 0), so zpool treats them as device names."""
    if word == MIRROR:
        return MIRROR, 0
    match = _RAIDZ.match(word)
    if match:
        parity = int(match.group(1) or 1)
        if parity <= VDEV_RAIDZ_MAXPARITY:
            return RAIDZ, parity
    return None


def is_keyword(word: str) -> bool:
    return grouping(word) is not None or unmodelled(word) or word == LOG


def split_log(words: list[str]) -> tuple[list[str], list[str] | None]:
    """construct_spec()'s "log" keyword: it is not a vdev, it marks every top-level vdev
    after it (up to another class keyword) as a log vdev. Returns the words before it
    and the log's words (None without "log"); raises ValueError with the message for
    a second "log" or an empty one."""
    if LOG not in words:
        return words, None
    at = words.index(LOG)
    rest = words[at + 1:]
    end = next((i for i, w in enumerate(rest) if unmodelled(w) or w == LOG), len(rest))
    if end < len(rest) and rest[end] == LOG:
        raise ValueError(msg.log_specified_twice())
    log_words = rest[:end]
    if not log_words:
        raise ValueError(msg.log_without_devices())
    return words[:at] + rest[end:], log_words


def unmodelled(word: str) -> bool:
    return word in UNMODELLED_GROUPS or bool(re.match(r"^draid[0-9]*(:|$)", word))


def split_groups(words: list[str]) -> list[Group]:
    """construct_spec()'s grammar, without opening any device. Raises ValueError with
    the keyword for a group labsim does not model (cache, draid, ...); "log" is split
    off first by split_log()."""
    groups: list[Group] = []
    i = 0
    while i < len(words):
        word = words[i]
        if unmodelled(word):
            raise ValueError(word)
        found = grouping(word)
        if found is None:
            groups.append(Group(None, SINGLE, 0, (word,)))
            i += 1
            continue
        j = i + 1
        while j < len(words) and not is_keyword(words[j]):
            j += 1
        groups.append(Group(word, found[0], found[1], tuple(words[i + 1:j])))
        i = j
    return groups


@dataclass(frozen=True)
class TopLevel:
    """What get_replication() looks at in one top-level vdev: its type ("file" for a lone
    file, "mirror", "raidz"), RAID-Z parity and its members' sizes in bytes."""

    kind: str
    nparity: int
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class Replication:
    """replication_level_t: type, number of children, parity."""

    kind: str
    children: int
    parity: int


def _level(top: TopLevel) -> Replication:
    if top.kind == SINGLE:
        return Replication("file", 1, 0)
    return Replication(top.kind, len(top.sizes), top.nparity)


def _raidz_and_mirror(a: Replication, b: Replication) -> tuple[Replication, Replication] | None:
    """is_raidz_mirror() tried both ways round: (raidz, mirror) or None."""
    if a.kind == RAIDZ and b.kind == MIRROR:
        return a, b
    if b.kind == RAIDZ and a.kind == MIRROR:
        return b, a
    return None


def _compare_toplevels(last: Replication, rep: Replication) -> str | None:
    pair = _raidz_and_mirror(last, rep)
    if pair is not None:
        raidz, mirror = pair
        if raidz.parity != mirror.children - 1:
            return msg.replication_redundancy_differs(raidz.kind, mirror.kind, raidz.parity,
                                                      mirror.children)
        return None
    if last.kind == RAIDZ and rep.kind == RAIDZ:
        # is_raidz_draid() (2.1.0's dRAID work): two RAID-Z (or dRAID) vdevs only have to
        # survive as many failures; their widths may differ. Real 2.1.11 accepted
        # "raidz1 a b c raidz1 d e" without -f.
        if last.parity != rep.parity:
            return msg.replication_raidz_redundancy_differs(last.kind, rep.kind, last.parity,
                                                            rep.parity)
        return None
    if last.kind != rep.kind:
        return msg.replication_types_differ(last.kind, rep.kind)
    if last.parity != rep.parity:
        return msg.replication_parity_differs(last.parity, rep.parity, rep.kind)
    if last.children != rep.children:
        return msg.replication_widths_differ(last.children, rep.children, rep.kind)
    return None


def get_replication(tops: list[TopLevel]) -> tuple[Replication | None, list[str]]:
    """The replication of the last top-level vdev if all agree, and the problems found.

    Like get_replication(..., fatal=B_TRUE), it goes on after a problem so that every
    one is reported; then the result is None. Sizes are compared between neighbouring
    members of a group, once per group.
    """
    problems: list[str] = []
    last: Replication | None = None
    rep: Replication | None = None
    for top in tops:
        rep = _level(top)
        if top.kind != SINGLE:
            previous = None
            for size in top.sizes:
                if size == 0:
                    continue  # a size zpool cannot read is skipped
                if previous is not None and abs(size - previous) > ZPOOL_FUZZ:
                    problems.append(msg.group_sizes_differ(rep.kind))
                    break  # "dontreport": one complaint per group
                previous = size
        if last is not None:
            problem = _compare_toplevels(last, rep)
            if problem:
                problems.append(problem)
        last = rep
    return (None if problems else rep), problems


def check_replication(pool: list[TopLevel] | None, new: list[TopLevel]) -> list[str]:
    """Problems with ``new`` (the vdevs being created or added), alone and against the
    ``pool`` they are added to (None for zpool create). A pool that is itself
    inconsistent (created with -f) is not compared with."""
    current = None
    if pool is not None:
        current, problems = get_replication(pool)
        if current is None:
            return []
    rep, problems = get_replication(new)
    if rep is None:
        return problems
    if current is None:
        return []
    pair = _raidz_and_mirror(current, rep)
    if pair is not None:
        raidz, mirror = pair
        if raidz.parity != mirror.children - 1:
            return [msg.pool_replication_redundancy_differs(raidz.kind, mirror.kind,
                                                            raidz.parity, mirror.children)]
        return []
    if current.kind != rep.kind:
        return [msg.pool_replication_type_differs(current.kind, rep.kind)]
    if current.parity != rep.parity:
        return [msg.pool_replication_parity_differs(current.parity, rep.parity)]
    if current.children != rep.children:
        return [msg.pool_replication_width_differs(current.children, current.kind,
                                                   rep.children, rep.kind)]
    return []
