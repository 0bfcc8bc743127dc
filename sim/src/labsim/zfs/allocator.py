"""Which top-level vdev receives each block: the rotor, the aliquot and the free-space bias.

This follows metaslab_alloc_dva() in module/zfs/metaslab.c.

* The metaslab class keeps a *rotor* pointing at one top-level vdev (metaslab group).
  Blocks go to that vdev until it has taken its *aliquot* of bytes for this turn
  (``metaslab_aliquot``, 512 KiB up to OpenZFS 2.1), then the rotor moves on.
* When a vdev's turn starts, its aliquot is stretched or shrunk by a *bias* so that
  vdevs with more free space take more per turn::

      ratio = vs_free * mc_alloc_groups * 100 / (mc_free + 1)
      mg_bias = (ratio - 100) * mg_aliquot / 100

  A vdev with twice the pool's average free space gets twice the aliquot; an empty
  10 GiB vdev next to an empty 2 GiB one takes 7 records of 128 KiB for every 2.
* The free-space figures come from vdev_stat, which is updated when a transaction group
  syncs. Inside one txg the bias is therefore fixed, and the model advances the allocator
  a whole txg at a time: cheap enough to fill a terabyte in milliseconds, and exact in
  the counts the rotor hands out.
* OpenZFS 0.7 added the allocation throttle (labsim.zfs.throttle): each top-level vdev
  holds at most a queue depth of allocations whose writes have not completed, and a vdev
  whose queue is full is skipped while another still has room. A small txg is split as
  the rotor says; in a big one the queues fill and the vdevs that complete writes faster
  take more blocks. ``drain`` (blocks a vdev completes per block the pipeline issues,
  GroupState.speed times the release's write_completion_ratio) and ``txg_blocks`` (the
  blocks one txg issues) feed that model; a drain of 0 means no throttle.
* A vdev stops taking new blocks while the others can: metaslab_group_alloc_update()
  clears ``mg_allocatable`` when its free capacity is at or below
  ``zfs_mg_noalloc_threshold`` (0 %) or its fragmentation is above
  ``zfs_mg_fragmentation_threshold`` (95 %), recomputed each txg, and
  metaslab_group_allocatable() skips such a group unless no group is allocatable
  (``mc_alloc_groups`` == 0) or the block is the smallest there is (SPA_MINBLOCKSIZE).
  The same thresholds in 2.1.11, 2.2 and 2.3.9. ``mc_alloc_groups`` also scales the
  free-space bias: a vdev left alone takes every block.
* Top-level vdevs of different layouts differ in two ways the rotor sees: a block costs
  more on RAID-Z (its asize includes parity), and since OpenZFS 2.1 a group's aliquot
  is ``metaslab_aliquot`` times its data disks (metaslab_group_activate():
  ``vdev_get_ndisks() - vdev_get_nparity()``, 1 for a single device or a mirror). Both
  are per group (``GroupState.asize`` / ``.aliquot``); 0 means "the class-wide value".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.zfs.throttle import queues_fill, throttled_split


@dataclass(frozen=True)
class GroupState:
    """What the allocator knows about one top-level vdev at the start of a txg."""

    free: int  # vs_space - vs_alloc
    speed: float = 1.0  # relative write completion rate, used only by the throttle
    asize: int = 0  # bytes one block takes on this vdev; 0: the caller's nominal asize
    aliquot: int = 0  # mg_aliquot; 0: the class-wide metaslab_aliquot
    allocatable: bool = True  # mg_allocatable (group_allocatable())

    def block(self, asize: int) -> int:
        return self.asize or asize

    def turn(self, aliquot: int) -> int:
        return self.aliquot or aliquot


# module/zfs/metaslab.c (2.1.11 to 2.3.9): the allocatable thresholds of a metaslab group.
ZFS_MG_NOALLOC_THRESHOLD = 0  # percent free capacity
ZFS_MG_FRAGMENTATION_THRESHOLD = 95  # percent
SPA_MINBLOCKSIZE = 512


def group_allocatable(space: int, alloc: int, fragmentation: int | None) -> bool:
    """metaslab_group_alloc_update(): mg_free_capacity above zfs_mg_noalloc_threshold and a
    fragmentation that is invalid (None) or at most zfs_mg_fragmentation_threshold."""
    free_capacity = (space - alloc) * 100 // (space + 1)
    return free_capacity > ZFS_MG_NOALLOC_THRESHOLD and (
        fragmentation is None or fragmentation <= ZFS_MG_FRAGMENTATION_THRESHOLD)


def free_space_bias(vdev_free: int, class_free: int, alloc_groups: int, aliquot: int) -> int:
    """mg_bias: bytes added to (or taken from) a vdev's aliquot for its next turn."""
    ratio = (vdev_free * alloc_groups * 100) // (class_free + 1)
    return _c_div((ratio - 100) * aliquot, 100)


def _c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as C does for int64_t."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def records_per_turn(bias: int, aliquot: int, asize: int) -> int:
    """Blocks of ``asize`` a vdev takes in one turn: until mca_aliquot >= aliquot + bias."""
    threshold = aliquot + bias
    if threshold <= asize:
        return 1
    return -(-threshold // asize)


def rotor_shares(groups: list[GroupState], aliquot: int, asize: int) -> list[int]:
    """Blocks each vdev takes per full turn of the rotor (0 for vdevs that are full)."""
    return _shares([g.free for g in groups], [g.block(asize) for g in groups],
                   [g.turn(aliquot) for g in groups], [g.allocatable for g in groups], asize)


def _shares(free: list[int], block: list[int], turn: list[int], allocatable: list[bool],
            asize: int) -> list[int]:
    """rotor_shares() of groups given field by field (GroupState.free, .block(asize),
    .turn(aliquot), .allocatable): Rotor.distribute() asks at every txg."""
    return list(_shares_of(_thresholds(free, block, turn, allocatable, asize), block))


def _shares_of(thresholds: list[int | None], block: list[int]) -> tuple[int, ...]:
    """records_per_turn() of each threshold, inline (0 where there is none)."""
    return tuple([0 if threshold is None else 1 if threshold <= block[i]
                  else -(-threshold // block[i]) for i, threshold in enumerate(thresholds)])


def _thresholds(free: list[int], block: list[int], turn: list[int], allocatable: list[bool],
                asize: int) -> list[int | None]:
    """Each group's mg_aliquot + mg_bias, the bytes it takes in one turn (None for a
    group the rotor passes over: full, or not allocatable while another is)."""
    n = len(free)
    live = [i for i in range(n) if free[i] >= block[i]]
    class_free = sum([free[i] for i in live])
    # mc_alloc_groups; with a single group (mc_groups <= 1) nothing is ever skipped.
    alloc_groups = sum([1 for i in live if allocatable[i]])
    skip_unallocatable = n > 1 and alloc_groups > 0 and asize > SPA_MINBLOCKSIZE
    bias_groups = alloc_groups if n > 1 else len(live)
    thresholds: list[int | None] = []
    for i in range(n):
        size = block[i]
        vdev_free = free[i]
        if vdev_free < size or (skip_unallocatable and not allocatable[i]):
            thresholds.append(None)
            continue
        # free_space_bias(), inline (asked at every txg).
        aliquot = turn[i]
        scaled = ((vdev_free * bias_groups * 100) // (class_free + 1) - 100) * aliquot
        bias = scaled // 100 if scaled >= 0 else -(-scaled // 100)  # _c_div(scaled, 100)
        thresholds.append(aliquot + bias)
    return thresholds


@dataclass
class Rotor:
    """Carries the allocators' positions between txgs.

    Two models of one mechanism. In a txg whose queues never fill (the throttle skips
    nothing), each block goes exactly where metaslab_alloc_dva() sends it: every
    allocator (spa_alloc_count of them, metaslab_class_allocator_t) keeps its own rotor,
    ``mca_rotor`` (``positions``: a group's index), and the bytes its group has taken in
    the current turn, ``mca_aliquot`` (``turn_bytes``); a group takes blocks until that
    reaches its aliquot plus bias, and a full or unallocatable group passes its turn on.
    metaslab_group_activate() (module/zfs/metaslab.c, 2.1.11 and 2.3.9) starts the
    allocators' rotors one group apart, from the group activated last, whenever a group
    joins: at import, creation and `zpool add`. So a few large records written into a
    fresh pool split in whole turns (9 records of 512K, turns of 3 and 2: 6 and 3 from
    allocator 1, 5 and 4 from allocator 0), not in the turns' proportion.

    In a txg the throttle shapes, the split is a flow (labsim.zfs.throttle), and
    fractional blocks owed to each vdev (``owed``) are kept so that splitting the work
    into chunks never changes the result. ``owed`` is kept in both cases: the metadata a
    txg rewrites starts on the vdev owed most (labsim.zfs.metadata_rewrite)."""

    owed: list[float] = field(default_factory=list)
    positions: dict[int, int] = field(default_factory=dict)
    turn_bytes: dict[int, int] = field(default_factory=dict)
    groups: int = 0  # how many groups the positions are for

    def restart(self) -> None:
        """metaslab_group_activate() of every group again (import): each allocator's
        rotor starts anew, and its turn with it."""
        self.positions.clear()
        self.turn_bytes.clear()
        self.groups = 0

    def _position(self, allocator: int, n: int) -> int:
        if self.groups != n:
            # A group joined (or the pool is new): rotors staggered from the last one.
            self.restart()
            self.groups = n
        return self.positions.get(allocator, (n - 1 + allocator) % n)

    def _walk(self, allocator: int, thresholds: list[int | None], per_turn: tuple[int, ...],
              sizes: list[int], capacity: list[int], blocks: int) -> list[int]:
        """``blocks`` blocks through one allocator's rotor, block by block as
        metaslab_alloc_dva() places them (whole turns at once)."""
        n = len(thresholds)
        position = self._position(allocator, n)
        taken = self.turn_bytes.get(allocator, 0)
        counts = [0] * n
        remaining = blocks
        open_ = [i for i in range(n) if per_turn[i] and counts[i] < capacity[i]]
        whole_turns = True  # whole turns at once are worth a try (open_ changed, or a start)
        while remaining > 0 and open_:
            if not per_turn[position] or counts[position] >= capacity[position]:
                # The "next:" path: the rotor moves on and the turn starts again.
                position, taken = (position + 1) % n, 0
                continue
            if taken == 0 and whole_turns:
                whole_turns = False
                cycle = sum([per_turn[i] for i in open_])
                # Whole turns of every open group, as long as each has room for them.
                turns = min(remaining // cycle - 1,
                            *[(capacity[i] - counts[i]) // per_turn[i] for i in open_])
                if turns > 0:
                    for i in open_:
                        counts[i] += turns * per_turn[i]
                    remaining -= turns * cycle
                    open_ = [i for i in open_ if counts[i] < capacity[i]]
                    whole_turns = True
                    continue
            threshold = thresholds[position]
            assert threshold is not None
            size = sizes[position]
            # max() and min() spelled out (they parse keywords at every call, CPython 3.11).
            need = -(-(threshold - taken) // size)
            if need < 1:
                need = 1
            room = capacity[position] - counts[position]
            take = need if need < remaining else remaining
            if room < take:
                take = room
            counts[position] += take
            remaining -= take
            taken += take * size
            if counts[position] >= capacity[position]:
                open_ = [i for i in open_ if counts[i] < capacity[i]]
                whole_turns = True
            if taken >= threshold:
                position, taken = (position + 1) % n, 0
        self.positions[allocator] = position
        self.turn_bytes[allocator] = taken
        return counts

    def _walk_copies(self, allocator: int, thresholds: list[int | None], sizes: list[int],
                     capacity: list[int], blocks: int, copies: int) -> list[int]:
        """``blocks`` blocks of ``copies`` DVAs each through one allocator's rotor, block
        by block and copy by copy; returns the first copies each group takes.

        metaslab_alloc() calls metaslab_alloc_dva() once per DVA (module/zfs/metaslab.c,
        2.1.11 and 2.3.9). Copy 0 starts at the rotor; copy ``d`` at the group after the
        one holding copy ``d - 1`` (``mg = vd->vdev_mg->mg_next``). Every copy's asize is
        added to the allocator's ``mca_aliquot``, checked against the aliquot and bias of
        the group that just took it, and when that is reached the rotor moves to the group
        after *that* group; a group that cannot take a copy sets the rotor past itself (the
        ``next:`` path). So the ditto copies move the rotor too: with copies=3 on a large
        vdev A and a small one B, the turn usually ends on B, whose aliquot the bias made
        smaller, the rotor goes back to A, and A gets two copies of every block (A B A)."""
        n = len(thresholds)
        position = self._position(allocator, n)
        taken = self.turn_bytes.get(allocator, 0)
        first = [0] * n  # first copies per group
        used = [0] * n  # copies of any rank per group, against its capacity

        def open_(i: int) -> bool:
            return thresholds[i] is not None and used[i] < capacity[i]

        for _ in range(blocks):
            group = position
            for d in range(copies):
                start = position if d == 0 else (group + 1) % n
                for step in range(n):
                    group = (start + step) % n
                    if open_(group):
                        break
                    position, taken = (group + 1) % n, 0  # the "next:" path
                else:
                    group = -1
                if group < 0:
                    break  # no group has room for this copy (ENOSPC for copy 0)
                threshold = thresholds[group]
                assert threshold is not None
                if d == 0:
                    first[group] += 1
                used[group] += 1
                taken += sizes[group]
                if taken >= threshold:
                    position, taken = (group + 1) % n, 0
            if group < 0 and d == 0:
                break
        self.positions[allocator] = position
        self.turn_bytes[allocator] = taken
        return first

    def distribute(
        self,
        groups: list[GroupState],
        blocks: int,
        aliquot: int,
        asize: int,
        drain: float = 0.0,
        txg_blocks: int = 0,
        allocator: int | None = None,
        copies: int = 1,
    ) -> list[int]:
        """Split ``blocks`` blocks of ``asize`` bytes among vdevs for one txg.

        Under the allocation throttle (``drain`` > 0: the blocks a vdev of speed 1
        completes per block the pipeline issues), the split is the one a txg of
        ``txg_blocks`` blocks (``blocks`` when 0) gets (labsim.zfs.throttle).

        With ``allocator`` (the blocks' allocator, labsim.zfs.metaslab.allocator_for())
        and a txg the throttle does not shape, the blocks go through that allocator's own
        rotor one by one instead (see the class), each with its ``copies`` DVAs
        (_walk_copies(): the ditto copies move the rotor as the first copies do).

        Never gives a vdev more blocks than fit in its free space; blocks that fit
        nowhere are left unallocated (the caller sees a short total: ENOSPC).
        """
        return self.distribute_fields(
            [g.free for g in groups], [g.block(asize) for g in groups],
            [g.turn(aliquot) for g in groups], [g.allocatable for g in groups],
            [g.speed for g in groups], blocks, asize, drain, txg_blocks, allocator, copies)

    def distribute_fields(self, free: list[int], sizes: list[int], turns: list[int],
                          allocatable: list[bool], speeds: list[float], blocks: int,
                          asize: int, drain: float = 0.0, txg_blocks: int = 0,
                          allocator: int | None = None, copies: int = 1) -> list[int]:
        """distribute() of groups given field by field: each GroupState's .free,
        .block(asize), .turn(aliquot), .allocatable and .speed (a fill's txgs pass
        them so, without making GroupStates)."""
        n = len(free)
        if len(self.owed) < n:
            self.owed.extend([0.0] * (n - len(self.owed)))
        counts = [0] * n
        drains = tuple([drain * speed for speed in speeds])
        txg = min(blocks, txg_blocks) if txg_blocks else blocks
        # By index: zip(strict=True) parses its keyword at every call (CPython 3.11).
        capacity = [free[i] // sizes[i] for i in range(n)]
        walked = None
        # The first round's shares: every group's whole capacity is left.
        free = [capacity[i] * sizes[i] for i in range(n)]
        thresholds = _thresholds(free, sizes, turns, allocatable, asize)
        shares = _shares_of(thresholds, sizes)
        if allocator is not None and n > 1 and any(shares) \
                and not queues_fill(shares, drains, txg):
            walked = (self._walk(allocator, thresholds, shares, sizes, capacity, blocks)
                      if copies == 1 else
                      self._walk_copies(allocator, thresholds, sizes, capacity, blocks, copies))
        remaining = blocks
        indices = range(n)
        while remaining > 0:
            live = [i for i in indices if capacity[i] > counts[i]]
            if not live:
                break
            if remaining < blocks:
                # The groups as they are now: what is left of each vdev's capacity.
                free = [(capacity[i] - counts[i]) * sizes[i] if capacity[i] > counts[i]
                        else 0 for i in range(n)]
                shares = _shares_of(_thresholds(free, sizes, turns, allocatable, asize),
                                    sizes)
            weights = throttled_split(shares, drains, txg)
            total_weight = sum(weights)
            given = 0
            for i in live:
                self.owed[i] += remaining * weights[i] / total_weight
            for i in live:
                # min() of the three, spelled out (it parses keywords at every call).
                take = int(self.owed[i])
                room = capacity[i] - counts[i]
                if room < take:
                    take = room
                if remaining - given < take:
                    take = remaining - given
                if take > 0:
                    counts[i] += take
                    self.owed[i] -= take
                    given += take
            if given == 0:
                # Hand the last fractional block to the vdev owed the most.
                best = max(live, key=lambda i: self.owed[i])
                counts[best] += 1
                self.owed[best] -= 1
                given = 1
            remaining -= given
        return counts if walked is None else walked

