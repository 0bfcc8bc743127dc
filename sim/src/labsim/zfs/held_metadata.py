"""Old versions of metadata blocks that snapshots and clones keep: allocated on the vdevs.

When a head changes after a snapshot, the blocks of its object set that the change
rewrites are copied on write; dsl_dataset_block_kill() puts an old block born before the
latest snapshot on the deadlist instead of freeing it (module/zfs/dsl_dataset.c, 2.1.11
and 2.3.9), so the pool holds both versions. A clone's head likewise writes versions of
its own of blocks it shared with its origin. labsim.zfs.snapshot_space follows these
versions (metadata block "tokens") and counts them in USED; this module gives each of
them blocks, every copy, so that ``zpool list`` ALLOC, the metaslabs and a scrub hold
them too, and frees them (deferred, as every free) once nothing keeps them.

Finding them walks each dataset's chain of snapshots (labsim.zfs.snapshot_space), so it
is done when a command waits for a txg to sync: `zpool sync`, a scrub's start, an export,
and the sync tasks that let versions go (`zfs destroy`, `zfs rollback`, `zfs promote`).
After a write, until then, ``zfs list`` counts the versions it made a snapshot keep
(snapshot_space.space()) and ``zpool list`` does not yet, as on a real pool within the
seconds before its txg syncs (zfs_txg_timeout); labsim has no clock for that timeout.
"""

from __future__ import annotations

from labsim.zfs import metadata_blocks
from labsim.zfs.deadlists import sync_deadlists
from labsim.zfs.mos import place_copies
from labsim.zfs.pool import Extent, Pool
from labsim.zfs.snapshot_space import group_blocks, kept_metadata

# (dataset, "snapshots" or "clone", token): one version of a metadata group, kept.
HeldKey = tuple[str, str, tuple[str, str, int, int]]


def wanted(pool: Pool) -> dict[HeldKey, tuple[tuple[int, int], ...]]:
    """Each kept version, with (physical size, copies) of each of its blocks (a zero-size
    block is embedded in its pointer and takes nothing)."""
    rule = pool.version.compression_min_savings
    ashift = pool.min_ashift
    out: dict[HeldKey, tuple[tuple[int, int], ...]] = {}
    for dataset in pool.datasets.values():
        for kind, tokens in kept_metadata(pool, dataset).items():
            for token in sorted(tokens):
                group, which, _, copies = token
                blocks: list[tuple[int, int]] = []
                for block in group_blocks(group, copies, which):
                    psize = metadata_blocks.block_psize(block, ashift, rule)
                    if psize:
                        blocks += [(psize, block.copies)] * block.count
                out[(dataset.name, kind, token)] = tuple(blocks)
    return out


def sync_held_metadata(pool: Pool) -> None:
    """Free the blocks of versions nothing keeps any more, and allocate those of versions
    kept since the last call, every copy placed as MOS blocks are
    (labsim.zfs.mos.place_copies()); then the deadlists' bpobjs, which the same walks
    find (labsim.zfs.deadlists)."""
    want = wanted(pool)
    held = pool.held_metadata
    for key in [k for k in held if k not in want]:
        pool.deferred.extend((pool.txg, extent) for extent in held.pop(key))
    turn = 0
    for key, blocks in want.items():
        if key in held:
            continue
        extents: list[Extent] = []
        for psize, copies in blocks:
            placed, turn = place_copies(pool, psize, copies, turn)
            extents += placed
        held[key] = extents
    sync_deadlists(pool)
