"""The block reference table (BRT) of OpenZFS 2.2 and later: clone references to blocks,
and the pool's bcloneused, bclonesaved and bcloneratio (module/zfs/brt.c).

The model here is pure: ``Brt`` and the functions on it take keys, sizes and counts.
labsim.zfs.bclone explains block cloning and makes clones; labsim.zfs.write_path frees a
file's blocks through the table (free_file()).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A block's BRT key: its first DVA's top-level vdev and offset (brt_entry_fill()).
BlockKey = tuple[int, int]


@dataclass
class BrtEntry:
    """One cloned block (brt_entry_t): its dsize and its extra references (bre_count)."""

    dsize: int
    count: int = 0


@dataclass
class Brt:
    """The pool's BRT: entries by block, and the sums of every vdev's bv_usedspace and
    bv_savedspace (labsim keeps the totals; brt_get_used() and brt_get_saved() add up
    the vdevs' anyway)."""

    entries: dict[BlockKey, BrtEntry] = field(default_factory=dict)
    used: int = 0
    saved: int = 0


def addref(brt: Brt, key: BlockKey, dsize: int, count: int = 1) -> None:
    """brt_vdev_addref() then ``bre_count += count``: ``count`` more clone references to
    the block ``key`` of ``dsize`` bytes."""
    entry = brt.entries.get(key)
    if entry is None:
        entry = brt.entries[key] = BrtEntry(dsize)
    brt.saved += dsize * count
    if entry.count == 0:  # the block's first clone: counted once in used
        brt.used += dsize
    entry.count += count


def decref(brt: Brt, key: BlockKey) -> bool:
    """brt_entry_decref(): one pointer to block ``key`` is freed. Returns whether the
    block itself is to be freed (True: it had no clone reference left, or no entry)."""
    entry = brt.entries.get(key)
    if entry is None or entry.count == 0:
        return True
    entry.count -= 1
    brt.saved -= entry.dsize  # brt_vdev_decref()
    if entry.count == 0:
        brt.used -= entry.dsize
        # brt_sync_entry() removes an entry whose count fell to 0 from the on-disk table.
        del brt.entries[key]
    return False


def ratio(brt: Brt) -> int:
    """brt_get_ratio(): (used + saved) * 100 / used in integer arithmetic, 100 when
    nothing is cloned; zpool prints it as "%llu.%02llux" (3.00x)."""
    if brt.used == 0:
        return 100
    return (brt.used + brt.saved) * 100 // brt.used
