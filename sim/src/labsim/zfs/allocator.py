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

from labsim.zfs.throttle import throttled_split


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
    n = len(free)
    live = [i for i in range(n) if free[i] >= block[i]]
    class_free = sum(free[i] for i in live)
    # mc_alloc_groups; with a single group (mc_groups <= 1) nothing is ever skipped.
    alloc_groups = sum(1 for i in live if allocatable[i])
    skip_unallocatable = n > 1 and alloc_groups > 0 and asize > SPA_MINBLOCKSIZE
    bias_groups = alloc_groups if n > 1 else len(live)
    shares = []
    for i in range(n):
        if free[i] < block[i] or (skip_unallocatable and not allocatable[i]):
            shares.append(0)
            continue
        bias = free_space_bias(free[i], class_free, bias_groups, turn[i])
        shares.append(records_per_turn(bias, turn[i], block[i]))
    return shares


@dataclass
class Rotor:
    """Carries the allocator's position between txgs so that splitting work into
    chunks never changes the result: fractional blocks owed to each vdev are kept."""

    owed: list[float] = field(default_factory=list)

    def distribute(
        self,
        groups: list[GroupState],
        blocks: int,
        aliquot: int,
        asize: int,
        drain: float = 0.0,
        txg_blocks: int = 0,
    ) -> list[int]:
        """Split ``blocks`` blocks of ``asize`` bytes among vdevs for one txg.

        Under the allocation throttle (``drain`` > 0: the blocks a vdev of speed 1
        completes per block the pipeline issues), the split is the one a txg of
        ``txg_blocks`` blocks (``blocks`` when 0) gets (labsim.zfs.throttle).

        Never gives a vdev more blocks than fit in its free space; blocks that fit
        nowhere are left unallocated (the caller sees a short total: ENOSPC).
        """
        n = len(groups)
        if len(self.owed) < n:
            self.owed.extend([0.0] * (n - len(self.owed)))
        counts = [0] * n
        # Each GroupState field, as lists (a txg of a fill asks this).
        sizes = [g.block(asize) for g in groups]
        turns = [g.turn(aliquot) for g in groups]
        allocatable = [g.allocatable for g in groups]
        drains = tuple(drain * g.speed for g in groups)
        txg = min(blocks, txg_blocks) if txg_blocks else blocks
        capacity = [g.free // size for g, size in zip(groups, sizes, strict=True)]
        remaining = blocks
        while remaining > 0:
            live = [i for i in range(n) if capacity[i] > counts[i]]
            if not live:
                break
            # The groups as they are now: what is left of each vdev's capacity.
            free = [(capacity[i] - counts[i]) * sizes[i] if capacity[i] > counts[i] else 0
                    for i in range(n)]
            weights = throttled_split(tuple(_shares(free, sizes, turns, allocatable, asize)),
                                      drains, txg)
            total_weight = sum(weights)
            given = 0
            for i in live:
                self.owed[i] += remaining * weights[i] / total_weight
            for i in live:
                take = min(int(self.owed[i]), capacity[i] - counts[i], remaining - given)
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
        return counts

