"""What the MOS's own dnode blocks grow by as objects join it, and shrink by as they go.

Every MOS object is a 512-byte dnode in a 16K dnode block of the MOS's meta-dnode, which
LZ4 compresses as all metadata (dmu_write_policy(), module/zfs/dmu.c) and
zio_write_compress() (module/zfs/zio.c) stores in whole sectors. A used dnode holds a
header, a block pointer or an embedded micro ZAP and a bonus (a dsl_dir_phys_t, a
dsl_dataset_phys_t with its own block pointer and random GUIDs): bytes LZ4 cannot fold
into their neighbours. A free slot is zeros. So each object a command adds makes its dnode
block larger after LZ4, by a sector at ashift 9 every few objects; at ashift 12 a dnode
block stays one sector until it is full and the next block starts.

Recorded at ashift 9 (tests/fixtures/real/*/probes/lab15-mos-dnodes*.txt, two runs on
each release, `zdb -dddddd POOL 0`): the MOS's dnode blocks holding 1-5, 9-12, 13-19,
20-25 and 29-30 used dnodes took 512, 1K, 1.5K, 2K and 2.5K, as MOS_DNODE_BLOCK_BASE +
MOS_DNODE_LZ4_BYTES per used dnode, rounded up to the sector, gives for most of them;
what the dnodes are (DSL objects, space maps) moves the result a sector either way for
the others (blocks of 18, 19, 21, 27 and 28 took two sizes each). The new pool's full
block of 32 alike DSL objects compresses to 2K, better than the rule says; labsim's new
pool profile holds it as recorded.

Which objects each command makes, from the source (module/zfs/dsl_dir.c,
dsl_dataset.c and dsl_deadlist.c, 2.1.11 and 2.3.9):

* a file system or volume: dsl_dir_create_sync() a DSL directory, its props ZAP and its
  child map; dsl_dataset_create_sync_dd() a dsl_dataset, its snapshot-names ZAP and its
  deadlist (a ZAP, dsl_deadlist_alloc());
* a snapshot: dsl_dataset_snapshot_sync_impl() the snapshot's dsl_dataset and a new
  deadlist for the head (dsl_deadlist_clone()): the snapshot keeps the old one;
* a clone: what a file system has, the livelist (dsl_deadlist_alloc(), the livelist
  feature every 2.x pool has), and the origin's next-clones ZAP and its dsl_dir's clones
  ZAP when it is the origin's first clone;
* the first of these in a pool: the shared empty bpobj (bpobj_alloc_empty(), the
  empty_bpobj feature: zdb shows a new "bpobj" object with the first file system);
* any txg: a space map object for a metaslab's first flush and a log space map, freed
  once flushed past (labsim.zfs.txg.charge_space_maps() counts them).

The probe's runs show these objects on both releases, command by command.

Destroying a file system or volume frees its six, a snapshot its two. Where the objects
go is chance (each CPU takes its own chunk of object numbers, dmu_object_alloc_impl() in
module/zfs/dmu_object.c, labsim.zfs.metadata_blocks.OTHER_CHUNK_FIRST_OBJECT): labsim
puts them all in the dnode block its new pool's profile was growing (the recorded run
whose MOS had a second level from the start held ten there) and counts a new block each
32 objects.
"""

from __future__ import annotations

from functools import lru_cache

from labsim.zfs.metadata_blocks import DNODE_BLOCK_SIZE, DNODES_PER_BLOCK
from labsim.zfs.mos import add_mos_growth, free_mos_blocks
from labsim.zfs.pool import MosBlocks, Pool

MOS_DNODE_BLOCK_BASE = 150  # bytes: LZ4 over the block's free slots and its header
MOS_DNODE_LZ4_BYTES = 70  # bytes one used MOS dnode adds
# The used dnodes of the block the new pool's MOS grows into (labsim's profile: the
# second run of lab15-mos-dnodes, a block of ten at 1K).
NEW_POOL_FILL = 10

FILESYSTEM_OBJECTS = 6  # dsl_dir, props, child map, dsl_dataset, snapshot names, deadlist
SNAPSHOT_OBJECTS = 2  # the snapshot's dsl_dataset, the head's new deadlist
LIVELIST_OBJECTS = 1  # a clone's livelist


@lru_cache(maxsize=256)
def dnode_blocks_psize(dnodes: int, ashift: int) -> tuple[int, ...]:
    """The physical sizes of the dnode blocks holding ``dnodes`` used dnodes, filled in
    order (a block of DNODES_PER_BLOCK, then the next). Cached: a long write's txgs ask
    for the same few counts again and again."""
    full, rest = divmod(dnodes, DNODES_PER_BLOCK)
    return (_block_psize(DNODES_PER_BLOCK, ashift),) * full + (
        (_block_psize(rest, ashift),) if rest else ())


def _block_psize(dnodes: int, ashift: int) -> int:
    sector = 1 << ashift
    compressed = MOS_DNODE_BLOCK_BASE + MOS_DNODE_LZ4_BYTES * dnodes
    return min(DNODE_BLOCK_SIZE, -(-compressed // sector) * sector)


def filesystem_made(pool: Pool) -> None:
    """`zfs create` of a file system or volume."""
    mos_objects_changed(pool, FILESYSTEM_OBJECTS + _first_empty_bpobj(pool))


def snapshot_made(pool: Pool) -> None:
    mos_objects_changed(pool, SNAPSHOT_OBJECTS + _first_empty_bpobj(pool))


def clone_made(pool: Pool, origin_first_clone: bool) -> None:
    """A clone; ``origin_first_clone``: its origin had none, so the origin's next-clones
    ZAP and its dsl_dir's clones ZAP are made too."""
    mos_objects_changed(pool, FILESYSTEM_OBJECTS + LIVELIST_OBJECTS
                        + 2 * origin_first_clone + _first_empty_bpobj(pool))


def filesystem_destroyed(pool: Pool, clone: bool) -> None:
    mos_objects_changed(pool, -(FILESYSTEM_OBJECTS + LIVELIST_OBJECTS * clone))


def snapshots_destroyed(pool: Pool, count: int) -> None:
    mos_objects_changed(pool, -SNAPSHOT_OBJECTS * count)


def _first_empty_bpobj(pool: Pool) -> int:
    if pool.mos_dnodes.empty_bpobj_made:
        return 0
    pool.mos_dnodes.empty_bpobj_made = True
    return 1


def start(pool: Pool) -> None:
    """The new pool's creation is over: its profile holds the dnode blocks so far."""
    pool.mos_dnodes.sizes = dnode_blocks_psize(NEW_POOL_FILL, pool.min_ashift)


def mos_objects_changed(pool: Pool, count: int) -> None:
    """``count`` MOS objects made (or freed, when negative): a dnode block whose size
    changed is written anew, and what it has grown since the new pool is charged again.
    Nothing happens before start(), nor in a pool without a profile of its new MOS."""
    state = pool.mos_dnodes
    if not count or not state.sizes:
        return
    state.added += count
    ashift = pool.min_ashift
    new_pool = dnode_blocks_psize(NEW_POOL_FILL, ashift)
    now = dnode_blocks_psize(max(0, NEW_POOL_FILL + state.added), ashift)
    was = state.sizes
    if now == was:
        return
    # Each dnode block that changed is written anew; the others keep their blocks.
    while len(state.growth) < len(now):
        state.growth.append(MosBlocks())
    for i, owner in enumerate(state.growth):
        psize = now[i] if i < len(now) else 0
        if psize == (was[i] if i < len(was) else 0):
            continue
        free_mos_blocks(pool, owner)
        # The new pool's block (its profile's) grown, or a block begun since.
        at_creation = new_pool[i] if i < len(new_pool) else 0
        if psize > at_creation:
            add_mos_growth(pool, psize, at_creation, owner)
    state.sizes = now
