"""A volume's refreservation in numbers: what ``zfs create -V`` sets for a thick volume,
USEDREFRESERV, and what a snapshot of the volume needs free (labsim.zfs.zvols tells the
story and applies it to a pool's volumes; labsim.zfs.space counts it in AVAIL and USED).

Pure functions of sizes, from zvol_volsize_to_reservation() in lib/libzfs/libzfs_dataset.c
and dsl_dataset_snapshot_reserve_space() in module/zfs/dsl_dataset.c (OpenZFS 2.1.11 and
2.3.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from labsim.zfs.layouts import raidz_asize
from labsim.zfs.records import SPA_DVAS_PER_BP

# DN_MAX_INDBLKSHIFT (include/sys/dnode.h): indirect blocks of 128 KiB, 1024 pointers each
# (DNODES_PER_LEVEL = 1 << (DN_MAX_INDBLKSHIFT - SPA_BLKPTRSHIFT)).
DN_MAX_INDBLKSHIFT = 17


DNODES_PER_LEVEL = 1 << (DN_MAX_INDBLKSHIFT - 7)


# The meta-dnode's levels L0..L6 that zvol_volsize_to_reservation() counts first.
METADNODE_LEVELS = 7


def reservation_metadata_blocks(volsize: int, volblocksize: int, copies: int = 1) -> int:
    """How many 128 KiB metadata blocks zvol_volsize_to_reservation() budgets: the
    meta-dnode's seven levels plus one indirect block per 1024 pointers at every level
    above the data, times the copies metadata gets (one more than the data's, at most
    SPA_DVAS_PER_BP)."""
    blocks = volsize // volblocksize
    count = METADNODE_LEVELS
    while blocks > 1:
        blocks = (blocks + DNODES_PER_LEVEL - 1) // DNODES_PER_LEVEL
        count += blocks
    return count * min(SPA_DVAS_PER_BP, copies + 1)


# A RAID-Z top-level vdev as volsize_from_vdevs() reads it from the pool's config:
# (children, parity, ashift).
RaidzGeometry = tuple[int, int, int]
SPA_OLD_MAXBLOCKSIZE = 128 * 1024
SPA_MINBLOCKSHIFT = 9


def volsize_from_vdevs(nblocks: int, blksize: int,
                       raidz: Sequence[RaidzGeometry] = ()) -> int:
    """volsize_from_vdevs() (lib/libzfs/libzfs_dataset.c, 2.1.11 and 2.3.9): one copy of
    the volume's data as it would land on the least space-efficient RAID-Z vdev, scaled
    by what a 128K block costs there (the space accounting's deflate ratio), or the data
    as it is on a pool without RAID-Z. A 16K block on a RAID-Z1 of five gives 1.2 times
    the data; 8K on a RAID-Z2 of six, two times."""
    largest = 0
    for ndisks, nparity, ashift in raidz:
        tsize = raidz_asize(SPA_OLD_MAXBLOCKSIZE, ashift, ndisks, nparity)
        asize = raidz_asize(blksize, ashift, ndisks, nparity)
        volsize = (nblocks * asize) // (tsize >> SPA_MINBLOCKSHIFT)
        largest = max(largest, volsize * (SPA_OLD_MAXBLOCKSIZE >> SPA_MINBLOCKSHIFT))
    return largest or nblocks * blksize


def volsize_to_reservation(volsize: int, volblocksize: int, copies: int = 1,
                           raidz: Sequence[RaidzGeometry] = ()) -> int:
    """The refreservation ``zfs create -V`` gives a thick volume: the data blocks (volsize
    rounded down to whole blocks, scaled for RAID-Z parity and padding by
    volsize_from_vdevs(), times ``copies``) plus the budgeted metadata counted as
    uncompressed 128 KiB blocks."""
    data = volsize_from_vdevs(volsize // volblocksize, volblocksize, raidz) * copies
    return data + reservation_metadata_blocks(volsize, volblocksize, copies) * (
        1 << DN_MAX_INDBLKSHIFT)


@dataclass(frozen=True)
class VolumeSpace:
    """A volume's space in the terms `zfs list` uses. ``referenced`` is what its blocks
    take now; ``unique`` the part no snapshot shares (equal to ``referenced`` without
    snapshots); ``refreservation`` 0 for a sparse volume."""

    refreservation: int
    referenced: int
    unique: int
    snapshots_used: int = 0

    @property
    def usedbyrefreservation(self) -> int:
        """USEDREFRESERV: the part of the reservation not yet filled by unique blocks
        (dsl_dataset.c: ds_reserved - ds_unique_bytes when positive)."""
        return max(0, self.refreservation - self.unique)

    @property
    def used(self) -> int:
        return self.referenced + self.usedbyrefreservation + self.snapshots_used


def snapshot_needs(space: VolumeSpace) -> int:
    """Bytes that must be free outside the reservation to snapshot the volume
    (dsl_dataset_snapshot_reserve_space(): MIN(unique bytes, refreservation))."""
    return min(space.unique, space.refreservation)


def snapshot_fits(space: VolumeSpace, available: int) -> bool:
    """Whether a snapshot can be taken when ``available`` bytes are free in the pool for
    the volume's parent (dsl_dir_space_available(), which does not count the volume's own
    refreservation)."""
    return snapshot_needs(space) <= available


def after_snapshot(space: VolumeSpace) -> VolumeSpace:
    """The volume's space right after a snapshot: its blocks all belong to the snapshot
    too, so nothing is unique and the whole reservation is again unfilled; the snapshot
    itself uses nothing until the volume is overwritten."""
    return VolumeSpace(space.refreservation, space.referenced, 0, space.snapshots_used)


def pool_available_after(avail_before: int, space: VolumeSpace) -> int:
    """What the pool has free after a snapshot of the volume: USEDREFRESERV grows from its
    old value to the whole unfilled reservation, and comes out of the pool's free space."""
    grown = after_snapshot(space).usedbyrefreservation - space.usedbyrefreservation
    return avail_before - grown
