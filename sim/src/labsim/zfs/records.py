"""How a file becomes blocks ("records"), and what each block costs on disk.

* A file no larger than the dataset's recordsize is one block, sized to the file
  rounded up to 512 bytes. A larger file is cut into recordsize blocks, and its last
  block is a whole record too (zfs_write grows the block size only while the file
  has a single block), zero-filled past the end of the file.
* Compression (labsim.zfs.compression): each block is compressed on its own; an
  all-zero block is a hole when compression is on; a block that does not shrink by
  1/8, or whose compressed size rounded up to the sector is not smaller, is stored
  uncompressed (zio_compress_data, zio_write_compress).
* Allocation is in whole sectors: a block's allocated size is its physical size
  rounded up to 2^ashift (vdev_psize_to_asize for a plain or mirror vdev; RAID-Z adds
  parity and padding, see layouts.py).
* Indirect blocks: a ZPL file's dnode has one block pointer (its bonus buffer holds
  the system attributes), so a file of more than one block has a tree of 128 KiB
  indirect blocks of 1024 pointers each, always LZ4-compressed and stored in two
  copies (dmu_write_policy() in module/zfs/dmu.c: metadata gets one more ditto copy,
  and indirect blocks are compressed whatever the dataset's compression).
* Accounting (module/zfs/dsl_dataset.c dsl_dataset_block_born()): ``used`` adds the
  allocated size of every copy, ``compressed`` the physical size of one copy, and
  ``uncompressed`` (logicalused) the logical size of data blocks but the physical
  size of metadata blocks (BP_GET_UCSIZE() in include/sys/spa.h).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import gcd

from labsim.content.model import Content
from labsim.zfs import compression
from labsim.zfs.compression import DataPattern
from labsim.zfs.versions import MinSavings

BLKPTR_SIZE = 128  # bytes per block pointer (blkptr_t)
INDIRECT_BLOCK_SIZE = 128 * 1024  # DN_MAX_INDBLKSHIFT = 17 in OpenZFS 2.1
POINTERS_PER_INDIRECT = INDIRECT_BLOCK_SIZE // BLKPTR_SIZE
# What one block pointer costs once LZ4 has compressed the indirect block that holds it.
# Of its 128 bytes, the 32 of the checksum are as good as random and a few bytes of the
# DVA's offset change from one pointer to the next; the rest repeats the neighbouring
# pointer and costs LZ4 two short matches (a token and an offset each). The lab 4
# recordings (2.1.11, ashift 12) bound it: a full indirect block of 1024 pointers is
# 40K, sometimes 44K (so between 36 and 40 bytes a pointer, near 40), 256 pointers 12K,
# 128 pointers 8K, 32 pointers or fewer 4K.
BLKPTR_LZ4_BYTES = 39
METADATA_COPIES = 2  # file metadata gets one extra ditto copy (dmu_write_policy)
SPA_DVAS_PER_BP = 3  # copies a block pointer can hold (include/sys/spa.h)


@dataclass(frozen=True)
class Layout:
    """The blocks of one file: ``count`` blocks, each of ``block_size`` logical bytes."""

    count: int
    block_size: int


def file_layout(size: int, recordsize: int, kept_block: int = 0) -> Layout:
    """How many data blocks of what size a file of ``size`` bytes has. ``kept_block`` is
    the block size (z_blksz) the file already had when it was opened with O_TRUNC and
    written again: truncation frees the blocks but keeps the size (zfs_trunc() in
    module/os/linux/zfs/zfs_znode.c), and zfs_grow_blocksize() only ever grows it, a
    single-block file up to the recordsize, one whose blocks are larger than today's
    recordsize to the next power of two (zfs_write(), zfs_vnops.c, 2.1.11 to 2.3.9)."""
    if size <= 0:
        return Layout(0, 0)
    if kept_block > recordsize:
        block = kept_block if size <= kept_block else 1 << (kept_block - 1).bit_length()
        return Layout(-(-size // block), block)
    if size <= recordsize:
        return Layout(1, max(kept_block, roundup(size, 512)))
    return Layout(-(-size // recordsize), recordsize)


@dataclass(frozen=True)
class BlockGroup:
    """``count`` consecutive data blocks of a file, each of ``lsize`` logical bytes
    stored as ``psize`` physical bytes (0: a hole, or with ``embedded`` a block whose
    compressed bytes are in its block pointer, which allocates nothing but counts its
    logical size)."""

    lsize: int
    psize: int
    count: int
    embedded: bool = False

    @property
    def present(self) -> bool:
        """Whether the blocks exist (have a block pointer that is not a hole)."""
        return self.psize > 0 or self.embedded


def block_plan(size: int, recordsize: int, content: str | DataPattern | Content,
               compression_name: str, ashift: int,
               min_savings: MinSavings = MinSavings.SEVEN_EIGHTHS,
               zstd_early_abort: bool = False, first: int = 0,
               end: int | None = None, kept_block: int = 0) -> list[BlockGroup]:
    """The data blocks of a file of ``size`` bytes, in file order, grouped where
    consecutive blocks are alike. ``ashift`` is the pool's smallest (spa_min_ashift),
    to which compressed sizes are rounded. ``first`` and ``end``: only blocks
    [first, end) (the records a partial overwrite touches, labsim.zfs.overwrite);
    ``kept_block``: the block size a truncated file keeps (file_layout())."""
    layout = file_layout(size, recordsize, kept_block)
    end = layout.count if end is None else min(end, layout.count)
    if layout.count == 0 or first >= end:
        return []
    data = compression.as_content(content, size)
    bs = layout.block_size

    def block_at(index: int) -> compression.Block:
        offset = index * bs
        return compression.block_of(data, offset, min(bs, size - offset), bs,
                                    compression_name, ashift, min_savings, zstd_early_abort)

    groups: list[BlockGroup] = []

    def add(block: compression.Block, count: int) -> None:
        if count <= 0:
            return
        last = groups[-1] if groups else None
        if last is not None and (last.psize, last.embedded) == (block.psize, block.embedded):
            groups[-1] = BlockGroup(bs, block.psize, last.count + count, block.embedded)
        else:
            groups.append(BlockGroup(bs, block.psize, count, block.embedded))

    # Every block but the last is a whole record of data. A file of one stationary stream
    # (zeros, random, fio's buffers) has full blocks that repeat every lcm(chunk, bs) / bs
    # blocks (one block when the chunk divides the record, as it does in the lessons):
    # a 1 TiB file costs a few blocks' work. Any other content is sized record by record.
    last = layout.count - 1
    full = max(0, min(end, last) - first)  # whole records of data asked for
    pattern = compression.stationary_pattern(data)
    if pattern is None:
        for i in range(first, first + full):
            add(block_at(i), 1)
    else:
        period = pattern.chunk // gcd(pattern.chunk, bs) if pattern.kind == "fio" else 1
        cycle = [block_at(first + i) for i in range(min(period, full))]
        if cycle:
            repeats, rest = divmod(full, len(cycle))
            if len(set(cycle)) == 1:
                add(cycle[0], full)
            else:
                for _ in range(repeats):
                    for block in cycle:
                        add(block, 1)
                for block in cycle[:rest]:
                    add(block, 1)
    if end > last:
        add(block_at(last), 1)
    return groups


def plan_slice(groups: list[BlockGroup], start: int, end: int) -> list[BlockGroup]:
    """Blocks [start, end) of a file's block plan (block_plan()), as groups."""
    out: list[BlockGroup] = []
    position = 0
    for group in groups:
        lo, hi = max(start, position), min(end, position + group.count)
        if lo < hi:
            out.append(BlockGroup(group.lsize, group.psize, hi - lo, group.embedded))
        position += group.count
    return out


def allocated_size(psize: int, ashift: int) -> int:
    return roundup(psize, 1 << ashift) if psize else 0


def indirect_block_runs(data_blocks: int, levels: int = 0) -> list[tuple[int, int]]:
    """The indirect blocks of a file of ``data_blocks`` blocks as (pointers held, how
    many such blocks) runs, level 1 first, up to the single top block the dnode points
    at: each level is full blocks and at most one partly filled one. Runs keep the cost
    of a 1 TiB file's millions of indirect blocks down to a few terms. ``levels``: the
    dnode's dn_nlevels when it has more than its blocks need (file_levels()): the levels
    above are single blocks of one pointer each."""
    runs: list[tuple[int, int]] = []
    count = data_blocks
    level = 1
    # A single block is pointed at from the dnode itself, unless the dnode has levels.
    while count > 1 or (count and level < levels):
        full, rest = divmod(count, POINTERS_PER_INDIRECT)
        if full:
            runs.append((POINTERS_PER_INDIRECT, full))
        if rest:
            runs.append((rest, 1))
        count = full + (1 if rest else 0)
        level += 1
    return runs


def file_levels(data_blocks: int, kept: int = 1) -> int:
    """dn_nlevels of a file of ``data_blocks`` blocks whose dnode had ``kept`` levels
    before: a dnode gains levels as its blocks need them (dnode_set_nlevels_impl() asserts
    the new count is larger) and never loses one, truncation and frees included
    (module/zfs/dnode.c and dnode_sync.c, 2.1.11 and 2.3.9; dn_nlevels is set to 1 only
    when the object is first allocated). So a file written again with O_TRUNC after it
    had several blocks keeps its level-1 block over a single new block."""
    levels, count = 1, data_blocks
    while count > 1:
        count = -(-count // POINTERS_PER_INDIRECT)
        levels += 1
    return max(kept, levels)


def indirect_blocks(data_blocks: int) -> list[int]:
    """Number of pointers held by each indirect block of a file of ``data_blocks``
    blocks, level 1 first, up to the single top block the dnode points at."""
    return [pointers for pointers, count in indirect_block_runs(data_blocks)
            for _ in range(count)]


def indirect_allocation(data_blocks: int, ashift: int = 9,
                        sizer: Callable[[int], int] | None = None) -> int:
    """Bytes all copies of a file's indirect blocks take, for ``data_blocks`` blocks.

    ``sizer`` turns a block's physical size into what it costs (for example its deflated
    size on a RAID-Z vdev); by default, whole sectors of 2^ashift bytes.
    """
    size_of = sizer or (lambda psize: allocated_size(psize, ashift))
    return sum(METADATA_COPIES * count * size_of(indirect_psize(pointers, ashift))
               for pointers, count in indirect_block_runs(data_blocks))


@lru_cache(maxsize=4096)
def indirect_psize(pointers: int, ashift: int = 9) -> int:
    """Physical size of an indirect block holding ``pointers`` block pointers: ZFS's
    4-byte LZ4 header, BLKPTR_LZ4_BYTES per pointer, and the zeros of its unused
    pointers (one LZ4 match, whose length takes a byte per 255), rounded up to the
    sector as zio_write_compress() rounds every compressed block."""
    return min(INDIRECT_BLOCK_SIZE,
               compression.round_to_sectors(indirect_compressed(pointers), ashift))


def indirect_compressed(pointers: int) -> int:
    """The bytes LZ4 leaves of an indirect block holding ``pointers`` block pointers."""
    unused = INDIRECT_BLOCK_SIZE - pointers * BLKPTR_SIZE
    return (compression.ZFS_LZ4_HEADER + pointers * BLKPTR_LZ4_BYTES
            + compression.length_bytes(unused))


def roundup(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


# ---------------------------------------------------------------- costs of a workload

# Bytes of RAM one entry of the dedup table takes in memory: the commonly quoted
# figure for OpenZFS's in-core ddt_entry_t (about 320 bytes; the on-disk entry is
# smaller). An estimate for planning, as the lesson presents it.
DDT_ENTRY_RAM = 320


@dataclass(frozen=True)
class WriteCost:
    """What one application write costs ZFS: the records it touches, the bytes read
    back to merge a partial record (read-modify-write), the physical bytes written and
    the device I/Os (one per record read, one per record written)."""

    records: int
    read_bytes: int
    written_bytes: int
    ios: int

    def amplification(self, length: int) -> float:
        """Bytes written to disk per byte the application changed."""
        return self.written_bytes / length if length else 0.0


def write_cost(offset: int, length: int, recordsize: int, record_psize: int,
               cached: bool = False) -> WriteCost:
    """A write of ``length`` bytes at ``offset`` into an existing file of
    ``recordsize`` records, each stored as ``record_psize`` bytes. Copy-on-write never
    updates a record in place: every record the write touches is written anew, whole
    (dmu_write() dirties whole dbufs; dbuf_sync writes the full record). A record only
    partly covered must first be read (dbuf_will_dirty() -> dbuf_read()) unless it is
    cached in the ARC."""
    if length <= 0:
        return WriteCost(0, 0, 0, 0)
    first, last = offset // recordsize, (offset + length - 1) // recordsize
    records = last - first + 1
    end = offset + length
    partial = sum(1 for i in {first, last}
                  if not (offset <= i * recordsize and end >= (i + 1) * recordsize))
    reads = 0 if cached else partial
    return WriteCost(records, reads * record_psize, records * record_psize, reads + records)


def dedup_table_ram(data_bytes: int, recordsize: int, entry_bytes: int = DDT_ENTRY_RAM) -> int:
    """RAM to keep the dedup table of ``data_bytes`` of unique data in memory: one
    entry per block, ``entry_bytes`` each."""
    return -(-data_bytes // recordsize) * entry_bytes


def file_space(size: int, recordsize: int, content: str | DataPattern | Content,
               compression_name: str, ashift: int,
               min_savings: MinSavings = MinSavings.SEVEN_EIGHTHS,
               zstd_early_abort: bool = False) -> tuple[int, int, int]:
    """(logical, physical, allocated) bytes of a file: the data it holds, the physical
    size of its blocks (one copy, what compressratio divides by) and what they take on
    a plain vdev of 2^ashift sectors, indirect blocks (two copies) included."""
    groups = block_plan(size, recordsize, content, compression_name, ashift, min_savings,
                        zstd_early_abort)
    blocks = sum(g.count for g in groups if g.present)
    physical = sum(g.psize * g.count for g in groups)
    allocated = sum(allocated_size(g.psize, ashift) * g.count for g in groups)
    logical = sum(g.lsize * g.count for g in groups if g.present)
    runs = [(indirect_psize(p, ashift), n) for p, n in indirect_block_runs(blocks)]
    indirect_physical = sum(psize * n for psize, n in runs)
    logical += indirect_physical
    physical += indirect_physical
    allocated += METADATA_COPIES * sum(allocated_size(psize, ashift) * n for psize, n in runs)
    return logical, physical, allocated


def expected_records_touched(records: int, blocks_per_record: int, blocks: int,
                             writes: int) -> float:
    """How many of ``records`` records a run of ``writes`` distinct random blocks (fio's
    random map never repeats a block) out of ``blocks`` touches, on average: each record
    is missed with probability C(blocks - per, writes) / C(blocks, writes)."""
    writes = min(writes, blocks)
    miss = 1.0
    for i in range(writes):
        if blocks - i <= 0:
            break
        miss *= max(0.0, (blocks - blocks_per_record - i) / (blocks - i))
        if miss == 0.0:
            break
    return records * (1.0 - miss)
