"""What a RAID-Z expansion leaves in a pool's state: an expanded vdev's geometry (the
width of its blocks by birth txg), the running or latest expansion, and the scrub its
completion set up. labsim.zfs.raidz_expansion explains and runs the reflow."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from labsim.zfs.layouts import DEFLATE_REFERENCE_BLOCK, SPA_MINBLOCKSHIFT, raidz_asize


class ExpandState(Enum):
    """vre_state (dsl_scan_state_t)."""

    SCANNING = "scanning"
    FINISHED = "finished"


@dataclass
class Geometry:
    """What a RAID-Z vdev that has been expanded keeps to size its blocks
    (vdev_raidz_t): vd_original_width, vd_expand_txgs as (re_txg, re_logical_width),
    oldest first, and ``txg``, the open txg, in which the blocks allocated now are born
    (kept by sync_txg())."""

    original_width: int
    nodes: list[tuple[int, int]] = field(default_factory=list)
    txg: int = 0


def logical_width(geometry: Geometry, txg: int) -> int:
    """vdev_raidz_get_logical_width(): the width of the newest reflow node whose re_txg
    is at most ``txg``, else the original width."""
    width = geometry.original_width
    for re_txg, re_width in geometry.nodes:
        if re_txg <= txg:
            width = re_width
    return width


def block_asize(psize: int, ashift: int, nparity: int, geometry: Geometry, txg: int) -> int:
    """vdev_raidz_asize(vd, psize, txg): a block born in ``txg`` is laid out at the width
    in force then."""
    return raidz_asize(psize, ashift, logical_width(geometry, txg), nparity)


def deflate_ratio(geometry: Geometry, nparity: int, ashift: int) -> int:
    """vdev_set_deflate_ratio(): a 128K block's asize at txg 0, i.e. at the original
    width, whatever the vdev's width is now."""
    asize = block_asize(DEFLATE_REFERENCE_BLOCK, ashift, nparity, geometry, 0)
    return DEFLATE_REFERENCE_BLOCK // (asize >> SPA_MINBLOCKSHIFT)


@dataclass
class Expansion:
    """One expansion (vdev_raidz_expand_t, and the vdev's top ZAP entries
    VDEV_TOP_ZAP_RAIDZ_EXPAND_{STATE,START_TIME,END_TIME,BYTES_COPIED}): running, or the
    pool's latest finished one, which zpool status keeps showing."""

    vdev: int
    start_time: float
    # The txg vdev_raidz_attach_sync() ran in; the reflow thread starts after it.
    attach_txg: int
    # Where the reflow ends: the metaslabs the vdev had at the attach (ms_count <<
    # ms_shift); metaslabs added later are new and skipped.
    reflow_end: int
    old_children: int
    state: ExpandState = ExpandState.SCANNING
    scratch_done: bool = False
    offset: int = 0  # RRSS_GET_OFFSET(ubsync): the synced progress
    bytes_copied: int = 0  # vre_bytes_copied
    end_time: float = 0.0
    end_txg: int = 0
    # The txg whose sync adds the vdev's new metaslabs (vdev_expand()); 0: none pending.
    grow_txg: int = 0


@dataclass
class PendingScrub:
    """The scrub raidz_reflow_complete_sync() set up (dsl_scan_setup_sync()), not yet
    run: when it started, in which txg, and scn_to_examine (the root vdev's vs_alloc)."""

    start_time: float
    setup_txg: int
    to_examine: int
