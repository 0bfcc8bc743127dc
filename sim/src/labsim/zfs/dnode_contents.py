"""What LZ4 leaves of a file system's first dnode block, from the dnodes it holds.

A dnode block is 16K of 512-byte dnode_phys_t (dnodesize=legacy), compressed with LZ4
like all metadata (dmu_write_policy(), module/zfs/dmu.c) and rounded up to the sector
(zio_write_compress(), module/zfs/zio.c). What it compresses to depends on what its dnodes
hold, so labsim lays them out as include/sys/dnode.h, include/sys/spa.h and
include/sys/sa_impl.h (2.1.11 and 2.3.9) do, and compresses the block:

* the dnode's 64-byte header: type, indirect block shift, levels, block pointers, bonus
  type, flags (USED_BYTES, USERUSED_ACCOUNTED, USEROBJUSED_ACCOUNTED), data block size in
  sectors, bonus length, maxblkid and the bytes used;
* its block pointer(s), 128 bytes each: a hole is zeros but for its birth txg, logical
  size and type (the hole_birth feature, BP_SET_BIRTH() in dbuf_write_ready()); an
  embedded pointer (a block that LZ4 leaves BPE_PAYLOAD_SIZE bytes or less of,
  zio_write_compress()) carries the compressed bytes in all its words but blk_prop and
  blk_birth; any other has its DVAs (one for file data, two for metadata: one copy
  more, dmu_write_policy()), blk_prop, birth txgs, fill and a 256-bit checksum, which
  LZ4 cannot shorten;
* a ZPL file's or directory's bonus (DMU_OT_SA, 320 bytes, DN_BONUS_SIZE of a legacy
  dnode, zfs_mknode() in module/zfs/zfs_znode.c): the SA header and the attributes of
  the layout every new znode has (mode, size, gen, uid, gid, parent, flags, the four
  times, links, projid, the ACE count and three trivial ACEs: 176 bytes, zdb's "176
  bonus System attributes", tests/fixtures/real/2.3.9/probes/lab15-dataset-metadata.txt).
  Its times are seconds and nanoseconds: the seconds repeat from dnode to dnode, the
  nanoseconds do not.

What labsim cannot know it draws from a generator seeded by the dnode's slot and kind,
so the result is deterministic: the checksums and the DVAs' offsets, the nanoseconds, an
embedded block's bytes (taken as BPE_PAYLOAD_SIZE of them, as labsim does not keep an
embedded block's compressed length). Checked against zdb (lab15-objset-blocks, 2.3.9 at
ashift 9: the master node alone and with a file of one 128K block compress to one
sector, the file system's own five objects to two) and against the generated tuning
recordings' logicalreferenced (seed 66: the master node, a file embedded in its pointer
and one of one block take two sectors; seed 32: the master node, two files of holes
and a directory, one).
"""

from __future__ import annotations

import random
import struct
from functools import lru_cache

from labsim.zfs.compression import BPE_PAYLOAD_SIZE, ZFS_LZ4_HEADER
from labsim.zfs.lz4_zfs import lz4_size

DNODE_SIZE = 512
DNODE_BLOCK_SIZE = 16 * 1024
BLKPTR_SIZE = 128
BONUS_SIZE = 320  # DN_OLD_MAX_BONUSLEN: a legacy dnode's bonus with one block pointer
ZAP_BLKPTRS = 3  # a ZAP object has no bonus: 1 + (320 >> SPA_BLKPTRSHIFT) pointers
# dmu_object_type_t (include/sys/dmu.h)
DMU_OT_PLAIN_FILE_CONTENTS, DMU_OT_DIRECTORY_CONTENTS, DMU_OT_MASTER_NODE = 19, 20, 21
DMU_OT_SA = 44
ZIO_COMPRESS_LZ4 = 15
ZIO_CHECKSUM_FLETCHER_4 = 7
DNODE_FLAGS = 0x0B  # USED_BYTES | USERUSED_ACCOUNTED | USEROBJUSED_ACCOUNTED
INDIRECT_BLOCK_SHIFT = 17
SA_MAGIC = 0x2F505A
ZBT_MICRO = (1 << 63) + 3
# The layout of the attributes below (zdb: "2 = [ 5 6 4 12 13 7 11 0 1 2 3 8 21 16 19 ]")
SA_LAYOUT = 2
TRIVIAL_ACES = 3  # owner@, group@, everyone@ (zfs_acl_chmod() of a new znode)
ROOT_DIRECTORY_OBJECT = 34
# A second of the lab VM's clock: the seconds of a dnode's times repeat across its
# neighbours, whatever the value.
SECONDS = 1_764_120_000

# What a ZPL object's dnode holds, by kind: "empty" a file of no bytes (a pointer never
# written), "hole" a file of only holes, "embedded" a file of one block embedded in its
# pointer, "block" one whose top pointer is a data block (one DVA), "indirect" one whose
# top pointer is an indirect block (metadata: two DVAs), "directory" a directory whose
# micro ZAP is embedded in its pointer.
KINDS = ("empty", "hole", "embedded", "block", "indirect", "directory")


def _dva(rng: random.Random, asize: int) -> bytes:
    """dva_t: the vdev and allocated size in sectors, then the offset in sectors."""
    offset = rng.randrange(1 << 11, 1 << 19)
    return struct.pack("<QQ", asize >> 9, offset)


def _prop(lsize: int, psize: int, kind: int, level: int, compress: int = ZIO_COMPRESS_LZ4,
          embedded: bool = False) -> bytes:
    """blk_prop: sizes in sectors less one, compression, checksum, type, level, and the
    byte order (little endian)."""
    value = ((lsize >> 9) - 1) | ((psize >> 9) - 1) << 16 | compress << 32 \
        | ZIO_CHECKSUM_FLETCHER_4 << 40 | kind << 48 | level << 56 | 1 << 63
    if embedded:  # BPE_SET_PSIZE() in bits 25-31, the embedded flag in bit 39
        value = ((lsize - 1) & 0x1FFFFFF) | (psize - 1) << 25 | compress << 32 | 1 << 39 \
            | kind << 48 | 1 << 63
    return struct.pack("<Q", value)


def _pointer(rng: random.Random, kind: int, lsize: int, psize: int, dvas: int,
             birth: int, level: int = 0) -> bytes:
    """A block pointer to a block of ``psize`` bytes, with ``dvas`` copies."""
    addresses = b"".join(_dva(rng, psize) for _ in range(dvas)) + bytes(16 * (3 - dvas))
    return (addresses + _prop(lsize, psize, kind, level) + bytes(16)
            + struct.pack("<QQQ", 0, birth, 1) + rng.randbytes(32))


def _embedded(rng: random.Random, kind: int, lsize: int, birth: int,
              payload: bytes | None = None) -> bytes:
    """An embedded pointer (the compressed bytes, BPE_PAYLOAD_SIZE at most, around
    blk_prop and blk_birth, include/sys/spa.h); random ones when not given."""
    payload = rng.randbytes(BPE_PAYLOAD_SIZE) if payload is None else payload
    size = len(payload)
    payload += bytes(BPE_PAYLOAD_SIZE - size)
    return (payload[:48] + _prop(lsize, size, kind, 0, embedded=True)
            + payload[48:72] + struct.pack("<Q", birth) + payload[72:])


def _hole(kind: int, lsize: int, birth: int) -> bytes:
    """A hole written as one (hole_birth): its logical size, type and birth."""
    prop = struct.pack("<Q", ((lsize >> 9) - 1) | kind << 48 | 1 << 63)
    return bytes(48) + prop + bytes(24) + struct.pack("<Q", birth) + bytes(40)


def _header(kind: int, levels: int, pointers: int, bonus_type: int, bonus_len: int,
            block_size: int, used: int) -> bytes:
    return struct.pack("<BBBBBBBBHHB3xQQ32x", kind, INDIRECT_BLOCK_SHIFT, levels, pointers,
                       bonus_type, 0, 0, DNODE_FLAGS, block_size >> 9, bonus_len, 0, 0, used)


def _times(rng: random.Random) -> bytes:
    return struct.pack("<QQ", SECONDS, rng.randrange(10**9))


def _sa_bonus(rng: random.Random, directory: bool, birth: int) -> bytes:
    """The znode's system attributes in the bonus (sa_hdr_phys_t with the ACEs' length,
    then the attributes of SA_LAYOUT), padded to BONUS_SIZE."""
    mode, size, links, flags = ((0o40755, 2, 2, 0x40800000144) if directory
                                else (0o100644, rng.randrange(1, 1 << 20), 1, 0x40800000004))
    created, modified = _times(rng), _times(rng)
    attrs = (struct.pack("<IHH", SA_MAGIC, 1 << 10 | SA_LAYOUT, 8 * TRIVIAL_ACES)
             + struct.pack("<7Q", mode, size, birth, 0, 0, ROOT_DIRECTORY_OBJECT, flags)
             + created + modified + modified + created
             + struct.pack("<3Q", links, 0, TRIVIAL_ACES)
             + struct.pack("<HHI", 0, 0x1000, 0x1601A7) + struct.pack("<HHI", 0, 0x2040, 0x120081)
             + struct.pack("<HHI", 0, 0x4000, 0x120081))
    return attrs + bytes(BONUS_SIZE - len(attrs))


def znode_dnode(kind: str, slot: int) -> bytes:
    """The dnode of a ZPL object of ``kind`` (KINDS) in ``slot`` of its block."""
    rng = random.Random(f"{slot}:{kind}")
    birth = 8 + slot
    if kind == "directory":
        return (_header(DMU_OT_DIRECTORY_CONTENTS, 1, 1, DMU_OT_SA, BONUS_SIZE, 512, 0)
                + _embedded(rng, DMU_OT_DIRECTORY_CONTENTS, 512, birth, _empty_micro_zap(rng))
                + _sa_bonus(rng, True, birth))
    block = 128 * 1024
    pointer = {
        "empty": lambda: bytes(BLKPTR_SIZE),
        "hole": lambda: _hole(DMU_OT_PLAIN_FILE_CONTENTS, block, birth),
        "embedded": lambda: _embedded(rng, DMU_OT_PLAIN_FILE_CONTENTS, block, birth),
        "block": lambda: _pointer(rng, DMU_OT_PLAIN_FILE_CONTENTS, block, block, 1, birth),
        "indirect": lambda: _pointer(rng, DMU_OT_PLAIN_FILE_CONTENTS, block, 4096, 2,
                                     birth, level=1),
    }[kind]()
    levels = 2 if kind == "indirect" else 1
    used = 0 if kind in ("empty", "hole", "embedded") else block
    return (_header(DMU_OT_PLAIN_FILE_CONTENTS, levels, 1, DMU_OT_SA, BONUS_SIZE, block, used)
            + pointer + _sa_bonus(rng, False, birth))


def _empty_micro_zap(rng: random.Random) -> bytes:
    """An empty directory's micro ZAP as LZ4 leaves it (with ZFS's header): mzap_phys_t's
    block type and salt, then zeros (mzap_create_impl(), module/zfs/zap_micro.c); its
    compressed bytes stand for themselves here, their length is what counts."""
    block = (ZBT_MICRO.to_bytes(8, "little") + rng.getrandbits(32).to_bytes(8, "little")
             + bytes(512 - 16))
    return rng.randbytes(ZFS_LZ4_HEADER + lz4_size(block, 512))


def master_node_dnode() -> bytes:
    """Object 1, the ZPL master node: a micro ZAP of one 512-byte block (two DVAs), three
    block pointers and no bonus."""
    rng = random.Random("master")
    pointers = _pointer(rng, DMU_OT_MASTER_NODE, 512, 512, 2, 5)
    return (_header(DMU_OT_MASTER_NODE, 1, ZAP_BLKPTRS, 0, 0, 512, 1024)
            + pointers + bytes(DNODE_SIZE - 64 - len(pointers)))


@lru_cache(maxsize=4096)
def first_block_compressed(kinds: tuple[str, ...]) -> int:
    """The bytes LZ4 leaves (with ZFS's 4-byte header) of the first dnode block: object 0
    (the meta-dnode's own slot, zeros), the master node, then one dnode of each of
    ``kinds`` in slots 2 on; the rest zeros. 0 when LZ4 does not fit (stored as is)."""
    dnodes = [bytes(DNODE_SIZE), master_node_dnode(),
              *(znode_dnode(kind, slot) for slot, kind in enumerate(kinds, start=2))]
    data = b"".join(dnodes)[:DNODE_BLOCK_SIZE]
    data += bytes(DNODE_BLOCK_SIZE - len(data))
    size = lz4_size(data, DNODE_BLOCK_SIZE - ZFS_LZ4_HEADER)
    return ZFS_LZ4_HEADER + size if size else 0
