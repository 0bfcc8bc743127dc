"""How a file becomes blocks ("records"), and what each block costs on disk.

* A file no larger than the dataset's recordsize is one block, sized to the file
  rounded up to 512 bytes. A larger file is cut into recordsize blocks, and its last
  block is a whole record too (zfs_write grows the block size only while the file
  has a single block).
* Compression: a block must shrink by at least 1/8 to be stored compressed
  (zio_compress_data in module/zfs/zio_compress.c); random data never does, so lz4
  stores it as-is. With any compression enabled an all-zero block is not written at
  all: it becomes a hole.
* Allocation is in whole sectors: a block's allocated size is its physical size
  rounded up to 2^ashift (vdev_psize_to_asize for a plain or mirror vdev; RAID-Z adds
  parity and padding, see layouts.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

BLKPTR_SIZE = 128  # bytes per block pointer (blkptr_t)
INDIRECT_BLOCK_SIZE = 128 * 1024  # DN_MAX_INDBLKSHIFT = 17 in OpenZFS 2.1
# Indirect blocks are always lz4-compressed; a block of pointers to incompressible data
# shrinks to roughly this fraction. Checked against real pools in the VM fidelity tests.
INDIRECT_COMPRESSED_FRACTION = 0.5
METADATA_COPIES = 2  # file metadata gets one extra ditto copy (dmu_write_policy)


@dataclass(frozen=True)
class Layout:
    """The blocks of one file: ``count`` blocks, each of ``block_size`` logical bytes."""

    count: int
    block_size: int


def file_layout(size: int, recordsize: int) -> Layout:
    if size <= 0:
        return Layout(0, 0)
    if size <= recordsize:
        return Layout(1, roundup(size, 512))
    return Layout(-(-size // recordsize), recordsize)


def physical_size(block_size: int, content: str, compression: str) -> int:
    """Bytes a block occupies before sector rounding; 0 for a hole."""
    if compression == "off":
        return block_size
    if content == "zero":
        return 0
    return block_size  # incompressible: stored uncompressed


def allocated_size(psize: int, ashift: int) -> int:
    return roundup(psize, 1 << ashift) if psize else 0


def indirect_blocks(data_blocks: int) -> list[int]:
    """Number of pointers held by each level-1 indirect block of a file."""
    if data_blocks <= 1:
        return []  # a single block is pointed at from the dnode itself
    per = INDIRECT_BLOCK_SIZE // BLKPTR_SIZE
    full, rest = divmod(data_blocks, per)
    return [per] * full + ([rest] if rest else [])


def indirect_allocation(data_blocks: int, ashift: int = 9,
                        sizer: Callable[[int], int] | None = None) -> int:
    """Bytes all copies of a file's level-1 indirect blocks take, for ``data_blocks`` blocks.

    ``sizer`` turns a block's physical size into what it costs (for example its deflated
    size on a RAID-Z vdev); by default, whole sectors of 2^ashift bytes.
    """
    if data_blocks <= 1:
        return 0
    per = INDIRECT_BLOCK_SIZE // BLKPTR_SIZE
    full, rest = divmod(data_blocks, per)
    size_of = sizer or (lambda psize: allocated_size(psize, ashift))

    def cost(pointers: int) -> int:
        return METADATA_COPIES * size_of(indirect_psize(pointers))

    return full * cost(per) + (cost(rest) if rest else 0)


def indirect_psize(pointers: int) -> int:
    return roundup(max(512, int(pointers * BLKPTR_SIZE * INDIRECT_COMPRESSED_FRACTION)), 512)


def roundup(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple
