"""VM disk images on ZFS: a raw file, a zvol or a qcow2 file, and what a guest's small write
costs the pool, plus what the guest sees when the pool fills.

The teaching model (stated, not measured per I/O): guest writes are *spread thin*, each
landing in a ZFS record (or volume block) and a qcow2 cluster that no other write touches
in the same transaction group. That is the steady state of random writes over an image much
larger than what one txg writes, and it is the worst case: on a small image several writes
share a record and the pool writes less. Under it:

* ZFS never updates a record in place: a guest write of ``b`` bytes into a record of ``r``
  bytes has the whole record written anew (``r / b`` times the bytes), and a record not in
  the ARC must first be read back to merge the untouched part (read-modify-write;
  labsim.zfs.records.write_cost). A hole (never-written record) needs no read.
* qcow2 adds its own layer. Its clusters (``cluster_size``, 64 KiB by default, a power of
  two from 512 bytes to 2 MiB) sit at multiples of the cluster size in the file, so a
  power-of-two cluster never straddles a power-of-two record: "alignment" is about sizes.
  A write into an *allocated* cluster costs what a raw file costs. The first write into an
  unallocated cluster allocates it at the end of the file and writes the whole cluster:
  the guest's data and the rest of the cluster as zeros (QEMU 7.2 block/qcow2.c
  handle_alloc_space() asks the file for zeroes without fallback, which ZFS 2.1 does not
  offer, so perform_cow() writes them). It also updates an 8-byte L2 entry and a 2-byte
  refcount entry (refcount_bits=16): each dirties the host record holding that table, one
  record each (an upper bound: QEMU's writeback metadata cache merges updates to the same
  table between flushes). ``extended_l2=on`` (QEMU 5.2+) allocates 32 subclusters per
  cluster instead and spares most of the zero-fill: not modelled.
* Indirect blocks, the MOS and uberblocks are left out here (the lab's measured ratio
  includes them; labsim's kstat counter adds them, see the shell's fio).

Lab 7 measures the other end: one pass of small random writes into a fresh, small image
(fresh_image_random_write below). QEMU appends each new cluster to the file, so within a
pass the clusters fill records back to back and the file ends up dense; what the pool
holds afterwards is the clusters touched, whole, plus the tables. On real OpenZFS 2.1.11
that was 13.7 bytes per byte written for 64K clusters on 128K records (the spread-thin
model above gives 96) and 2.19 for 8K clusters on 8K records (model: 6).
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.zfs.records import expected_records_touched

KiB = 1 << 10
MiB = 1 << 20

# qemu-img create -f qcow2 defaults (QEMU 7.2, Debian 12's qemu-utils): cluster_size
# 65536, refcount_bits 16, compat 1.1, lazy_refcounts off, extended_l2 off.
QCOW2_DEFAULT_CLUSTER = 64 * KiB
QCOW2_MIN_CLUSTER = 512
QCOW2_MAX_CLUSTER = 2 * MiB
L2_ENTRY_BYTES = 8
REFCOUNT_ENTRY_BYTES = 2

FORMATS = ("raw", "zvol", "qcow2")


def check_cluster_size(cluster_size: int) -> str | None:
    """None if qemu-img accepts ``cluster_size``, else its message (block/qcow2.c
    qcow2_opt_get_cluster_bits_del() / qcow2_co_create())."""
    if (cluster_size < QCOW2_MIN_CLUSTER or cluster_size > QCOW2_MAX_CLUSTER
            or cluster_size & (cluster_size - 1)):
        return ("Cluster size must be a power of two between 512 and 2048k")
    return None


@dataclass(frozen=True)
class ImageWriteCost:
    """What one guest write costs the pool: ``data`` bytes of records holding the guest's
    bytes, ``zero_fill`` bytes of a new qcow2 cluster's untouched part, ``metadata`` bytes
    of records holding qcow2 tables, and ``read`` bytes read back first."""

    guest: int
    data: int
    zero_fill: int = 0
    metadata: int = 0
    read: int = 0

    @property
    def written(self) -> int:
        return self.data + self.zero_fill + self.metadata

    @property
    def amplification(self) -> float:
        """Bytes written to the pool per byte the guest wrote."""
        return self.written / self.guest if self.guest else 0.0


def records_spanned(offset: int, length: int, record: int) -> int:
    return (offset + length - 1) // record - offset // record + 1 if length > 0 else 0


def image_write_cost(fmt: str, guest_write: int, record: int, *, cluster: int = 0,
                     allocated: bool = True, cached: bool = False,
                     offset: int = 0) -> ImageWriteCost:
    """One guest write of ``guest_write`` bytes at ``offset`` (within its record; 0:
    aligned) into an image of format ``fmt`` ("raw" file with recordsize ``record``,
    "zvol" with volblocksize ``record``, or "qcow2" with ``cluster`` on a file system of
    recordsize ``record``). ``allocated``: the target already holds data (a written
    record, or an allocated qcow2 cluster); ``cached``: its record is in the ARC."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown image format {fmt!r} (known: {', '.join(FORMATS)})")
    if guest_write <= 0 or record <= 0:
        raise ValueError("the write and the record must have a positive size")
    records = records_spanned(offset, guest_write, record)
    partial = guest_write % record != 0 or offset % record != 0
    read = record if (allocated and not cached and partial) else 0
    if fmt != "qcow2" or allocated:
        return ImageWriteCost(guest_write, records * record, read=read)
    if not cluster:
        raise ValueError("a qcow2 image needs its cluster size")
    # A new cluster: the whole cluster is written (data and zeros), in as many records
    # as it covers; a cluster smaller than a record shares the record with its
    # neighbours, appended before it in the same txg (so no read).
    cluster_bytes = max(cluster, record)
    data = records * record
    zero_fill = max(0, cluster_bytes - data)
    metadata = 2 * record  # the L2 table's record and the refcount block's record
    return ImageWriteCost(guest_write, data, zero_fill, metadata, 0)


def steady_amplification(fmt: str, guest_write: int, record: int, cluster: int = 0) -> float:
    """Amplification of spread-thin overwrites of an image already written once (every
    cluster allocated, records not cached)."""
    return image_write_cost(fmt, guest_write, record, cluster=cluster).amplification


def first_write_amplification(fmt: str, guest_write: int, record: int,
                              cluster: int = 0) -> float:
    """Amplification of spread-thin writes into a fresh sparse image (holes, unallocated
    clusters)."""
    return image_write_cost(fmt, guest_write, record, cluster=cluster,
                            allocated=False).amplification


# ---------------------------------------------------------------- when the pool fills

# QEMU's -drive werror (and libvirt's error_policy): what a failed guest write does. The
# default is "enospc": stop the VM on ENOSPC, report other errors (QEMU
# blockdev_get_on_error(); qemu-options.hx, "-drive ... werror=action").
WERROR_POLICIES = ("enospc", "stop", "report", "ignore")
DEFAULT_WERROR = "enospc"


@dataclass(frozen=True)
class PoolFullOutcome:
    """What happens to a guest write when the pool has no space left: whether the write
    fails at all, and what the guest then sees."""

    write_fails: bool
    guest_sees: str


def pool_full_outcome(fmt: str, thick: bool, werror: str = DEFAULT_WERROR) -> PoolFullOutcome:
    """A guest write when the pool is full. A thick zvol (refreservation intact) has its
    space reserved and keeps working: ZFS refuses any snapshot that would break that
    guarantee (labsim.zfs.volume_reservation.snapshot_fits). Everything else (a sparse
    zvol, a raw or qcow2 file) gets ENOSPC, and QEMU's ``werror`` decides what the guest sees."""
    if werror not in WERROR_POLICIES:
        raise ValueError(f"unknown werror policy {werror!r}")
    if fmt == "zvol" and thick:
        return PoolFullOutcome(False, "nothing: the volume's space is reserved")
    if werror in ("enospc", "stop"):
        return PoolFullOutcome(True, "the VM is paused (QEMU stops it on ENOSPC) until "
                                     "space is freed and it is resumed")
    if werror == "report":
        return PoolFullOutcome(True, "an I/O error on its disk (file systems may remount "
                                     "read-only, databases stop)")
    return PoolFullOutcome(True, "nothing at first: the write is dropped silently "
                                 "(data loss)")


# ------------------------------------------------- a fresh image, written once (lab 7)

# A new image's first clusters (qcow2_co_create() in QEMU 7.2 block/qcow2.c): the header,
# the refcount table, the first refcount block and the L1 table; the first L2 table and
# the guest's clusters are allocated after them, in the order the writes need them.
CREATE_CLUSTERS = 4


def l2_coverage(cluster: int) -> int:
    """Guest bytes one L2 table maps: a cluster of 8-byte entries, each for one cluster."""
    return cluster * (cluster // L2_ENTRY_BYTES)


def refcount_coverage(cluster: int) -> int:
    """Image-file bytes one refcount block counts: a cluster of 2-byte entries."""
    return cluster * (cluster // REFCOUNT_ENTRY_BYTES)


@dataclass(frozen=True)
class FreshImageWrite:
    """What one pass of random writes does to a fresh qcow2 image: the guest clusters and
    L2 tables it allocates, and the image file's size afterwards."""

    clusters: int
    l2_tables: int
    refcount_blocks: int
    file_size: int


def fresh_image_random_write(virtual_size: int, cluster: int, bs: int,
                             io_bytes: int) -> FreshImageWrite:
    """fio --rw=randwrite --bs=BS --size=VIRTUAL_SIZE --io_size=IO_BYTES into a fresh qcow2
    image through qemu-nbd. QEMU allocates a cluster on its first write, at the end of the
    file (qcow2_alloc_cluster_offset() -> qcow2_alloc_clusters()), so the file ends up
    dense: its create-time clusters, one L2 table per ``l2_coverage`` of the guest space
    that was written, one refcount block per ``refcount_coverage`` of the file, and every
    guest cluster a write landed in, whole. How many clusters fio's random map touches is
    estimated as for records (labsim.zfs.records.expected_records_touched); measured with
    qemu-img check after the lab's fio job (fio 3.33, QEMU 7.2, Debian 12): 212 of 768 64K
    clusters (estimate 220) and 255 of 6144 8K clusters (estimate 253)."""
    if bs <= 0 or cluster <= 0 or virtual_size < bs:
        raise ValueError("the image, its clusters and the writes must have a positive size")
    guest_clusters = -(-virtual_size // cluster)
    per_cluster = max(1, cluster // bs)
    blocks = virtual_size // bs
    writes = io_bytes // bs
    clusters = round(expected_records_touched(guest_clusters, per_cluster, blocks, writes))
    tables = -(-virtual_size // l2_coverage(cluster))
    per_table = max(1, l2_coverage(cluster) // bs)
    l2_tables = min(tables, max(1, round(expected_records_touched(tables, per_table, blocks,
                                                                  writes))))
    file_clusters = CREATE_CLUSTERS + l2_tables + clusters
    extra_refblocks = 0
    while -(-(file_clusters + extra_refblocks) * cluster // refcount_coverage(cluster)) > (
            1 + extra_refblocks):
        extra_refblocks += 1
    return FreshImageWrite(clusters, l2_tables, extra_refblocks,
                           (file_clusters + extra_refblocks) * cluster)


def fresh_image_amplification(virtual_size: int, cluster: int, record: int, bs: int,
                              io_bytes: int) -> float:
    """Bytes of records the image file holds afterwards per byte fio wrote, compression
    off: the file is dense, so every record up to its end is allocated whole. Indirect
    blocks and the dnode are left out (a few per cent; the lab's USED includes them)."""
    size = fresh_image_random_write(virtual_size, cluster, bs, io_bytes).file_size
    return -(-size // record) * record / io_bytes
