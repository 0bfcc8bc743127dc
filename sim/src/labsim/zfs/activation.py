"""The inactive metaslabs of one metaslab group in the order an allocator activates them,
kept from one activation to the next.

OpenZFS keeps a group's metaslabs in an AVL tree sorted by weight (mg_metaslab_tree,
metaslab_compare() in module/zfs/metaslab.c, 2.1.11 to 2.3.9: heaviest first, ties by
lowest offset), takes a metaslab out and puts it back whenever its weight changes, and
find_valid_metaslab() walks it from the top. labsim keeps the same order in a heap of
(-bucket, -count, offset, index) entries, the key labsim.zfs.metaslab_group._candidates() sorts
by: a metaslab whose free space changes reports itself (Metaslab._touch(), once until the
order reads the reports) and gets a new entry at the next activation; its older entries
go stale, and are dropped when they reach the top (an entry is current while it equals
the key the metaslab has now). A 1 TiB fill activates metaslabs hundreds of times over
hundreds of metaslabs, of which a few change between two activations.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence, Set
from typing import Any, Protocol, TypeVar

Key = tuple[int, int, int, int]  # (-bucket, -count, offset, index)


class Weighed(Protocol):
    """What the order reads of a metaslab (labsim.zfs.metaslab.Metaslab, which this
    module does not import: metaslab.py uses it)."""

    start: int
    free: int
    _order_changes: list[Any] | None
    _order_reported: bool

    def weight(self, ashift: int) -> tuple[int, int]: ...


AnyMetaslab = TypeVar("AnyMetaslab", bound=Weighed)  # the caller's metaslab type


def activation_key(ms: Weighed, index: int, ashift: int) -> Key:
    bucket, count = ms.weight(ashift)
    return (-bucket, -count, ms.start, index)


class ActivationOrder:
    """One group's metaslabs by activation order (see the module's docstring). Built again
    from the metaslabs whenever they are not those it was built from (a metaslab added,
    another ashift, the pool copied: a copy starts empty)."""

    def __init__(self) -> None:
        self._source: Sequence[Weighed] | None = None
        self._count = 0
        self._ashift = -1
        self._heap: list[Key] = []
        self._changed: list[Weighed] = []
        self._places: dict[int, int] = {}  # id(metaslab) -> its index

    def __reduce__(self) -> tuple[type[ActivationOrder], tuple[()]]:
        return (ActivationOrder, ())

    def __repr__(self) -> str:
        return "ActivationOrder()"

    def first(self, metaslabs: Sequence[AnyMetaslab], ashift: int, exclude: Set[int],
              fits: Callable[[AnyMetaslab], bool]) -> int | None:
        """The index of the first metaslab, in activation order, that has free space,
        is not in ``exclude`` (active) and ``fits``; None when none does."""
        if (metaslabs is not self._source or len(metaslabs) != self._count
                or ashift != self._ashift or len(self._heap) > 4 * len(metaslabs) + 64
                or (metaslabs and metaslabs[0]._order_changes is not self._changed)):
            self._build(metaslabs, ashift)
        else:
            self._read_changes(metaslabs, ashift)
        heap = self._heap
        passed: list[Key] = []  # current entries popped on the way, put back after
        seen: set[int] = set()  # an index met once (a metaslab's key can repeat)
        found = None
        while heap:
            key = heapq.heappop(heap)
            index = key[3]
            if index in seen:
                continue
            ms = metaslabs[index]
            if not ms.free or activation_key(ms, index, ashift) != key:
                continue  # stale: the metaslab has another key now (or no free space)
            seen.add(index)
            passed.append(key)
            if index not in exclude and fits(ms):
                found = index
                break
        for key in passed:
            heapq.heappush(heap, key)
        return found

    def _build(self, metaslabs: Sequence[Weighed], ashift: int) -> None:
        self._source, self._count, self._ashift = metaslabs, len(metaslabs), ashift
        # A new list: metaslabs registered before with the old one no longer report to it.
        changed = self._changed = []
        self._places = {id(ms): i for i, ms in enumerate(metaslabs)}
        for ms in metaslabs:
            ms._order_changes, ms._order_reported = changed, False
        self._heap = [activation_key(ms, i, ashift) for i, ms in enumerate(metaslabs)
                      if ms.free]
        heapq.heapify(self._heap)

    def _read_changes(self, metaslabs: Sequence[Weighed], ashift: int) -> None:
        changed = self._changed
        if not changed:
            return
        places, heap = self._places, self._heap
        for ms in changed:
            ms._order_reported = False
            if ms.free:
                heapq.heappush(heap, activation_key(ms, places[id(ms)], ashift))
        changed.clear()
