"""Volumes (zvols): thick and sparse, their reservation, and why a full thick volume cannot
be snapshotted on a pool without room for a second copy of it.

``zfs create -V SIZE`` makes a *thick* volume: libzfs sets its refreservation to what the
volume could ever take, its size plus room for its indirect blocks
(zvol_volsize_to_reservation() in lib/libzfs/libzfs_dataset.c, OpenZFS 2.1.11), so writes
to it never run out of space. ``zfs create -s -V SIZE`` makes a *sparse* one: no
reservation, space taken as it is written, like a file.

A snapshot freezes the volume's blocks; the next write to each of them then needs new space.
A dataset with a refreservation must keep its guarantee after the snapshot, so taking one
needs the blocks it would pin, ``MIN(unique bytes, refreservation)``, free outside the
reservation (dsl_dataset_snapshot_reserve_space() in module/zfs/dsl_dataset.c); otherwise
the snapshot fails with ENOSPC, which zfs prints as "out of space". A file system without
refreservation has nothing to guarantee, so the same data snapshots at once. Setting
``refreservation=none`` (or a smaller value) drops the guarantee: the snapshot goes
through, and writes to the volume can then fail when the pool fills.
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.zfs import records as records_mod
from labsim.zfs.datasets import create_dataset
from labsim.zfs.errors import NotSimulated
from labsim.zfs.layouts import RAIDZ
from labsim.zfs.mos import objset_id
from labsim.zfs.objset import objset_changed
from labsim.zfs.pool import Dataset, Extent, File, Pool, property_value
from labsim.zfs.records import expected_records_touched
from labsim.zfs.space import dataset_available, unique_bytes
from labsim.zfs.txg import advance_txg
from labsim.zfs.versions import VolblocksizeWidth
from labsim.zfs.volume_reservation import VolumeSpace, snapshot_fits, volsize_to_reservation
from labsim.zfs.write_path import write_blocks

KiB = 1 << 10


# volblocksize limits labsim models: a power of two from 512 bytes to 128 KiB (larger
# needs large_blocks, not modelled).
MIN_VOLBLOCKSIZE = 512


MAX_VOLBLOCKSIZE = 128 * KiB


def check_volblocksize(volblocksize: int, largest: int = 1 << 20) -> str | None:
    """None if ``volblocksize`` is acceptable, else libzfs's complaint (zfs_valid_proplist(),
    whose limit is the pool's maxblocksize, ``largest``: ZfsVersion.max_recordsize). Sizes
    above MAX_VOLBLOCKSIZE up to that are accepted here; create_volume() says they are not
    simulated (large_blocks)."""
    if volblocksize < MIN_VOLBLOCKSIZE or volblocksize > largest or \
            volblocksize & (volblocksize - 1):
        top = f"{largest >> 20}M"
        return f"'volblocksize' must be power of 2 from 512B to {top}"
    return None


def check_volsize(volsize: int, volblocksize: int) -> str | None:
    """None if ``volsize`` suits the block size, else the reason zfs gives
    (zfs_valid_proplist() / zvol_check_volsize())."""
    if volsize == 0:
        return "volume size cannot be zero"
    if volsize % volblocksize:
        return "volume size must be a multiple of volume block size"
    return None


# ---------------------------------------------------------------- volumes in a labsim pool
# A volume is a Dataset whose properties hold type "volume", volsize, volblocksize and
# refreservation, and whose one object (the volume's data, ZVOL_OBJ) is a File named
# VOLUME_OBJECT: dd and fio write it through /dev/zvol/POOL/NAME. Its records are
# volblocksize bytes (kept as the dataset's recordsize for the write path).


VOLUME_OBJECT = "\0volume"


ZVOL_DIR = "/dev/zvol"


def is_volume(dataset: Dataset) -> bool:
    return dataset.properties.get("type") == "volume"


def raidz_geometry(pool: Pool) -> tuple[tuple[int, int, int], ...]:
    """The pool's RAID-Z top-level vdevs as volsize_from_vdevs() reads them from its
    config: children, parity, ashift."""
    return tuple((v.layout.width, v.layout.nparity, v.ashift) for v in pool.vdevs
                 if v.layout.kind == RAIDZ)


SPA_MINBLOCKSIZE = 512


def allocation_width(pool: Pool) -> int:
    """The allocation width default_volblocksize() sizes the volblocksize for
    (ZfsVersion.volblocksize_width): calculate_volblocksize() over the top-level vdevs, or
    spa_max_alloc (cmd/zfs/zfs_main.c, zfs-2.1.11 and zfs-2.3.9)."""
    width = SPA_MINBLOCKSIZE
    for vdev in pool.vdevs:
        sector = 1 << vdev.ashift
        if pool.version.volblocksize_width is VolblocksizeWidth.VDEV_TREE \
                and vdev.layout.kind == RAIDZ:
            sector *= 2 if vdev.layout.nparity == 1 else 4
        width = max(width, sector)
    return width


def default_volblocksize(pool: Pool, requested: int | None) -> tuple[int, str]:
    """default_volblocksize() (cmd/zfs/zfs_main.c, zfs-2.1.11 and zfs-2.3.9): the block
    size of a new volume and the warning `zfs create` prints on stderr. Without a
    requested size, the smallest power of two from ZVOL_DEFAULT_BLOCKSIZE up that fills
    more than half of the pool's allocation width; with one, that size, and a warning when
    it is below ZVOL_DEFAULT_BLOCKSIZE or below that target."""
    minimum = pool.version.default_volblocksize
    if pool.version.volblocksize_width is VolblocksizeWidth.FIXED:
        return requested or minimum, ""
    width = allocation_width(pool)
    target = minimum
    while target * 2 <= width:
        target *= 2
    if requested is None:
        return target, ""
    if requested < minimum:
        return requested, (
            f"Warning: volblocksize ({requested}) is less than the default minimum block "
            f"size ({minimum}).\nTo reduce wasted space a volblocksize of {target} is "
            "recommended.\n")
    if requested < target:
        return requested, (
            f"Warning: volblocksize ({requested}) is much less than the minimum "
            f"allocation\nunit ({width}), which wastes at least "
            f"{100 * (width - requested) // width}% of space. To reduce wasted space,\n"
            f"use a larger volblocksize ({target} is recommended), fewer dRAID data "
            "disks\nper group, or smaller sector size (ashift).\n")
    return requested, ""


def create_volume(pool: Pool, name: str, volsize: int, *, sparse: bool,
                  volblocksize: int | None = None,
                  properties: dict[str, object] | None = None) -> Dataset:
    """zfs create [-s] -V: a volume, thick (refreservation from volsize_to_reservation)
    unless ``sparse``. Checks as zfs does; raises ValueError with zfs's reason."""
    block = volblocksize or pool.version.default_volblocksize
    reason = (check_volblocksize(block, pool.version.max_recordsize)
              or check_volsize(volsize, block))
    if reason:
        raise ValueError(reason)
    if block > MAX_VOLBLOCKSIZE:
        raise NotSimulated("a volume's volblocksize above 128K (large_blocks)")
    props = dict(properties or {})
    copies = int(str(props.get("copies", 1)))
    props.update({"type": "volume", "volsize": volsize, "volblocksize": block,
                  "recordsize": block,
                  "refreservation": 0 if sparse else volsize_to_reservation(
                      volsize, block, copies, raidz_geometry(pool))})
    dataset = create_dataset(pool, name, props)
    # A volume's objset is smaller than a file system's (no ZPL master node, root
    # directory, delete queue or SA tables): metadata_blocks.volume_blocks(), which
    # create_dataset() allocated (labsim.zfs.objset). In the MOS it has what a file
    # system has (dsl_dataset_create_sync(): a dsl_dir, its props and child map, a
    # dsl_dataset, its snapshot names and deadlist), micro ZAPs of a few entries,
    # embedded in their block pointers: nothing more than a file system's `zfs create`
    # (generated seeds 68, 74 and 84: 0 to 9K more in the root's USEDCHILD, its space
    # maps and history, on 2.1.11 and 2.3.9).
    dataset.files[VOLUME_OBJECT] = File(VOLUME_OBJECT, size=volsize,
                                        object=dataset.next_object, birth=pool.txg)
    dataset.next_object += 1
    return dataset


def device_volume(pools: dict[str, Pool], path: str) -> tuple[Pool, Dataset] | None:
    """The volume behind /dev/zvol/POOL/NAME (the udev link zvol_id makes)."""
    if not path.startswith(ZVOL_DIR + "/"):
        return None
    name = path[len(ZVOL_DIR) + 1:]
    pool = pools.get(name.split("/")[0])
    if pool is None or name not in pool.datasets or not is_volume(pool.datasets[name]):
        return None
    return pool, pool.datasets[name]


def volume_links(pools: dict[str, Pool], directory: str) -> list[str] | None:
    """Entries of a directory under /dev/zvol: a pool's directory lists its volumes (and
    the directories of datasets holding volumes); None if there is no such directory."""
    if not directory.startswith(ZVOL_DIR + "/"):
        return None
    prefix = directory[len(ZVOL_DIR) + 1:] + "/"
    pool = pools.get(prefix.split("/")[0])
    if pool is None:
        return None
    entries = {n[len(prefix):].split("/")[0] for n, d in pool.datasets.items()
               if n.startswith(prefix) and is_volume(d)}
    return sorted(entries) or None


def snapshot_refusal(pool: Pool, dataset: Dataset, name: str) -> str | None:
    """zfs snapshot's "out of space" (ENOSPC from dsl_dataset_snapshot_reserve_space(),
    zfs_standard_error()) when the blocks the snapshot would pin do not fit outside the
    dataset's refreservation; None if the snapshot can be taken."""
    reservation = int(str(dataset.properties.get("refreservation", 0) or 0))
    if not reservation:
        return None
    space = VolumeSpace(reservation, 0, unique_bytes(pool, dataset))
    outside = dataset_available(pool, dataset) - space.usedbyrefreservation
    if snapshot_fits(space, outside):
        return None
    return f"cannot create snapshot '{name}': out of space"


# ---------------------------------------------------------------- random small writes


@dataclass(frozen=True)
class RandomWrite:
    """What a run of small random writes cost: records touched, of which newly allocated
    (holes), and the bytes the pool wrote (data records, indirect blocks, txg overhead)."""

    records: int
    new_records: int
    pool_bytes: int


def random_write(pool: Pool, dataset: Dataset, name: str, region: int, bs: int,
                 io_bytes: int) -> RandomWrite:
    """fio --rw=randwrite --bs=BS --size=REGION --io_size=IO_BYTES on an existing file or
    volume of the dataset. Each touched record is written whole (copy-on-write; compression
    off as in the lab): a record that was a hole is allocated anew, an allocated one is
    rewritten elsewhere and its old copy freed (no net space). The indirect blocks above
    the touched records are written too, two copies each (ditto), at their compressed size
    for the pointers they hold; plus one more sector pair for the object's dnode block.
    Lab 7's recordings (2.1.11, ashift 12) put the indirect blocks of 253 scattered 8K
    blocks at 72K and of 179 scattered 128K records at 24K; this gives 64K and 24K.
    Which records fio touches is estimated (expected_records_touched), not fio's own
    random sequence: the recordings show 179 of 384 records where the estimate is 188."""
    file = dataset.files[name]
    record = int(str(property_value(pool, dataset, "recordsize")[0]))
    records = -(-region // record)
    per = max(1, record // bs)
    touched = round(expected_records_touched(records, per, region // bs, io_bytes // bs))
    vdev = max(pool.vdevs, key=lambda v: v.free)
    asize = vdev.psize_to_asize(record)
    data_extents = [e for e in file.extents if e.block_size == asize]
    allocated = sum(e.length for e in data_extents) // asize
    holes = max(0.0, 1.0 - allocated / records) if records else 0.0
    new = round(touched * holes)
    if new:
        new, _ = write_blocks(pool, dataset, file, record, new, record, allocated,
                               objset_id(pool, dataset))
        file.logical += new * record
        file.compressed += new * record
        _grow_indirects(pool, file, records, allocated + new)
    objset_changed(pool, dataset)
    rewritten = touched - new
    vdev.write_bytes += rewritten * asize
    vdev.write_ops += rewritten
    advance_txg(pool)
    return RandomWrite(touched, new, touched * asize)


def _grow_indirects(pool: Pool, file: File, records: int, filled: int) -> None:
    """Replace the file's indirect blocks by those of ``filled`` records scattered over
    ``records``: per level, ceil(blocks / 1024) blocks sharing the pointers evenly."""
    vdev = max(pool.vdevs, key=lambda v: v.free)
    for extent in [e for e in file.extents if not e.block]:  # the single-block ones
        vdev_of = pool.top(extent.vdev)
        vdev_of.release(extent.offset, extent.length)
        file.extents.remove(extent)
    sizes = []
    span, pointers = records, filled
    while span > 1:
        blocks = -(-span // records_mod.POINTERS_PER_INDIRECT)
        each = max(1, -(-pointers // blocks))
        sizes += [records_mod.indirect_psize(min(each, records_mod.POINTERS_PER_INDIRECT),
                                             pool.min_ashift)] * blocks
        span, pointers = blocks, blocks
    sizes.append(1 << pool.min_ashift)  # the object's dnode block, rewritten
    for psize in sizes:
        for _ in range(records_mod.METADATA_COPIES):
            asize = vdev.psize_to_asize(psize)
            if vdev.free < asize:
                return
            for offset, length in vdev.take(asize):
                file.extents.append(Extent(vdev.id, offset, length,
                                           dvas=records_mod.METADATA_COPIES))
