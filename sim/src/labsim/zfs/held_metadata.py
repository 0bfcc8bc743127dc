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
from labsim.zfs.pool import Extent, Pool
from labsim.zfs.snapshot_space import group_blocks, kept_metadata

# (dataset, "snapshots" or "clone", token): one version of a metadata group, kept.
HeldKey = tuple[str, str, tuple[str, str, int, int]]


def wanted(pool: Pool) -> dict[HeldKey, tuple[int, ...]]:
    """Each kept version, with the physical size of each copy of each of its blocks (a
    zero-size block is embedded in its pointer and takes nothing)."""
    rule = pool.version.compression_min_savings
    ashift = pool.min_ashift
    out: dict[HeldKey, tuple[int, ...]] = {}
    for dataset in pool.datasets.values():
        for kind, tokens in kept_metadata(pool, dataset).items():
            for token in sorted(tokens):
                group, which, _, copies = token
                sizes: list[int] = []
                for block in group_blocks(group, copies, which):
                    psize = metadata_blocks.block_psize(block, ashift, rule)
                    if psize:
                        sizes += [psize] * (block.count * block.copies)
                out[(dataset.name, kind, token)] = tuple(sizes)
    return out


def sync_held_metadata(pool: Pool) -> None:
    """Free the blocks of versions nothing keeps any more, and allocate those of versions
    kept since the last call: each copy on the emptiest vdev in turn, a second and third
    copy on one vdev in other metaslabs, as labsim.zfs.mos.add_mos_blocks() places
    metadata. A copy that fits nowhere is left out."""
    want = wanted(pool)
    held = pool.held_metadata
    for key in [k for k in held if k not in want]:
        pool.deferred.extend((pool.txg, extent) for extent in held.pop(key))
    turn = 0
    for key, sizes in want.items():
        if key in held:
            continue
        extents: list[Extent] = []
        on_vdev: dict[int, int] = {}  # copies of this version on each vdev so far
        for psize in sizes:
            order = sorted(pool.vdevs, key=lambda v: -v.free)
            vdev = order[turn % len(order)]
            turn += 1
            asize = vdev.psize_to_asize(psize)
            if vdev.free < asize:
                continue
            role = on_vdev.get(vdev.id, 0)
            on_vdev[vdev.id] = role + 1
            for offset, length in vdev.take(asize, secondary=role == 1, claim=role >= 2):
                extents.append(Extent(vdev.id, offset, length))
        held[key] = extents
