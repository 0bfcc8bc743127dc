"""Behaviour that differs between OpenZFS releases, gathered in one place.

The course's VM runs OpenZFS 2.1 (Debian 12's zfs-dkms 2.1.11). The source posts measured
ZFS on Linux 0.6.5, whose allocator had no write throttle and sized metaslabs differently.
Each difference the lessons rely on is a field here, so a simulation can be run "as 0.6.5"
or "as 2.1" and the two compared.
"""

from __future__ import annotations

from dataclasses import dataclass

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40


@dataclass(frozen=True)
class MetadataBlocks:
    """The blocks a new pool holds right after ``zpool create`` and the first property
    changes, as (psize, count) pairs: ``live`` ones, and ``deferred`` ones already freed
    but still allocated for TXG_DEFER_SIZE txgs (counted in ALLOC, not in USED)."""

    live: tuple[tuple[int, int], ...]
    deferred: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ZfsVersion:
    name: str
    release: str  # what `zpool version` prints, e.g. 2.1.11 (Debian 12's zfs-dkms)
    # vdev_metaslab_set_size(): "legacy" aims for ~200 metaslabs (illumos, ZoL <= 0.7);
    # "count-bounded" (OpenZFS 0.8+/2.x) prefers 512 MiB metaslabs, 16..200 of them.
    metaslab_sizing: str
    # metaslab_aliquot (module/zfs/metaslab.c): bytes a vdev takes per turn of the rotor.
    metaslab_aliquot: int
    # The allocation throttle (OpenZFS 7090, ZoL 0.7): a vdev whose queue of pending
    # allocations is full is skipped, so faster vdevs take more of a saturated stream.
    allocation_throttle: bool
    # spa_get_slop_space() (module/zfs/spa_misc.c).
    slop_shift: int
    min_slop: int
    max_slop: int | None
    # Bytes of dirty data per transaction group for a streaming writer. The allocator's
    # view of free space (vs_alloc) is only updated when a txg syncs, so the free-space
    # bias is recomputed once per txg (dsl_pool.c zfs_dirty_data_sync[_percent]).
    txg_bytes: int
    # Default of the "compression" property: off until OpenZFS 2.2 made it "on" (lz4).
    default_compression: str
    # Space the pool's own metadata (MOS, root dataset) takes at creation, per top-level
    # vdev. Measured on real pools in the lab VM (2.1.11: 176 KiB and 172 KiB on two files).
    create_alloc_per_vdev: int
    # What `zpool list -v` prints as SIZE on the line of a vdev that is a single device:
    # "physical" (the device's size, vs_pspace; measured on 2.1.11 in the lab VM) or
    # "allocatable" (the metaslab space, vs_space; as in the published 0.6.5 transcripts).
    vdev_list_size: str
    # Whether `zpool list -v` names a group with its id, "mirror-0", as `zpool status`
    # does (OpenZFS PR #13031, in 2.1.x since 2.1.3; unverified in 2.1.11) or "mirror".
    list_vdev_type_id: bool
    # mg_aliquot = metaslab_aliquot * MAX(1, n) in metaslab.c: n is the top-level vdev's
    # children up to 2.0 ("children": a 2-way mirror takes 1 MiB per turn) and its data
    # disks since 2.1's dRAID work ("data_disks": vdev_get_ndisks() - vdev_get_nparity(),
    # 1 for a mirror, children - parity for RAID-Z).
    aliquot_scaling: str
    # The new pool's blocks by size (pool.create_pool); None: ``create_alloc_per_vdev``
    # bytes on every vdev, the older estimate.
    create_metadata: MetadataBlocks | None = None


ZFS_0_6_5 = ZfsVersion(
    name="0.6.5",
    release="0.6.5.6",
    metaslab_sizing="legacy",
    metaslab_aliquot=512 * KiB,
    allocation_throttle=False,
    slop_shift=5,
    min_slop=32 * MiB,  # SPA_MINDEVSIZE >> 1 in 0.6.5
    max_slop=None,
    txg_bytes=64 * MiB,  # zfs_dirty_data_sync = 64 MiB
    default_compression="off",
    create_alloc_per_vdev=168 * KiB,
    vdev_list_size="allocatable",
    list_vdev_type_id=False,
    aliquot_scaling="children",
)

ZFS_2_1 = ZfsVersion(
    name="2.1",
    release="2.1.11",
    metaslab_sizing="count-bounded",
    metaslab_aliquot=512 * KiB,  # became 1 MiB in 2.2
    allocation_throttle=True,
    slop_shift=5,
    min_slop=128 * MiB,  # spa_min_slop
    max_slop=128 * GiB,  # spa_max_slop
    txg_bytes=64 * MiB,
    default_compression="off",
    create_alloc_per_vdev=176 * KiB,
    vdev_list_size="physical",
    list_vdev_type_id=True,
    aliquot_scaling="data_disks",
    # Fitted to the 2.1.11 recordings at ashift 12 (tests/fixtures/real/2.1.11):
    # a 2-way mirror showed USED 384K and ALLOC 480K, a 3-wide RAID-Z1 USED 507408 (744K
    # raw) and ALLOC 960K, lab 1's two single files 480K in all. Small blocks of 1K (one
    # 4K sector at ashift 12: 4K on a mirror, 8K with parity and padding on RAID-Z1) and
    # three 16K blocks (the MOS dnode blocks; 16K on a mirror, 24K on RAID-Z1) give both
    # USED figures exactly: 84 x 4K + 3 x 16K = 384K and 84 x 8K + 3 x 24K = 744K. The 24
    # deferred 1K blocks are the mirror's 96K gap between ALLOC and USED.
    create_metadata=MetadataBlocks(live=((1 * KiB, 84), (16 * KiB, 3)),
                                   deferred=((1 * KiB, 24),)),
)

VERSIONS: dict[str, ZfsVersion] = {v.name: v for v in (ZFS_0_6_5, ZFS_2_1)}
DEFAULT_VERSION = ZFS_2_1


def get_version(name: str) -> ZfsVersion:
    try:
        return VERSIONS[name]
    except KeyError:
        known = ", ".join(sorted(VERSIONS))
        raise ValueError(f"unknown OpenZFS version {name!r} (known: {known})") from None
