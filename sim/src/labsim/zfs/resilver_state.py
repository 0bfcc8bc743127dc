"""A resilver an import asked for and has not started yet, as plain data: the pool keeps it
(Pool.resilver_pending), labsim.zfs.dtl_resilver decides what it does."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StaleLeaf:
    """A member back with writes it missed: its guid, the byte ranges of the member those
    writes hold (as labsim.zfs.scan keeps leaf damage), and the blocks themselves as
    ranges of their top-level vdev (what is still allocated of them when the resilver
    runs, and not written anew since the member came back, is what it copies)."""

    guid: int
    ranges: list[tuple[int, int]]
    blocks: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class PendingResilver:
    """SPA_ASYNC_RESILVER requested by an import, not started yet: when the pool was
    imported (the session clock), the first txg whose sync may start it (None while the
    import runs: spa_async_suspend()), and the members to resilver."""

    requested_at: float
    txg: int | None
    leaves: list[StaleLeaf] = field(default_factory=list)
