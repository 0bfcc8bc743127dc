"""The block pointers deadlists hold, and the bpobj blocks they fill in the MOS.

When a head frees a block that its latest snapshot still holds, dsl_dataset_block_kill()
does not free it: dsl_deadlist_insert() appends its block pointer to the head's deadlist
(module/zfs/dsl_dataset.c, dsl_deadlist.c, 2.1.11 and 2.3.9). A deadlist has an entry for
each earlier snapshot's interval, and the pointer goes to the entry of the interval the
block was born in; each entry's pointers are a bpobj, a MOS object of 128K blocks
(bpobj_alloc(), SPA_OLD_MAXBLOCKSIZE), 128 bytes a pointer (bpobj_enqueue(),
module/zfs/bpobj.c), so 1024 a block. When a snapshot is taken, the head's deadlist
becomes the snapshot's and the head starts a new one, so a member's deadlist holds what
was freed while it was the head.

bpobj_enqueue() zeroes a pointer's checksum and fill count before storing it ("the bpobj
will compress better without the checksum"), so a full block of pointers to one file's
records differs from entry to entry in a block offset and little else, and LZ4 (metadata
is always compressed) takes 128K to some 5K: two sectors at ashift 12. Like every MOS
block it has three copies; a bpobj of more blocks than its dnode has block pointers
(three: DN_OLD_MAX_BONUSLEN less the bpobj_phys_t bonus) gets a level-1 indirect block.

labsim counts, for each pair of consecutive members of a dataset's own chain (a
snapshot and the snapshot or head after it), the pointers of the blocks the first holds
and the second does not, by the interval they were born in; each interval that has
any is a bpobj (recorded on 2.3.9, tests/fixtures/real/2.3.9/probes/lab15-deadlist-bpobj.txt:
4 MiB of 4K records freed after a snapshot is a bpobj of 72K dsize on a RAID-Z2 at
ashift 12, two blocks of three copies; 12 MiB, 192K, four blocks and an indirect one).
The first block of the newest interval's bpobj is labsim.zfs.mos.deadlist_insert()'s
(BPOBJ_BLOCK); this module allocates the rest, and what a pair no longer needs (a
snapshot destroyed or rolled back to) is freed. Pointers to the objset's own metadata
blocks are left out (a handful a txg; BPOBJ_BLOCK stands for them), and so are clones'
livelists (a clone's frees of its origin's blocks).

Counting walks the chains, so it is done where the pool syncs, with the metadata
snapshots keep (labsim.zfs.held_metadata).
"""

from __future__ import annotations

import bisect
import struct
from functools import cache

from labsim.zfs.lz4_zfs import lz4_block_size
from labsim.zfs.metadata_blocks import block_psize
from labsim.zfs.mos import BPOBJ_BLOCK, add_mos_blocks, free_mos_blocks
from labsim.zfs.pool import Dataset, File, MosBlocks, Part, Pool, Run, Snapshot, file_parts
from labsim.zfs.versions import KiB, MetaBlock

BLKPTR_SIZE = 128  # sizeof (blkptr_t)
BPOBJ_BLOCK_SIZE = 128 * KiB  # SPA_OLD_MAXBLOCKSIZE
POINTERS_PER_BLOCK = BPOBJ_BLOCK_SIZE // BLKPTR_SIZE
# Block pointers in a bpobj's dnode (1 + (DN_OLD_MAX_BONUSLEN 320 - 64-byte bpobj_phys_t
# bonus) / 128): more blocks than these need an indirect block.
DNODE_BLOCK_POINTERS = 3
# (dataset, txg of the snapshot the pair starts at, txg of the snapshot whose interval
# the pointers' blocks were born in)
BpobjKey = tuple[str, int, int]


def block_pointers(part: Part) -> int:
    """The block pointers a part stands for: its records that are not holes (embedded
    ones are stored too, bpobj_enqueue()), and its indirect blocks. A part made without a
    record plan (volumes, fio's files) counts nothing."""
    if isinstance(part, Run):
        if not part.plan:
            return 1 if part.extents else 0  # a level-1 indirect block shared alone
        return sum(g.count for g in part.plan if g.present)
    if part.runs:  # only its indirect blocks above level one are its own
        return max(0, part.levels - 2)
    records = sum(g.count for g in part.plan if g.present)
    return records + _indirect_blocks(records, part.levels)


def _indirect_blocks(records: int, levels: int) -> int:
    """Indirect blocks above ``records`` block pointers, 1024 a 128K indirect block
    (dn_indblkshift 17), through ``levels`` levels."""
    total, below = 0, records
    for _ in range(max(0, levels - 1)):
        below = -(-below // POINTERS_PER_BLOCK)
        total += below
    return total


def _first_holder(txgs: list[int], count: int, birth: int) -> int:
    """Of the first ``count`` snapshots, taken at ``txgs`` (ascending), the txg of the
    first taken after a block born at ``birth``: which of the deadlist's intervals its
    pointer goes to."""
    index = bisect.bisect_left(txgs, birth, 0, count)
    return txgs[min(index, count - 1)] if count else 0


def _parts_only_in(older: dict[str, File], newer: dict[str, File]) -> dict[int, Part]:
    """The parts of ``older``'s files that ``newer``'s files do not hold."""
    out: dict[int, Part] = {}
    for name, file in older.items():
        if newer.get(name) is file:
            continue  # the same version: every part held
        for part in file_parts(file):
            out[id(part)] = part
    if out:
        kept = {id(p) for f in newer.values() for p in file_parts(f)}
        out = {k: p for k, p in out.items() if k not in kept}
    return out


def killed_pointers(dataset: Dataset) -> dict[BpobjKey, int]:
    """The block pointers each deadlist entry of the dataset's own chain holds."""
    members: list[Snapshot | Dataset] = [*dataset.snapshots, dataset]
    txgs = [snap.txg for snap in dataset.snapshots]
    out: dict[BpobjKey, int] = {}
    for i in range(len(members) - 1):
        older, newer = members[i], members[i + 1]
        assert isinstance(older, Snapshot)
        for part in _parts_only_in(older.files, newer.files).values():
            count = block_pointers(part)
            if count:
                # the interval among the snapshots up to ``older`` the block was born in
                key = (dataset.name, older.txg, _first_holder(txgs, i + 1, part.birth))
                out[key] = out.get(key, 0) + count
    return out


@cache
def _pointers_psize(count: int, ashift: int) -> int:
    """The physical size of a bpobj block holding ``count`` pointers: their bytes as
    bpobj_enqueue() stores them (one 4K record each, on one vdev, one after the other;
    checksum and fill zeroed) through ZFS's LZ4, rounded up to the sector."""
    entries = []
    asize = 4 * KiB
    for i in range(count):
        prop = (7 | (7 << 16) | (15 << 32) | (7 << 40) | (19 << 48) | (1 << 63))
        entries.append(struct.pack("<16Q", asize >> 9, (4 * 1024 * 1024 + i * asize) >> 9,
                                   0, 0, 0, 0, prop, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    data = b"".join(entries)
    size = lz4_block_size(data, len(data)) or len(data)
    sector = 1 << ashift
    return -(-size // sector) * sector


def bpobj_blocks(count: int, ashift: int, started: int = 0) -> tuple[MetaBlock, ...]:
    """The blocks of a bpobj of ``count`` pointers: its data blocks, full ones first, and
    an indirect block once it has more blocks than its dnode points at. ``started``: the
    physical size its first block has been given already (labsim.zfs.mos.BPOBJ_BLOCK),
    which is left out of it."""
    full, rest = divmod(count, POINTERS_PER_BLOCK)
    data = full + (1 if rest else 0)
    sizes = [_pointers_psize(POINTERS_PER_BLOCK, ashift)] * full
    if rest:
        sizes.append(_pointers_psize(rest, ashift))
    if sizes:
        sizes[0] -= min(sizes[0], started)
    blocks = [MetaBlock(BPOBJ_BLOCK_SIZE, size, copies=3) for size in sizes if size]
    if data > DNODE_BLOCK_POINTERS:
        blocks.append(MetaBlock(BPOBJ_BLOCK_SIZE, _pointers_psize(data, ashift), copies=3))
    return tuple(blocks)


def sync_deadlists(pool: Pool) -> None:
    """Allocate the blocks of bpobjs new or grown since the last call, and free those of
    entries gone or changed (a snapshot destroyed, a rollback), as MOS blocks
    (labsim.zfs.mos.add_mos_blocks(), free_mos_blocks()). A bpobj that changed is
    allocated anew, as its rewritten last block and indirect block are on a real pool."""
    ashift, rule = pool.min_ashift, pool.version.compression_min_savings
    have = pool.deadlist_bpobjs
    want: dict[BpobjKey, int] = {}
    started: set[BpobjKey] = set()  # bpobjs whose first block has BPOBJ_BLOCK
    for dataset in pool.datasets.values():
        for key, count in killed_pointers(dataset).items():
            want[key] = count
            if key[1] == key[2] and key[1] in dataset.deadlist_blocks:
                started.add(key)
    for key in [k for k in have if want.get(k) != have[k][0]]:
        free_mos_blocks(pool, have.pop(key)[1])
    for key, count in want.items():
        if key in have:
            continue
        owner = MosBlocks()
        first = block_psize(BPOBJ_BLOCK, ashift, rule) if key in started else 0
        add_mos_blocks(pool, bpobj_blocks(count, ashift, first), owner)
        have[key] = (count, owner)


