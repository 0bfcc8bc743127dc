"""A file's level-1 indirect blocks from the bytes of their block pointers.

An indirect block is an array of 128-byte block pointers (blkptr_t, include/sys/spa.h),
always LZ4-compressed (dmu_write_policy(), module/zfs/dmu.c) and rounded up to the sector
(zio_write_compress(), module/zfs/zio.c). What LZ4 leaves of it depends on how much its
pointers repeat:

* A pointer to an allocated block holds its DVAs (vdev, allocated size, offset), its
  properties (sizes, compression, checksum type, object type, level), its birth txg, its
  fill count and its checksum (fletcher4 for data under checksum=on). Blocks with the
  same bytes have the same checksum and the same sizes: two such pointers differ only in
  their DVA offsets, and LZ4 matches the rest of the later one with the earlier.
* An embedded pointer (the block's compressed bytes, BPE_PAYLOAD_SIZE or fewer, in the
  pointer itself, zio_write_compress()) holds its payload, its properties and its birth
  txg: a file of blocks of the same bytes has the same pointer again and again.
* A hole in a new file is a pointer of zeros (its birth stays 0 unless it replaced a
  block, zio_write_compress() with hole_birth).

So a file of periodic content (`yes`, and any content whose records repeat) has level-1
blocks far smaller than one of random data, whose checksums never repeat. labsim lays the
pointers out as OpenZFS does (the DVA offsets sequential on one vdev, the checksum words
drawn from what the block holds, within the widths fletcher4's four running sums reach for
its size) and runs ZFS's LZ4 over them (labsim.zfs.lz4_zfs). Where no two pointers of a
level-1 block are alike and none is embedded, the block costs what
records.indirect_psize() says (the measured cost of a pointer to random data; the
pointers laid out here give the same sectors for 32, 128 and 256 of them at ashift 12 as
lab 4 recorded, and one more for a full block: 42K of LZ4 output against 40K).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from labsim.content.model import Content, record_key, zeros
from labsim.zfs import compression
from labsim.zfs.lz4_zfs import lz4_block_size
from labsim.zfs.records import (
    BLKPTR_SIZE,
    INDIRECT_BLOCK_SIZE,
    POINTERS_PER_INDIRECT,
    file_layout,
    indirect_psize,
)
from labsim.zfs.versions import MinSavings

# include/sys/zio.h, zio_checksum and zio_compress enums (2.1.11 and 2.3.9), and
# include/sys/dmu.h DMU_OT_PLAIN_FILE_CONTENTS.
ZIO_CHECKSUM_FLETCHER_4 = 7
COMPRESS_ENUM = {"off": 2, "lzjb": 3, "gzip": 10, "zle": 14, "lz4": 15, "zstd": 16}
DMU_OT_PLAIN_FILE_CONTENTS = 19
# Where labsim puts the blocks a level-1 block points at, and their birth txg: stand-ins
# (any offset and txg give the same repetition; only the bytes that change matter).
_BASE_OFFSET = 4 << 20
_BIRTH = 64


@dataclass(frozen=True)
class Child:
    """A block a level-1 block points at: ``key`` says what its bytes are (equal keys,
    equal bytes: content.model.record_key()), ``block`` what it became (a hole, an
    embedded block, or ``psize`` physical bytes), ``lsize`` its logical size."""

    key: Hashable
    lsize: int
    block: compression.Block


def _stream(tag: tuple, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.blake2b(repr((tag, counter)).encode(), digest_size=64).digest()
        counter += 1
    return out[:length]


def _checksum_words(identity: int, psize: int) -> list[int]:
    """fletcher4 of a block of ``psize`` bytes: four running sums over its n 32-bit words,
    whose widths grow as n, n^2/2, n^3/6 (the last wraps at 64 bits): the high bytes of the
    first sums are zero. The values stand in for the real sums of the block's bytes."""
    n = max(1, psize // 4)
    raw = struct.unpack("<4Q", _stream(("cksum", identity), 32))
    widths = [min(64, 32 + n.bit_length() * (k + 1)) for k in range(4)]
    return [word & ((1 << width) - 1) for word, width in zip(raw, widths, strict=True)]


def _pointer(identity: int, child: tuple, offset: int, copies: int,
             algorithm: int, ashift: int) -> bytes:
    lsize, psize, embedded, payload = child
    if embedded:
        # Embedded: payload words 0-5, 7-9, 11-15 (blkptr.c encode_embedded_bp_compressed).
        data = _stream(("payload", identity), payload) + bytes(112 - payload)
        words = list(struct.unpack("<14Q", data))
        prop = ((lsize - 1) | ((payload - 1) << 25) | (algorithm << 32) | (1 << 39)
                | (DMU_OT_PLAIN_FILE_CONTENTS << 48) | (1 << 63))
        return struct.pack("<16Q", *words[:6], prop, *words[6:9], _BIRTH, *words[9:])
    if not psize:
        return bytes(BLKPTR_SIZE)
    asize = compression.round_to_sectors(psize, ashift)
    dvas: list[int] = []
    for copy in range(3):
        # Ditto copies lie elsewhere: a DVA each, in another region of the vdev.
        dvas += [asize >> 9, (offset + copy * (1 << 30)) >> 9] if copy < copies else [0, 0]
    prop = (((lsize >> 9) - 1) | (((psize >> 9) - 1) << 16) | (algorithm << 32)
            | (ZIO_CHECKSUM_FLETCHER_4 << 40) | (DMU_OT_PLAIN_FILE_CONTENTS << 48)
            | (1 << 63))
    return struct.pack("<16Q", *dvas, prop, 0, 0, 0, _BIRTH, 1,
                       *_checksum_words(identity, psize))


@lru_cache(maxsize=1024)
def _level_one_compressed(signature: tuple, copies: int, algorithm: int, ashift: int) -> int:
    """LZ4's bytes (with ZFS's 4-byte header) of a level-1 block whose pointers are
    ``signature``: (identity, (lsize, psize, embedded, payload)) each, identity numbering
    the distinct blocks in order of appearance."""
    offset = _BASE_OFFSET
    pointers = []
    for identity, child in signature:
        pointers.append(_pointer(identity, child, offset, copies, algorithm, ashift))
        if child[1] and not child[2]:
            offset += compression.round_to_sectors(child[1], ashift)
    data = b"".join(pointers)
    data += bytes(INDIRECT_BLOCK_SIZE - len(data))
    size = lz4_block_size(data, INDIRECT_BLOCK_SIZE)
    return size + compression.ZFS_LZ4_HEADER if size else INDIRECT_BLOCK_SIZE


def level_one_psize(children: Sequence[Child], copies: int, compression_name: str,
                    ashift: int) -> int:
    """The physical size of a level-1 block pointing at ``children``: from its pointers'
    bytes when some repeat or are embedded, else records.indirect_psize()."""
    identities: dict[Hashable, int] = {}
    signature = []
    repeats = False
    for child in children:
        block = child.block
        present = block.psize > 0 or block.embedded
        if not present:
            signature.append((0, (0, 0, False, 0)))
            continue
        seen = child.key in identities
        identity = identities.setdefault(child.key, len(identities) + 1)
        repeats = repeats or seen or block.embedded
        signature.append((identity, (child.lsize, block.psize, block.embedded,
                                     block.payload)))
    if not repeats:
        return indirect_psize(len(children), ashift)
    algorithm = COMPRESS_ENUM.get(compression_name.split("-")[0], COMPRESS_ENUM["lz4"])
    compressed = _level_one_compressed(tuple(signature), copies, algorithm, ashift)
    return min(INDIRECT_BLOCK_SIZE, compression.round_to_sectors(compressed, ashift))


def file_level_one_psizes(size: int, recordsize: int, content: Content, records: int,
                          compression_name: str, ashift: int, copies: int,
                          min_savings: MinSavings = MinSavings.SEVEN_EIGHTHS,
                          zstd_early_abort: bool = False,
                          kept_block: int = 0) -> list[int] | None:
    """The physical sizes of the level-1 blocks over a file's first ``records`` records
    (records.block_plan()'s file), or None for a file of one stream of blocks that never
    repeat (random, fio's buffers: records.indirect_psize() applies) or of one block (no
    indirect block). Zeros repeat: stored as they are (compression=off, 2.1's default)
    every pointer but its DVA offset is the one before it (the checksum of zeros is
    zero), and with compression they are holes."""
    if not repeats_by_pattern(content) or records <= 1:
        return None
    block_size = file_layout(size, recordsize, kept_block).block_size
    return [level_one_psize_at(content, block_size, index, records, compression_name,
                               ashift, copies, min_savings, zstd_early_abort)
            for index in range(-(-records // POINTERS_PER_INDIRECT))]


def repeats_by_pattern(content: Content) -> bool:
    """Whether the file's blocks repeat where its content is one stream: zeros do,
    random data and fio's buffers (one pattern, different bytes) do not. Content of
    several pieces is looked at block by block (True)."""
    pattern = compression.stationary_pattern(content)
    return pattern is None or pattern.kind == compression.ZERO


def level_one_psize_at(content: Content, block_size: int, index: int, records: int,
                       compression_name: str, ashift: int, copies: int,
                       min_savings: MinSavings = MinSavings.SEVEN_EIGHTHS,
                       zstd_early_abort: bool = False) -> int:
    """The physical size of level-1 block ``index`` of a file of ``records`` records of
    ``block_size`` bytes holding ``content``, its records compressed as
    ``compression_name`` says."""
    size = content.size
    children = []
    first = index * POINTERS_PER_INDIRECT
    end = min(records, first + POINTERS_PER_INDIRECT)
    pattern = compression.stationary_pattern(content)
    if pattern is not None and pattern.kind == compression.ZERO:
        # One stream of zeros: a record's bytes, so its key and block, depend on its length
        # alone, and the block's children are whole records, at most one shorter record
        # and holes past the end; the same few level-1 blocks recur in every such file.
        whole_end = size // block_size
        whole = max(0, min(end, whole_end) - first)
        tail = size % block_size if first <= whole_end < end else 0
        holes = max(0, end - first - whole - (1 if tail else 0))
        return _zero_level_one_psize(whole, tail, holes, block_size, compression_name,
                                     ashift, copies, min_savings, zstd_early_abort)
    for record in range(first, end):
        offset = record * block_size
        length = max(0, min(block_size, size - offset))
        block = compression.block_of(content, offset, length, block_size, compression_name,
                                     ashift, min_savings, zstd_early_abort) \
            if length else compression.HOLE
        children.append(Child(record_key(content, offset, length), block_size, block))
    return level_one_psize(children, copies, compression_name, ashift)


@lru_cache(maxsize=256)
def _zero_level_one_psize(whole: int, tail: int, holes: int, block_size: int,
                          compression_name: str, ashift: int, copies: int,
                          min_savings: MinSavings, zstd_early_abort: bool) -> int:
    """level_one_psize_at() of a level-1 block over ``whole`` records of zeros, then one
    of ``tail`` bytes (0: none), then ``holes`` records past the file's end."""
    content = zeros(whole * block_size + tail)
    by_length: dict[int, Child] = {}
    children = []
    for length in [block_size] * whole + ([tail] if tail else []) + [0] * holes:
        child = by_length.get(length)
        if child is None:
            block = compression.block_of(content, 0, length, block_size, compression_name,
                                         ashift, min_savings, zstd_early_abort) \
                if length else compression.HOLE
            child = by_length[length] = Child(record_key(content, 0, length), block_size,
                                               block)
        children.append(child)
    return level_one_psize(children, copies, compression_name, ashift)
