"""What metadata blocks cost at a pool's ashift, and the blocks of a file system's own
object set.

A metadata block is always compressed (dmu_write_policy(): metadata gets LZ4 whatever the
dataset's compression, module/zfs/dmu.c), and zio_write_compress() (module/zfs/zio.c)
rounds what LZ4 leaves up to the sector, or stores the block as it is when that would not
be smaller. So the same block costs one 512-byte sector or two at ashift 9 and one 4K
sector at ashift 12, and a 512-byte micro ZAP costs 512 bytes of physical size in both but
a whole sector of allocation. Logical space counts metadata by its physical size
(BP_GET_UCSIZE()); USED and REFER count every copy's allocated size, deflated on RAID-Z
(bp_get_dsize()).

The blocks of an empty ZPL file system, as `zdb -dd` lists its objects on OpenZFS 2.3.9 at
ashift 9 and 12 (tests/fixtures/real/2.3.9/probes/lab15-mos-composition.txt; 2.1.11 shows
the same 96K of REFER and 42K of logicalreferenced at ashift 12): its objset_phys_t; a
meta-dnode of six levels (dmu_objset_create_impl() gives it the levels to address
DN_MAX_OBJECT dnodes), so five 128K indirect blocks of one or two pointers above its
16K dnode blocks; the master node, a 512-byte micro ZAP of too many entries to embed; the
SA attribute registration (a 1.5K micro ZAP) and the SA layouts (a fat ZAP of two 16K
blocks). The SA master node, the delete queue, the root directory while it names few
files, and the user, group and project accounting ZAPs compress to BPE_PAYLOAD_SIZE or
less and are embedded in their block pointers (zio_write_compress()): they allocate
nothing. Every block has two copies (dmu_write_policy(): one more than the data's).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from labsim.zfs import compression
from labsim.zfs.dnode_contents import first_block_compressed
from labsim.zfs.lz4_zfs import Lz4State, lz4_block_size, lz4_size_resumed, words_of
from labsim.zfs.records import indirect_compressed
from labsim.zfs.vdevs import TopVdev
from labsim.zfs.versions import KiB, MetaBlock, MinSavings

DNODE_BLOCK_SIZE = 16 * KiB  # DNODE_BLOCK_SHIFT 14
DNODES_PER_BLOCK = DNODE_BLOCK_SIZE // 512  # 512-byte dnodes (dnodesize=legacy)
INDIRECT_BLOCK_SIZE = 128 * KiB  # DN_MAX_INDBLKSHIFT 17
OBJSET_PHYS_SIZE = 4 * KiB  # OBJSET_PHYS_SIZE_V3: user, group and project used dnodes
META_DNODE_LEVELS = 6
DATASET_METADATA_COPIES = 2
# What one used dnode adds to its dnode block once LZ4 has been over it, for the dnode
# blocks after the first and the blocks labsim.zfs.snapshots versions (the first block of
# a file system is compressed from its dnodes' bytes, labsim.zfs.dnode_contents): of its
# 512 bytes, the block pointer's checksum and DVA offsets do not compress, the header and
# the system attributes' bonus mostly repeat their neighbours. An estimate inside what the recording
# allows: the dnode block holding five (objects 32-36) compressed to more than 512 bytes
# and at most 1024, the one holding two (the master node and a file) to at most 512.
DNODE_LZ4_BYTES = 128
# The objects of a new file system in its second dnode block (32-36: SA master node,
# delete queue, root directory, SA registration, SA layouts), and the first object
# number a file gets after the master node (object 1).
FS_OBJECTS_IN_SECOND_BLOCK = 5
FIRST_FILE_OBJECT = 2
# A micro ZAP (include/sys/zap_impl.h): a 64-byte header (block type, salt, normalization
# flags), then 64-byte entries (value, collision differentiator, a 50-byte name).
MZAP_ENT_LEN = 64
MZAP_NAME_LEN = 50
DT_DIR, DT_REG = 4, 8  # <dirent.h>
# The first object number of another CPU's chunk (dmu_object_alloc_impl(): each CPU takes
# dmu_object_alloc_chunk_shift, 128 objects, at a time).
OTHER_CHUNK_FIRST_OBJECT = 128
ZBT_MICRO = (1 << 63) + 3
# A top-level vdev's array of its metaslabs' unflushed txgs
# (VDEV_TOP_ZAP_MS_UNFLUSHED_PHYS_TXGS: a uint64 object of one 128K block, metaslab_sync()
# in module/zfs/metaslab.c), a MOS object: LZ4 leaves 1K of it (zdb, 2.1.11 and 2.3.9).
UNFLUSHED_TXGS_BLOCK = MetaBlock(128 * KiB, 1 * KiB, copies=3)
# A space map's data block, which a metaslab's space map gets at its first flush and a log
# space map in its txg: 128K of a few entries (zfs_metaslab_sm_blksz_with_log,
# module/zfs/metaslab.c), which LZ4 leaves at 1K or less (zdb at ashift 9, 2.1.11 and
# 2.3.9: every "SPA space map" block that holds data has a physical size of 1K), stored
# with the MOS's three copies: 3K in all at ashift 9 and 12K at ashift 12 on a mirror.
# labsim.zfs.txg charges them as the MOS's blocks (labsim.zfs.mos.add_mos_blocks), so
# ALLOC counts them as USED does.
SPACE_MAP_BLOCK = MetaBlock(128 * KiB, 1 * KiB, copies=3)
# Right after `zpool create` the MOS holds five of them: the log space maps of the three
# txgs the create syncs and the space maps of the two metaslabs flushed in the last two
# (labsim.zfs.lifecycle.create_pool, labsim.zfs.spacemaps).
NEW_POOL_SPACE_MAPS = (replace(SPACE_MAP_BLOCK, count=5),)
# The SA layouts, a fat ZAP of two 16K blocks (the attribute layouts of the objects the
# file system holds, sa_attr_register_sync() in module/zfs/sa.c): its header, which LZ4
# leaves one sector of, and a leaf of seven (zdb -dddddd on 2.3.9 at ashift 9,
# tests/fixtures/real/2.3.9/probes/lab15-objset-blocks.txt: 200P and e00P). On RAID-Z the
# split matters: parity and padding cost more for one block of seven sectors and one of
# one than for two of four.
SA_LAYOUTS = (MetaBlock(16 * KiB, 512, copies=DATASET_METADATA_COPIES),
              MetaBlock(16 * KiB, 3584, copies=DATASET_METADATA_COPIES))


@dataclass(frozen=True)
class Cost:
    """What blocks take: ``allocated`` bytes of every copy as USED counts them (deflated
    on RAID-Z), ``physical`` bytes of one copy each (what logical space counts of
    metadata)."""

    allocated: int = 0
    physical: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.allocated + other.allocated, self.physical + other.physical)


def block_psize(block: MetaBlock, ashift: int, rule: MinSavings) -> int:
    """zio_write_compress()'s physical size of one such block: the compressed size
    rounded up to the sector, or the logical size when that is not smaller."""
    return compression.psize_after_rounding(block.lsize, block.compressed, ashift, rule)


def cost(blocks: Iterable[MetaBlock], vdev: TopVdev, rule: MinSavings) -> Cost:
    """The blocks' cost on ``vdev`` (its ashift, asize and deflate rules)."""
    allocated = physical = 0
    for block in blocks:
        psize = block_psize(block, vdev.ashift, rule)
        if not psize:
            continue
        allocated += block.count * block.copies * vdev.deflate(vdev.psize_to_asize(psize))
        physical += block.count * psize
    return Cost(allocated, physical)


def dnode_block_compressed(dnodes: int) -> int:
    """A 16K dnode block holding ``dnodes`` used dnodes, after LZ4."""
    return (compression.ZFS_LZ4_HEADER + dnodes * DNODE_LZ4_BYTES
            + compression.length_bytes(DNODE_BLOCK_SIZE - dnodes * 512))


def micro_zap_bytes(entries: Iterable[tuple[str, int]], salt_seed: int = 0) -> bytes:
    """A micro ZAP block of ``entries`` (name, value) in order, as mzap_phys_t lays them
    out: a 64-byte header, then 64-byte entries (value, collision differentiator, name).
    The block is 512 bytes and grows by 512 whenever an entry finds every chunk taken
    (zap_lockdir_impl() in module/zfs/zap_micro.c), so it is the smallest multiple of 512
    with a chunk for every entry. The salt comes from ``salt_seed`` (_mzap_header())."""
    return _mzap_block(b"".join([_mzap_header(salt_seed),
                                 *(_mzap_entry(name, value) for name, value in entries)]))


def _mzap_block(body: bytes) -> bytes:
    """The header and entries padded to the micro ZAP's block: 512 bytes and more, in steps
    of 512 (SPA_MINBLOCKSIZE)."""
    return body + bytes(max(512, -(-len(body) // 512) * 512) - len(body))


@lru_cache(maxsize=16)
def _mzap_header(salt_seed: int) -> bytes:
    """mzap_phys_t's header. The salt is two kernel addresses XORed (the dbuf's and the
    transaction's, mzap_create_impl() in module/zfs/zap_micro.c): both lie in the kernel's
    direct map, so their high bytes cancel and, in a VM of a few GiB, only the low four
    bytes vary. labsim draws those from ``salt_seed``."""
    salt = random.Random(salt_seed).getrandbits(32) | 1
    return (ZBT_MICRO.to_bytes(8, "little") + salt.to_bytes(8, "little")
            + bytes(MZAP_ENT_LEN - 16))


@lru_cache(maxsize=8192)
def _mzap_entry(name: str, value: int) -> bytes:
    """mzap_ent_phys_t: the value, a collision differentiator of 0, two bytes of padding,
    the name NUL-padded to MZAP_NAME_LEN."""
    encoded = name.encode()[:MZAP_NAME_LEN - 1]
    return value.to_bytes(8, "little") + bytes(6) + encoded.ljust(MZAP_NAME_LEN, b"\0")


def _object_numbers(first: int, count: int) -> list[int]:
    """Object numbers handed to new files from ``first`` on, skipping the file system's own
    objects (32-36, the second dnode block)."""
    skip_from = DNODES_PER_BLOCK
    return [n if n < skip_from else n + FS_OBJECTS_IN_SECOND_BLOCK
            for n in range(first, first + count)]


def dnode_block_of(file_object: int) -> int:
    """The dnode block holding the dnode of the file labsim numbered ``file_object``
    (Dataset.next_object counts from FIRST_FILE_OBJECT): the real object number skips the
    file system's own objects (_object_numbers()), and a 16K dnode block holds
    DNODES_PER_BLOCK of them (dnodesize=legacy)."""
    # _object_numbers(file_object, 1)[0], written out: a listing asks this of every file
    # of every snapshot.
    number = (file_object if file_object < DNODES_PER_BLOCK
              else file_object + FS_OBJECTS_IN_SECOND_BLOCK)
    return number // DNODES_PER_BLOCK


def mountpoint_dnode_block(other_chunk: bool) -> str:
    """The dnode block of a mountpoint directory made in a file system
    (labsim.zfs.objset): in the first chunk's first block, beside the files, or in a
    block of another CPU's chunk."""
    return "other chunk" if other_chunk else "0"


def directory_entries(files: Iterable[str], subdirectories: Iterable[str] = (),
                      other_chunk: Iterable[str] = ()) -> tuple[tuple[str, int], ...]:
    """A root directory's entries in the order they were added: the files, with object
    numbers from 2 (skipping the file system's own objects), its subdirectories in the
    same chunk of object numbers, then those made from another CPU's chunk
    (labsim.zfs.objset)."""
    files, subdirectories = tuple(files), tuple(subdirectories)
    numbers = _object_numbers(FIRST_FILE_OBJECT, len(files) + len(subdirectories))
    regular, directory = DT_REG << 60, DT_DIR << 60
    entries = [*zip(files, [regular | n for n in numbers[:len(files)]], strict=True),
               *zip(subdirectories, [directory | n for n in numbers[len(files):]],
                    strict=True)]
    entries.extend((name, directory | (OTHER_CHUNK_FIRST_OBJECT + i))
                   for i, name in enumerate(other_chunk))
    return tuple(entries)


@dataclass
class _CompressedDirectory:
    """A micro ZAP's bytes, their words (lz4_zfs.words_of()), LZ4's state before its last
    entry's slot, and its compressed size."""

    data: bytes
    words: list[int]
    state: Lz4State | None
    lz4: int


Names = tuple[str, ...]
DirectoryKey = tuple[Names, Names, Names]  # files, subdirectories, other chunk


class _DirectoryMemo:
    """The compressed sizes of the last directories seen, and what a directory one file
    longer can be compressed from. A directory gains its entries at its end, so the next
    block starts with the bytes of the last: LZ4 resumes before the new entry
    (lz4_zfs.lz4_size_resumed()), and the bytes and words grow in place, so that creating
    N files costs about N entries' worth of work instead of N squared. A bounded memo:
    it changes no result, and a directory not found in it is compressed from scratch."""

    LIMIT = 16

    def __init__(self) -> None:
        self.known: dict[DirectoryKey, _CompressedDirectory] = {}

    def lz4(self, key: DirectoryKey) -> tuple[int, int]:
        """(block size, LZ4's bytes) of the micro ZAP of the directory ``key`` names."""
        found = self.known.get(key)
        if found is None:
            found = self._grown(key) or self._compressed(key)
            if len(self.known) >= self.LIMIT:
                del self.known[next(iter(self.known))]
            self.known[key] = found
        return len(found.data), found.lz4

    def _compressed(self, key: DirectoryKey) -> _CompressedDirectory:
        entries = directory_entries(*key)
        data = micro_zap_bytes(entries)
        words = words_of(data)
        size, state = lz4_size_resumed(data, len(data), None,
                                       MZAP_ENT_LEN * (len(entries) + 1), words)
        return _CompressedDirectory(data, words, state, size)

    def _grown(self, key: DirectoryKey) -> _CompressedDirectory | None:
        """The directory of ``key`` from the one without its last file, taken out of the
        memo (its bytes and words are reused in place). Only a directory whose files come
        last (no subdirectories) grows at its end."""
        files, subdirectories, other_chunk = key
        if not files or subdirectories or other_chunk:
            return None
        before = self.known.pop((files[:-1], (), ()), None)
        if before is None:
            return None
        slot = MZAP_ENT_LEN * len(files)
        number = _object_numbers(FIRST_FILE_OBJECT + len(files) - 1, 1)[0]
        data = _mzap_block(before.data[:slot] + _mzap_entry(files[-1], DT_REG << 60 | number))
        words = before.words
        del words[max(0, slot - 3):]
        words.extend(words_of(data[max(0, slot - 3):]))
        size, state = lz4_size_resumed(data, len(data), before.state, slot + MZAP_ENT_LEN,
                                       words)
        return _CompressedDirectory(data, words, state, size)


_directory_memo = _DirectoryMemo()


def directory_block(files: Names, subdirectories: Names = (),
                    other_chunk: Names = ()) -> MetaBlock | None:
    """The directory's micro ZAP as a block, or None when it is embedded in its block
    pointer (it compresses to BPE_PAYLOAD_SIZE or less). mzap_upgrade() to a fat ZAP, past
    zap_micro_max_size (128K: 2,047 entries) or for a name of 50 bytes or more, is not
    modelled: such a directory is counted as a micro ZAP of the names cut short."""
    size, lz4 = _directory_memo.lz4((files, subdirectories, other_chunk))
    return _stored(size, lz4, DATASET_METADATA_COPIES)


@lru_cache(maxsize=256)
def micro_zap_block(entries: tuple[tuple[str, int], ...], copies: int) -> MetaBlock | None:
    """A micro ZAP of ``entries`` (name, value) as the block that stores it, or None when
    LZ4 leaves BPE_PAYLOAD_SIZE bytes or fewer of it and it lives in its block pointer
    (zio_write_compress() in module/zfs/zio.c, 2.1.11 and 2.3.9)."""
    data = micro_zap_bytes(entries)
    return _stored(len(data), lz4_block_size(data, len(data)), copies)


# The pool's map of its vdevs' ZAPs, spa_all_vdev_zaps ("com.delphix:vdev_zap_map"), has
# an entry for each ZAP vdev_construct_zaps() makes (module/zfs/vdev.c): every leaf's,
# every top-level vdev's (a single-device top-level vdev has both) and, from 2.2 on (the
# vdev_zaps_v2 feature), the root vdev's; each is named by its object number in hex
# (vdev_create_link_zap(), zap_add_int()). Their object numbers follow the map's.
VDEV_ZAP_MAP_FIRST_ENTRY = 129


def vdev_zap_map(widths: Iterable[int], root_zap: bool) -> MetaBlock | None:
    """The vdev ZAP map of top-level vdevs of ``widths`` leaves each (and the root vdev's
    ZAP with ``root_zap``) as a block, or None while LZ4 leaves little enough of it to
    live in its block pointer: up to six entries (105 bytes); seven take 118 bytes and a
    block, eight a micro ZAP of 1K. Three copies, as every MOS block. Recorded on 2.3.9:
    the map (object 128) at 0 on a RAID-Z1 of four files (six ZAPs with the root's:
    tests/fixtures/real/2.3.9/probes/lab15-mos-set.txt), at 19K of dsize on a RAID-Z3 of
    five (seven: lab15-rm-records.txt) and at 24K and 1K of logical size on a RAID-Z2 of
    six (eight: lab15-deadlist-bpobj.txt)."""
    count = sum(width + 1 for width in widths) + (1 if root_zap else 0)
    first = VDEV_ZAP_MAP_FIRST_ENTRY
    return micro_zap_block(tuple((f"{n:x}", n) for n in range(first, first + count)), 3)


def _stored(size: int, lz4: int, copies: int) -> MetaBlock | None:
    """A metadata block of ``size`` bytes that LZ4 left ``lz4`` bytes of (0: they did not
    fit, and it is stored as it is), or None when it is embedded."""
    if not lz4:
        return MetaBlock(size, size, copies=copies)
    compressed = lz4 + compression.ZFS_LZ4_HEADER
    if compressed <= compression.BPE_PAYLOAD_SIZE:
        return None
    return MetaBlock(size, compressed, copies=copies)


@dataclass(frozen=True)
class ObjsetCopies:
    """How many copies an objset's blocks have (labsim.zfs.objset_copies): ``created``
    for those written once when the objset was made (the ZPL master node and SA
    registration), ``changed`` for those every change rewrites (the objset block, the
    meta-dnode's indirect blocks, the dnode blocks, the root directory), ``layouts`` for
    the SA layouts, written when the objset was made and again when a new layout is
    registered (the pool's root file system's first file or directory,
    labsim.zfs.objset.objset_changed())."""

    created: int = DATASET_METADATA_COPIES
    changed: int = DATASET_METADATA_COPIES
    layouts: int = DATASET_METADATA_COPIES


DEFAULT_COPIES = ObjsetCopies()


def filesystem_blocks(file_names: Iterable[str] = (),
                      copies: ObjsetCopies = DEFAULT_COPIES,
                      subdirectories: Iterable[str] = (),
                      other_chunk: Iterable[str] = (),
                      file_kinds: Iterable[str] | None = None) -> tuple[MetaBlock, ...]:
    files = tuple(file_names)
    kinds = tuple(file_kinds) if file_kinds is not None else ("block",) * len(files)
    return _filesystem_blocks(files, copies, tuple(subdirectories), tuple(other_chunk),
                              kinds)


@lru_cache(maxsize=256)
def _filesystem_blocks(files: tuple[str, ...], objset_copies: ObjsetCopies,
                       subdirectories: tuple[str, ...] = (),
                       other_chunk: tuple[str, ...] = (),
                       kinds: tuple[str, ...] = ()) -> tuple[MetaBlock, ...]:
    """The metadata blocks of a ZPL file system holding ``files`` (their dnodes of
    ``kinds``, labsim.zfs.dnode_contents.KINDS) and ``subdirectories`` in its root
    directory, and ``other_chunk``, directories made there from another CPU's chunk of
    object numbers (labsim.zfs.objset; files' own indirect blocks are counted with the
    files). The first dnode block's size is what LZ4 leaves of its dnodes
    (dnode_contents.first_block_compressed()); the others' an estimate
    (dnode_block_compressed())."""
    names = files + subdirectories
    copies, once = objset_copies.changed, objset_copies.created
    # Dnode blocks: the first holds the master node and the files (objects 2-31), the
    # second the file system's own objects, later ones the files after object 31, and
    # one more the other chunk's objects.
    per_block = [1 + min(len(names), DNODES_PER_BLOCK - FIRST_FILE_OBJECT),
                 FS_OBJECTS_IN_SECOND_BLOCK]
    rest = len(names) - (DNODES_PER_BLOCK - FIRST_FILE_OBJECT)
    while rest > 0:
        per_block.append(min(rest, DNODES_PER_BLOCK))
        rest -= DNODES_PER_BLOCK
    if other_chunk:
        per_block.append(min(len(other_chunk), DNODES_PER_BLOCK))
    first = (kinds + ("directory",) * len(subdirectories))[:DNODES_PER_BLOCK - FIRST_FILE_OBJECT]
    blocks = [
        MetaBlock(OBJSET_PHYS_SIZE, 512, copies),
        # L5 to L2 of the meta-dnode point at one block each; L1 at the dnode blocks.
        MetaBlock(INDIRECT_BLOCK_SIZE, indirect_compressed(1), copies,
                  count=META_DNODE_LEVELS - 2),
        MetaBlock(INDIRECT_BLOCK_SIZE, indirect_compressed(len(per_block)), copies),
        MetaBlock(DNODE_BLOCK_SIZE, first_block_compressed(first), copies),
        *(MetaBlock(DNODE_BLOCK_SIZE, dnode_block_compressed(n), copies)
          for n in per_block[1:]),
        MetaBlock(512, 512, once),  # the master node
        MetaBlock(1536, 512, once),  # SA attribute registration
        *(replace(block, copies=objset_copies.layouts) for block in SA_LAYOUTS),
    ]
    directory = directory_block(files, subdirectories, other_chunk)
    if directory is not None:
        blocks.append(replace(directory, copies=copies))
    return tuple(blocks)


EMPTY_FILESYSTEM = filesystem_blocks()


def copy_psizes(blocks: Iterable[MetaBlock], ashift: int, rule: MinSavings,
                with_copy: bool = False) -> list:
    """The physical size of every copy of every block, in order (holes and embedded
    blocks left out): what has to be allocated to write them. ``with_copy``: (psize,
    copy number within its block, the block) triples."""
    out: list = []
    for block in blocks:
        psize = block_psize(block, ashift, rule)
        if psize:
            if with_copy:
                out += [(psize, copy, block) for _ in range(block.count)
                        for copy in range(block.copies)]
            else:
                out += [psize] * (block.count * block.copies)
    return out


def rewritten_group(group: str) -> tuple[MetaBlock, ...]:
    """The blocks a change to a file system rewrites, by group (labsim.zfs.snapshots
    follows them through a snapshot chain): "objset", the objset_phys_t, and "root", the
    meta-dnode's indirect blocks, rewritten by any change (the objset block alone also by
    dsl_dataset_zero_zil(), labsim.zfs.snapshots); "dir", the second dnode block, which holds
    the root directory (objects 32-36) and is rewritten when a name is made or removed in
    it (its micro ZAP is embedded while it names few files); "sa", the SA layouts,
    rewritten when the first regular file registers its layout; "dnode", one dnode block
    of files (dnode_block_of()), rewritten when a file in it is created, written or
    removed. Every one has the dataset's metadata copies (dmu_write_policy()). At ashift
    12 on 2.1.11 and 2.3.9 (tests/fixtures/real/*/06-snapshots*) that is 56K of unique
    metadata for a snapshot after which one file was rewritten (the root group and the
    file's dnode block, 48K and 8K), 64K after one file was removed and another created
    in the same dnode block (the root directory's block too)."""
    copies = DATASET_METADATA_COPIES
    if group == "objset":
        return (MetaBlock(OBJSET_PHYS_SIZE, 512, copies),)
    if group == "root":
        return (MetaBlock(INDIRECT_BLOCK_SIZE, indirect_compressed(1), copies,
                          count=META_DNODE_LEVELS - 1),)
    if group == "dir":
        return (MetaBlock(DNODE_BLOCK_SIZE, dnode_block_compressed(FS_OBJECTS_IN_SECOND_BLOCK),
                          copies),)
    if group == "sa":
        return SA_LAYOUTS
    if group == "dnode":
        return (MetaBlock(DNODE_BLOCK_SIZE, dnode_block_compressed(2), copies),)
    raise ValueError(f"unknown metadata group {group!r}")


def volume_blocks(objset_copies: ObjsetCopies = DEFAULT_COPIES) -> tuple[MetaBlock, ...]:
    """The metadata blocks of a volume's objset (zvol_create_cb(): the data object 1 and
    the "zvol prop" micro ZAP, object 2, embedded while it holds only its size): the
    objset_phys_t, the meta-dnode's five indirect blocks and one dnode block. 6K of
    logicalreferenced at ashift 9 on 2.3.9 (generated seed 8's empty volume), 56K of REFER
    at ashift 12 on 2.1.11 (lab 7's new volumes). Every one of them is rewritten by a
    write to the volume."""
    copies = objset_copies.changed
    return (MetaBlock(OBJSET_PHYS_SIZE, 512, copies),
            MetaBlock(INDIRECT_BLOCK_SIZE, indirect_compressed(1), copies,
                      count=META_DNODE_LEVELS - 1),
            MetaBlock(DNODE_BLOCK_SIZE, dnode_block_compressed(2), copies))
