"""spa_metaslabs_by_flushed: a pool's metaslabs that have a space map, in the order their
changes would be flushed (module/zfs/spa_log_spacemap.c and metaslab.c, 2.1.11 and
2.3.9): by unflushed txg, then vdev, then metaslab. OpenZFS keeps them in an AVL tree
and takes a metaslab out and puts it back wherever its ms_unflushed_txg changes
(metaslab_flush_update(), metaslab_unflushed_add(), metaslab_unflushed_bump()), so that
spa_flush_metaslabs() and spa_cleanup_old_sm_logs() only look at the oldest few.

labsim keeps the same order as one bucket per unflushed txg, each sorted by (vdev,
metaslab) when it is first read. A metaslab whose txg changes is added to its new bucket
and its place in the old one goes stale (it no longer has that txg): reading skips it.
The order is only a faster way to read the metaslabs' own fields (labsim.zfs.spacemaps
changes them and tells it); it is built again from them whenever it cannot be trusted:
the vdevs or their metaslabs changed, or the pool was copied.
"""

from __future__ import annotations

from itertools import islice
from operator import itemgetter

from labsim.zfs.metaslab import Metaslab

# A metaslab's place among its pool's metaslabs: vdev << VDEV_SHIFT | metaslab index,
# which sorts as (vdev, metaslab) does.
VDEV_SHIFT = 32

_place = itemgetter(0)


class _Bucket:
    """The metaslabs that took one unflushed txg, from ``cursor`` on (those before it
    were read and moved on); sorted by place once ``ordered``."""

    __slots__ = ("entries", "cursor", "ordered")

    def __init__(self) -> None:
        self.entries: list[tuple[int, Metaslab]] = []
        self.cursor = 0
        self.ordered = True

    def add(self, place: int, ms: Metaslab) -> None:
        self.entries.append((place, ms))
        self.ordered = False

    def order(self) -> None:
        if not self.ordered:
            rest = self.entries[self.cursor:]
            rest.sort(key=_place)  # stable: two entries of one place never compare
            self.entries = rest
            self.cursor = 0
            self.ordered = True


class MetaslabsByFlushed:
    """The flush order of one pool's metaslabs (see the module's docstring). Not copied
    with the pool: a copy (deepcopy, pickle) starts empty and is built on first use."""

    def __init__(self) -> None:
        self._groups: list[list[Metaslab]] = []  # kept so that their ids stay theirs
        self._shape: list[tuple[int, int]] = []  # (id, length) of each group
        self._places: dict[int, int] = {}  # id(metaslab) -> its place
        self._buckets: dict[int, _Bucket] = {}
        self._txgs: list[int] = []  # the buckets' txgs, ascending
        self._valid = False

    def __reduce__(self) -> tuple[type[MetaslabsByFlushed], tuple[()]]:
        return (MetaslabsByFlushed, ())

    def __repr__(self) -> str:
        return "MetaslabsByFlushed()"

    def invalidate(self) -> None:
        """The metaslabs changed in a way not reported: build the order again."""
        self._valid = False

    def ensure(self, metaslab_groups: list[list[Metaslab]]) -> None:
        """Make the order that of ``metaslab_groups`` (by vdev) as they are now."""
        shape = [(id(group), len(group)) for group in metaslab_groups]
        if self._valid and shape == self._shape:
            return
        self._groups = list(metaslab_groups)
        self._shape = shape
        self._places = {}
        self._buckets = {}
        self._txgs = []
        entries = []
        for v, group in enumerate(metaslab_groups):
            for i, ms in enumerate(group):
                place = v << VDEV_SHIFT | i
                self._places[id(ms)] = place
                if ms.sm_object:
                    entries.append((ms.unflushed_txg, place, ms))
        entries.sort(key=itemgetter(0, 1))
        for unflushed_txg, place, ms in entries:
            self._bucket(unflushed_txg).add(place, ms)
        self._valid = True

    def _bucket(self, txg: int) -> _Bucket:
        bucket = self._buckets.get(txg)
        if bucket is None:
            bucket = self._buckets[txg] = _Bucket()
            if self._txgs and txg < self._txgs[-1]:
                self._txgs.append(txg)
                self._txgs.sort()
            else:
                self._txgs.append(txg)
        return bucket

    def place(self, ms: Metaslab) -> int | None:
        """``ms``'s place in the order (None while the order is to be built again)."""
        if not self._valid:
            return None
        place = self._places.get(id(ms))
        if place is None:  # not one of the groups' metaslabs
            self._valid = False
        return place

    def add(self, moved: list[tuple[int, Metaslab]], txg: int) -> None:
        """The metaslabs of ``moved`` (place, metaslab), each with a space map, took
        ``txg`` as their unflushed txg."""
        if not self._valid or not moved:
            return
        bucket = self._bucket(txg)
        bucket.entries.extend(moved)
        bucket.ordered = False

    def bump_to_dirty(self, txg: int,
                      moved: list[tuple[int, Metaslab]]) -> tuple[int, Metaslab] | None:
        """Through the order, up to the first metaslab whose unflushed txg is ``txg``:
        each without unflushed changes (not unflushed_dirty) only takes ``txg``
        (metaslab_unflushed_bump() from spa_flush_metaslabs()) and is appended to
        ``moved``; the first with changes is returned, (place, metaslab), both read (out of
        their places). None when the order ends or reaches ``txg`` first. The caller
        gives ``moved`` to add() once done, so that a bumped metaslab is not met again."""
        txgs, buckets = self._txgs, self._buckets
        append = moved.append
        while txgs:
            bucket_txg = txgs[0]
            if bucket_txg == txg:
                return None
            bucket = buckets[bucket_txg]
            bucket.order()
            entries = bucket.entries
            # Up to a thousand entries a txg in a fill: the loop is kept tight.
            for cursor, entry in enumerate(islice(entries, bucket.cursor, None),
                                           bucket.cursor + 1):
                ms = entry[1]
                if ms.unflushed_txg == bucket_txg:  # else moved on since: a stale place
                    if ms.unflushed_dirty:
                        bucket.cursor = cursor
                        return entry
                    ms.unflushed_txg = txg
                    append(entry)
            del buckets[bucket_txg]
            del txgs[0]
        return None

    def oldest_txg(self) -> int | None:
        """The unflushed txg of the first metaslab in the order (None without any),
        dropping stale places on the way."""
        txgs, buckets = self._txgs, self._buckets
        while txgs:
            bucket_txg = txgs[0]
            bucket = buckets[bucket_txg]
            bucket.order()
            entries = bucket.entries
            cursor = bucket.cursor
            while cursor < len(entries):
                if entries[cursor][1].unflushed_txg == bucket_txg:
                    bucket.cursor = cursor
                    return bucket_txg
                cursor += 1
            del buckets[bucket_txg]
            del txgs[0]
        return None
