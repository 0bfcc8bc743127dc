"""The pool's own metadata that several operations share: objset ids and new MOS blocks.

The MOS (meta object set) holds the pool's datasets, their directories, deadlists and
snapshot names; creating a snapshot, a clone or a volume adds objects to it.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

from labsim.zfs.history import features_of
from labsim.zfs.metadata_blocks import (
    block_psize,
    indirect_compressed,
    micro_zap_block,
    vdev_zap_map,
)
from labsim.zfs.metadata_rewrite import next_rewritten
from labsim.zfs.pool import Dataset, Extent, MosBlocks, Pool
from labsim.zfs.versions import KiB, MetaBlock


def objset_id(pool: Pool, dataset: Dataset) -> int:
    """The dataset's objset id, one of the inputs of the allocator hash. A new 2.1
    pool's root dataset is object 54 of the MOS; labsim numbers the others after it
    (real numbers depend on what else the MOS holds)."""
    return 54 + 3 * list(pool.datasets).index(dataset.name)


def grow_mos(pool: Pool, nbytes: int) -> None:
    """Allocate ``nbytes`` of new MOS blocks (one-sector blocks, on the emptiest vdev)."""
    vdev = max(pool.vdevs, key=lambda v: v.free)
    sector = 1 << vdev.ashift
    for _ in range(nbytes // sector):
        asize = vdev.psize_to_asize(sector)
        if vdev.free < asize:
            return
        for offset, length in vdev.take(asize):
            pool.metadata.append(Extent(vdev.id, offset, length, dvas=3))
        if pool.mos_physical is not None:  # a third: each MOS block has three copies
            pool.mos_physical += sector // 3


# A dsl_dir "zapified" (dmu_object_zapify(): its object becomes a fat ZAP, so it can hold
# more than its dsl_dir_phys_t) when its first snapshot records snapshots_changed
# (dsl_dir_snap_cmtime_update(), "com.ixsystems:snapshots_changed", OpenZFS 2.2.0): a fat
# ZAP of two 16K blocks under an indirect block, stored as the MOS stores everything, three
# times. Recorded on 2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-mos-growth.txt): the
# file system's DSL directory object went from an embedded 512-byte block to 15K of dsize
# at ashift 9 with the first snapshot, and 36K at ashift 12.
ZAPIFIED_DIR = (MetaBlock(128 * KiB, indirect_compressed(2), copies=3),
                MetaBlock(16 * KiB, 2 * KiB, copies=3, count=2))


def add_mos_blocks(pool: Pool, blocks: tuple[MetaBlock, ...],
                   owner: MosBlocks | None = None) -> None:
    """New MOS blocks: every copy allocated (place_copies()) and one copy's physical size
    added to the MOS's. With ``owner``, the object they belong to keeps them too, to free
    them with it (free_mos_blocks())."""
    rule = pool.version.compression_min_savings
    turn = 0
    for block in blocks:
        psize = block_psize(block, pool.min_ashift, rule)
        if not psize:
            continue
        for _ in range(block.count):
            extents, turn = place_copies(pool, psize, block.copies, turn)
            pool.metadata.extend(extents)
            if owner is not None:
                owner.extents.extend(extents)
            if pool.mos_physical is not None:
                pool.mos_physical += psize
                if owner is not None:
                    owner.physical += psize


def add_mos_growth(pool: Pool, psize: int, was: int, owner: MosBlocks) -> None:
    """A MOS block labsim's new pool profile holds at ``was`` physical bytes now takes
    ``psize``: each of its three copies takes what the larger block allocates beyond the
    smaller on its vdev (on RAID-Z, parity and padding make that differ from a block of
    the difference), held by ``owner``."""
    extents, _ = place_copies(pool, psize, 3, 0, was=was)
    pool.metadata.extend(extents)
    owner.extents.extend(extents)
    if pool.mos_physical is not None:
        pool.mos_physical += psize - was
        owner.physical += psize - was


_FREE = operator.attrgetter("free")


def place_copies(pool: Pool, psize: int, copies: int, turn: int,
                 was: int = 0) -> tuple[list[Extent], int]:
    """The copies of one metadata block of ``psize`` physical bytes, allocated: each on the
    emptiest vdev in turn (``turn`` counts copies placed so far, where there are several
    vdevs), a second and third copy on one vdev in other metaslabs
    (labsim.zfs.metaslab_group.GroupAllocators); a copy that fits nowhere is left out.
    With ``was``, only what the block allocates beyond one of ``was`` bytes (add_mos_growth()).
    Returns the extents and the turn after them."""
    extents: list[Extent] = []
    on_vdev: dict[int, int] = {}  # copies of this block on each vdev so far
    for _ in range(copies):
        # Emptiest first, ties in vdev order (sorted() keeps them with reverse=True).
        order = sorted(pool.vdevs, key=_FREE, reverse=True)
        vdev = order[turn % len(order)]
        turn += 1
        asize = vdev.psize_to_asize(psize) - (vdev.psize_to_asize(was) if was else 0)
        if asize <= 0 or vdev.free < asize:
            continue
        role = on_vdev.get(vdev.id, 0)
        on_vdev[vdev.id] = role + 1
        pieces = vdev.take(asize, secondary=role == 1, claim=role >= 2)
        read = vdev.read_bytes(psize - was) if len(pieces) == 1 else 0
        for offset, length in pieces:
            extents.append(Extent(vdev.id, offset, length, read=read))
    placed = sum(on_vdev.values())
    for extent in extents:
        extent.dvas = placed
    return extents, turn


def free_mos_blocks(pool: Pool, owned: MosBlocks) -> None:
    """The object holding ``owned`` was freed (dmu_object_free() in syncing context): its
    blocks are freed in this txg, deferred as every free (labsim.zfs.txg), and leave the
    MOS's physical size."""
    # A block labsim.zfs.metadata_rewrite took over as one of those every txg rewrites
    # (the first rewrite adopts the newest small blocks) is that set's now: it stays.
    wanted = {id(e) for e in owned.extents}
    found: set[int] = set()
    metadata = pool.metadata
    # Most often the object's blocks are among the newest (a log space map freed a few
    # txgs after it was written): look from the end, and stop once all are found.
    for i in range(len(metadata) - 1, -1, -1):
        key = id(metadata[i])
        if key in wanted:
            del metadata[i]
            found.add(key)
            if len(found) == len(wanted):
                break
    if found:
        pool.deferred.extend((pool.txg, e) for e in owned.extents if id(e) in found)
    if pool.mos_physical is not None:
        pool.mos_physical -= owned.physical
    owned.extents = []
    owned.physical = 0


# A bpobj's data block (bpobj_alloc() with SPA_OLD_MAXBLOCKSIZE, module/zfs/bpobj.c): 128K
# of block pointers, of which a few entries are written; LZ4 leaves 1K (zdb at ashift 9 on
# 2.3.9: a deadlist's new "bpobj" object of 3K dsize, three copies;
# tests/fixtures/real/2.3.9/probes/lab15-mos-lifecycle.txt).
BPOBJ_BLOCK = MetaBlock(128 * KiB, 1 * KiB, copies=3)


def deadlist_insert(pool: Pool, dataset: Dataset) -> None:
    """The head ``dataset`` changed: its sync frees blocks born before its newest
    snapshot (its objset block and the meta-dnode's indirect blocks at least, rewritten
    by every change), which go to the head's deadlist (dsl_deadlist_insert()). The entry
    for that snapshot uses the pool's shared empty bpobj until its first block pointer:
    dle_enqueue() then allocates a bpobj of its own (module/zfs/dsl_deadlist.c, 2.1.11 and
    2.3.9), a MOS object of one block. A clone's first entry is its origin's. The blocks
    it grows by as frees append to it, and the bpobjs of entries of older snapshots'
    intervals, are labsim.zfs.deadlists'."""
    if dataset.snapshots:
        entry = dataset.snapshots[-1].txg
    elif dataset.origin is not None:
        entry = ORIGIN_ENTRY
    else:
        return
    if entry not in dataset.deadlist_blocks:
        dataset.deadlist_blocks[entry] = MosBlocks()
        add_mos_blocks(pool, (BPOBJ_BLOCK,), dataset.deadlist_blocks[entry])


# The deadlist entry of a clone's origin, which a clone has until its first snapshot.
ORIGIN_ENTRY = -1


def free_deadlist(pool: Pool, dataset: Dataset, entry: int | None = None) -> None:
    """The bpobjs of the head's deadlist freed: every entry's (dsl_deadlist_free() as the
    head is destroyed), or ``entry``'s alone."""
    for key in [k for k in dataset.deadlist_blocks if entry is None or k == entry]:
        free_mos_blocks(pool, dataset.deadlist_blocks.pop(key))


def history_grew(pool: Pool) -> None:
    """The history object's block after new records (labsim.zfs.history): when its
    physical size passes what the MOS holds of it, the rewritten block's extra sectors
    are allocated, three copies as every MOS block (the old block is freed as the new
    one is written; labsim allocates the difference). Its size never falls: records
    are only appended."""
    if pool.history_psize is None:
        return
    psize = pool.history.block_psize(pool.min_ashift)
    grown = psize - pool.history_psize
    if grown > 0:
        pool.history_psize = psize
        add_mos_blocks(pool, (MetaBlock(grown, grown, copies=3),))


# The per-dataset features' GUIDs (spa_feature_table[], module/zcommon/zfeature_common.c
# at zfs-2.3.9): the names of their entries in a dsl_dataset's ZAP.
DATASET_FEATURE_GUIDS = {
    "userobj_accounting": "org.zfsonlinux:userobj_accounting",
    "project_quota": "org.zfsonlinux:project_quota",
    "zstd_compress": "org.freebsd:zstd_compress",
    "large_blocks": "org.open-zfs:large_blocks",
    "large_dnode": "org.zfsonlinux:large_dnode",
    "zilsaxattr": "org.openzfs:zilsaxattr",
    "longname": "org.zfsonlinux:longname",
}
# The features a ZPL file system's dsl_dataset has active from its creation: user object
# and project accounting (dmu_objset_create_impl_dnstats() marks both for activation when
# the pool has them enabled, module/zfs/dmu_objset.c in 2.1.11 and 2.3.9; the pool's root
# file system gets them from dmu_objset_id_quota_upgrade() as `zpool create` mounts it).
# A volume has neither.
ZPL_DATASET_FEATURES = ("userobj_accounting", "project_quota")


def zpl_features(pool: Pool) -> set[str]:
    """The per-dataset features a new file system of ``pool`` starts with."""
    enabled = features_of(pool.version.name)
    return {f for f in ZPL_DATASET_FEATURES if f in enabled}


def dataset_object_block(features: Iterable[str]) -> MetaBlock | None:
    """A dsl_dataset object's block once ``features`` are active on it, or None while it
    lives in its block pointer. dsl_dataset_activate_feature() (module/zfs/dsl_dataset.c,
    2.1.11 and 2.3.9) zapifies the object (dmu_object_zapify(): a micro ZAP) and adds an
    entry of one uint64 per feature, named by its GUID. LZ4 leaves 90 bytes of a micro
    ZAP of the two accounting features, so every file system's lives in its block pointer;
    a third feature (zstd_compress, large_blocks, zilsaxattr) takes it to 120 bytes, past
    BPE_PAYLOAD_SIZE, and it becomes a block of one sector, three copies as every MOS
    block. Recorded with zdb -dd (tests/fixtures/real/*/probes/lab15-feature-zaps.txt, 2.1.11
    and 2.3.9): the root's dsl_dataset (object 54) goes from 0 to one block of dsize with
    zilsaxattr (2.3.9) or compression=zstd (2.1.11) and stays there with a fourth; a
    snapshot of it, a zstd file system and one that wrote a 1M record each have one such
    block; a pool made with -O compression=zstd has it from the start
    (lab15-rollback-zstd.txt)."""
    names = [f for f in ZPL_DATASET_FEATURES if f in features]
    names += sorted(f for f in features if f not in ZPL_DATASET_FEATURES)
    if not names:
        return None
    entries = tuple((DATASET_FEATURE_GUIDS.get(f, f), 0) for f in names)
    return micro_zap_block(entries, copies=3)


def activate_feature(pool: Pool, features: set[str], feature: str,
                     owner: MosBlocks | None = None) -> None:
    """dsl_dataset_activate_feature() on a dsl_dataset object whose active features are
    ``features``: the entry is added to its ZAP (dataset_object_block()); when that takes
    the ZAP out of its block pointer, its block is allocated (kept by ``owner``, the
    dataset or snapshot, to be freed with it)."""
    if feature in features:
        return
    before = dataset_object_block(features)
    features.add(feature)
    after = dataset_object_block(features)
    if before is None and after is not None:
        add_mos_blocks(pool, (after,), owner)


def zap_block_psize(pool: Pool, block: MetaBlock | None) -> int:
    """One copy's physical size of a micro ZAP's block in ``pool``; 0 while it lives in its
    block pointer (None, metadata_blocks.micro_zap_block())."""
    if block is None:
        return 0
    return block_psize(block, pool.min_ashift, pool.version.compression_min_savings)


# The DSL directories a pool's root has besides its children: dsl_pool_create() makes the
# MOS's ($MOS) and the deferred frees' ($FREE), dsl_pool_create_origin() the origin's
# ($ORIGIN) (module/zfs/dsl_pool.c, 2.1.11 and 2.3.9), with the object numbers a new
# pool's zdb -dd shows them at (tests/fixtures/real/2.3.9/probes/lab15-mos-composition.txt).
ROOT_SPECIAL_DIRS = (("$MOS", 35), ("$FREE", 38), ("$ORIGIN", 42))
# The object number labsim gives the dsl_dir of a pool's n-th dataset, each dataset taking
# six MOS objects (labsim.zfs.mos_dnodes.FILESYSTEM_OBJECTS): the real ones depend on
# every object made before; only their low bytes reach the map, and LZ4 sees them as a
# few bytes more or less.
FIRST_CHILD_DIR_OBJECT = 128


def child_map_block(pool: Pool, parent: Dataset) -> MetaBlock | None:
    """The block of ``parent``'s child map (dd_child_dir_zapobj: a micro ZAP of each
    child's short name and dsl_dir object, dsl_dir_create_sync() in module/zfs/dsl_dir.c),
    or None while LZ4 leaves little enough of it to live in its block pointer. The root's
    holds its three special directories first, so its third child takes it out (117
    bytes after LZ4): recorded on 2.3.9 and 2.1.11 (tests/fixtures/real/*/probes/
    lab15-mos-dnodes.txt, zdb -dd), where the root's child map went from 0 to 1.5K of
    dsize at ashift 9 with the volume, its third child. A file system's children and the
    clones under it count alike."""
    prefix = parent.name + "/"
    entries = list(ROOT_SPECIAL_DIRS) if "/" not in parent.name else []
    for index, name in enumerate(pool.datasets):
        if name.startswith(prefix) and "/" not in name[len(prefix):]:
            entries.append((name[len(prefix):], FIRST_CHILD_DIR_OBJECT + 6 * index))
    return micro_zap_block(tuple(entries), copies=3)


def child_map_changed(pool: Pool, child: str) -> None:
    """A child ``child`` (a file system, volume or clone) was made in, or removed from, its
    parent's directory: when that takes the parent's child map out of its block pointer
    or changes its block's size, the block is written anew; when the map fits in its
    block pointer again, the block is freed. Kept by the parent (Dataset.child_map_blocks)."""
    parent = pool.datasets.get(child.rsplit("/", 1)[0]) if "/" in child else None
    if parent is None or pool.mos_physical is None:
        return
    block = child_map_block(pool, parent)
    psize = zap_block_psize(pool, block)
    if psize == parent.child_map_psize:
        return
    free_mos_blocks(pool, parent.child_map_blocks)
    if block is not None:
        add_mos_blocks(pool, (block,), parent.child_map_blocks)
    parent.child_map_psize = psize


def vdev_zap_map_block(pool: Pool) -> MetaBlock | None:
    """The block of ``pool``'s map of its vdev ZAPs (labsim.zfs.metadata_blocks.
    vdev_zap_map()), or None while it is embedded."""
    widths = [len(v.leaves) for v in (*pool.vdevs, *pool.logs)]
    return vdev_zap_map(widths, "vdev_zaps_v2" in features_of(pool.version.name))


def vdev_zaps_added(pool: Pool) -> None:
    """New vdevs' ZAPs entered in the map: when the map leaves its block pointer, or
    outgrows its block, the block it needs is allocated (the difference, as
    history_grew() does)."""
    if pool.mos_physical is None:
        return
    psize = zap_block_psize(pool, vdev_zap_map_block(pool))
    grown = psize - pool.vdev_zap_map_psize
    if grown > 0:
        pool.vdev_zap_map_psize = psize
        add_mos_blocks(pool, (MetaBlock(grown, grown, copies=3),))


def mos_rewritten(pool: Pool) -> None:
    """A txg whose only change is in the MOS (a sync task: a property set, a snapshot's
    DSL objects; a history record, spa_history_log_sync()) still writes: the changed
    objects' blocks and every block above them, three copies each, get new places and
    the old ones are freed (copy-on-write, dsl_pool_sync() writing the MOS). So every
    metaslab that holds copies of the MOS's live blocks has changes in the txg, and
    spa_flush_metaslabs() (module/zfs/spa_log_spacemap.c, 2.1.11 and 2.3.9) finds the
    oldest metaslab dirty and flushes it, one a txg, rather than bumping clean ones.

    labsim leaves the blocks where they are and marks each metaslab that holds a copy of
    the blocks every writing txg rewrites (labsim.zfs.metadata_rewrite.next_rewritten())
    as changed. Recorded on 2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-log-txgs.txt,
    zdb -mmm after each step, two runs alike): three property changes, a snapshot, a
    write and a destroy on a RAID-Z1 flush the metaslabs and free the log space maps in
    the order labsim now gives them (tests/fidelity/test_flush_order_real.py). Marking
    one metaslab changed, as before, left the others clean; the third property change
    then bumped all three at once and freed two log space maps (ALLOC 49152 lower, real's
    did not move). Moving the blocks as a writing txg does (rewrite_metadata()) flushed
    in the same order but left that txg's frees deferred: ALLOC 417792 higher right
    after a property change, where real's is 221184 higher (lab 2's first listing);
    labsim does not model those deferred frees of a MOS-only txg."""
    extents = next_rewritten(pool)
    if not extents:
        mark_mos_changed(pool)
    for extent in extents:
        _metaslab_changed(pool, extent)


def mos_written_anew(pool: Pool, scan_setup: bool = False) -> None:
    """Txgs that change the MOS write its changed blocks, and every block above them,
    to new places with good bytes; labsim keeps them where they were, so it clears the
    damage a device took there instead: a copy that was overwritten while the pool was
    exported is not found damaged by a scrub after the import. Which blocks: those every
    such txg rewrites (the objset_phys_t, the meta-dnode's indirect and dnode blocks, the
    config, the history's last block, the unflushed-txgs array, the log space maps' ZAP;
    pool.mos_churn and the MOS part of the rewritten set, pool.rewritten_mos) and, at a
    scan's setup
    (dsl_scan_setup_sync() -> dsl_scan_sync_state(), module/zfs/dsl_scan.c), the object
    directory. A scrub reads only blocks born before its setup txg
    (dsl_scan_scrub_cb()), so none of these counts.

    Recorded on 2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-scrub-births.txt, zdb
    -ddddd at the export and after the scrub, two runs alike; 2.1.11's recording shows
    the same blocks rewritten but one dnode block): after an import and a
    scrub, every MOS block listed above has a birth txg after the export; the feature
    ZAPs, ZAP object 64, some space maps and all the file systems' and volumes' blocks
    have theirs from before. A mirror member overwritten on one metaslab then counts 18
    checksum errors (labsim counted 36 before it wrote these blocks anew, now 18), a
    RAID-Z1 member overwritten beyond its first 10M 2 (labsim: 20 before, now 9: see
    labsim.limits, "Damage a scrub finds")."""
    extents = mos_blocks_written_anew(pool, scan_setup)
    for vdev in pool.vdevs:
        pieces = [(e.offset, e.length) for e in extents if e.vdev == vdev.id]
        if pieces:
            vdev.written_in_place(pieces)


def mos_blocks_written_anew(pool: Pool, scan_setup: bool = False) -> list[Extent]:
    """The MOS blocks a txg that changes the MOS writes anew (mos_written_anew())."""
    live = {id(extent) for extent in pool.metadata}
    extents = [e for e in pool.mos_churn if id(e) in live]
    if scan_setup:
        extents += [e for e in pool.mos_directory if id(e) in live]
    current = {id(extent) for extent in pool.rewritten_metadata}
    extents += [e for e in pool.rewritten_mos if id(e) in current]
    return extents


def mark_mos_changed(pool: Pool) -> None:
    """A MOS-only txg with the MOS's blocks left where they are: the metaslab of the
    pool's newest metadata block is marked as changed, so the txg has a log space map of
    its own and flushes a metaslab (labsim.zfs.spacemaps). What a new pool's creation
    does between its txgs (labsim.zfs.lifecycle), whose figures were measured this way."""
    if pool.metadata:
        _metaslab_changed(pool, pool.metadata[-1])
    elif pool.vdevs and pool.vdevs[0].metaslabs:
        pool.vdevs[0].metaslabs[0].mark_changed()


def _metaslab_changed(pool: Pool, extent: Extent) -> None:
    """Mark the metaslab holding ``extent`` as changed in this txg."""
    vdev = pool.top(extent.vdev)
    if vdev.metaslabs:
        vdev.metaslabs[min(extent.offset >> vdev.ms_shift, len(vdev.metaslabs) - 1)].mark_changed()
