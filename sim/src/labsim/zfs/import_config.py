"""What the kernel makes of a pool config zpool import found (spa_tryimport() and
spa_import() in module/zfs/spa.c at zfs-2.3.9), and the import itself.

The config assembled from the labels (labsim.zfs.discovery) is untrusted: the kernel
opens each leaf by the path the config gives it (vdev_open(); a leaf no label was found
for keeps the path its top-level vdev's best label gave it), checks the label there
(vdev_validate()), then reads the pool's own copy of the config from its MOS and trusts
that one, taking the paths over from the labels' tree (spa_ld_trusted_config(),
vdev_copy_path_strict/relaxed()). labsim's exported Pool stands for what the MOS holds;
this module works out, leaf by leaf, where each was found or why it could not be opened,
and so the vdevs' and the pool's states (vdev_propagate_state()).

A leaf that cannot be opened during the import proper is marked not present
(vdev_set_state() with SPA_LOAD_IMPORT), so zpool status then names it by its guid,
"was <path>". What was written while it was away is stale on it when it is found at a
later import, until the resilver that import asks for (labsim.zfs.dtl_resilver) has run
(apply_import()).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from labsim.zfs import dtl_resilver, health, scan
from labsim.zfs.discovery import FoundPool, fix_path
from labsim.zfs.labels import VDEV_LABEL_START_SIZE, VdevLabel
from labsim.zfs.layouts import RAIDZ, SINGLE
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import Leaf, TopVdev

# vs_aux of a leaf that could not be used, as print_import_config() and
# print_status_config() word them (cmd/zpool/zpool_main.c).
OPEN_FAILED = "cannot open"  # VDEV_AUX_OPEN_FAILED: nothing at the path
BAD_LABEL = "invalid label"  # VDEV_AUX_BAD_LABEL: no label there (vdev_validate())
CORRUPT_DATA = "corrupted data"  # VDEV_AUX_CORRUPT_DATA: another vdev's label there
NO_REPLICAS = "insufficient replicas"  # VDEV_AUX_NO_REPLICAS: a vdev that cannot work

# zpool_import_status() (lib/libzfs/libzfs_status.c, check_status() with isimport):
# the reason and its message id, for a pool that cannot be imported (_NR) or can be,
# degraded (_R). Devices that could not be opened are "missing"; any other leaf that
# could not be used makes the label "corrupt".
MISSING_DEV_NR, MISSING_DEV_R = "missing_dev_nr", "missing_dev_r"
CORRUPT_LABEL_NR, CORRUPT_LABEL_R = "corrupt_label_nr", "corrupt_label_r"
MESSAGE_IDS = {MISSING_DEV_R: "ZFS-8000-2Q", MISSING_DEV_NR: "ZFS-8000-3C",
               CORRUPT_LABEL_R: "ZFS-8000-4J", CORRUPT_LABEL_NR: "ZFS-8000-5E"}

# What the kernel finds at a path: (a file is there, the label its copies hold).
ReadDevice = Callable[[str], tuple[bool, VdevLabel | None]]


@dataclass(frozen=True)
class LeafOutcome:
    """Where a leaf was opened (or the path that was tried) and, if it could not be
    used, why (one of the aux texts above; None when it was opened)."""

    path: str
    aux: str | None


@dataclass
class ImportView:
    """The pool as spa_tryimport() reports it: its MOS tree with the outcome of every
    leaf, by the leaf's guid."""

    pool: Pool
    found: FoundPool
    leaves: dict[int, LeafOutcome]

    def leaf_state(self, leaf: Leaf) -> str:
        if leaf.state == health.OFFLINE:
            return health.OFFLINE
        return health.ONLINE if self.leaves[leaf.guid].aux is None else health.UNAVAIL

    def vdev_state(self, vdev: TopVdev) -> str:
        missing = sum(1 for leaf in vdev.leaves if self.leaf_state(leaf) != health.ONLINE)
        return health.group_state(vdev.kind, len(vdev.leaves), vdev.layout.nparity, missing)

    @property
    def state(self) -> str:
        states = {self.vdev_state(v) for v in self.pool.vdevs}
        if health.UNAVAIL in states:
            return health.UNAVAIL
        return health.DEGRADED if health.DEGRADED in states else health.ONLINE

    @property
    def reason(self) -> str | None:
        """check_status() for the import: only leaves are looked at (find_vdev_problem())."""
        auxes = [self.leaves[leaf.guid].aux for vdev in [*self.pool.vdevs, *self.pool.logs]
                 for leaf in vdev.leaves if leaf.state != health.OFFLINE]
        state = self.state
        if state == health.ONLINE:
            return None
        replicated = state != health.UNAVAIL
        if OPEN_FAILED in auxes:
            return MISSING_DEV_R if replicated else MISSING_DEV_NR
        if any(aux is not None for aux in auxes):
            return CORRUPT_LABEL_R if replicated else CORRUPT_LABEL_NR
        return None


def try_import(pool: Pool, found: FoundPool, read: ReadDevice) -> ImportView:
    """spa_tryimport(): each leaf of the pool, found by the scan (fix_paths()) or opened
    at its config path, or why not (vdev_open(), vdev_validate())."""
    leaves = {}
    for vdev in [*pool.vdevs, *pool.logs]:
        for leaf in vdev.leaves:
            config_path = found.config_path(vdev.guid, leaf.guid) or leaf.path
            path = fix_path(found.devices, leaf.guid, config_path)
            leaves[leaf.guid] = (LeafOutcome(path, None) if path is not None
                                 else _open_at(config_path, leaf.guid, read))
    return ImportView(pool, found, leaves)


def _open_at(path: str, guid: int, read: ReadDevice) -> LeafOutcome:
    exists, label = read(path)
    if not exists:
        return LeafOutcome(path, OPEN_FAILED)
    if label is None:
        return LeafOutcome(path, BAD_LABEL)
    if label.guid != guid:
        return LeafOutcome(path, CORRUPT_DATA)
    return LeafOutcome(path, None)


def apply_import(view: ImportView, now: float = 0.0) -> list[tuple[TopVdev, Leaf]]:
    """spa_import(): every leaf takes the path it was opened by; a leaf that could not be
    opened becomes UNAVAIL and not present (its path kept, for "was").

    Writes while it is away fail on it, and their txgs go to its DTL (vdev_stat_update(),
    module/zfs/vdev.c). When it is found at a later import, the blocks written meanwhile
    are stale on it (labsim marks them as damaged bytes of the leaf, labsim.zfs.scan,
    which reads and scrubs find and repair) and the import asks for a resilver, which
    starts once the pool has synced a txg (labsim.zfs.dtl_resilver). ``now``: the session
    clock. Returns the leaves that are back."""
    pool = view.pool
    back = []
    for vdev in [*pool.vdevs, *pool.logs]:
        for leaf in vdev.leaves:
            outcome = view.leaves[leaf.guid]
            leaf.path = outcome.path
            if leaf.state == health.OFFLINE:
                continue  # ZPOOL_CONFIG_OFFLINE: it stays offline, not opened
            if outcome.aux is None:
                if leaf.not_present or leaf.state == health.UNAVAIL:
                    back.append((vdev, leaf))
                    dtl_resilver.request(pool, mark_stale(pool, vdev, leaf), now)
                leaf.state, leaf.aux, leaf.not_present = health.ONLINE, None, False
            else:
                if leaf.state == health.ONLINE:
                    leaf.offline_alloc = pool.alloc
                    leaf.blocks_when_missing = frozenset(
                        (e.offset, e.length) for e in scan.vdev_extents(pool, vdev))
                leaf.state, leaf.aux, leaf.not_present = health.UNAVAIL, outcome.aux, True
    return back


def mark_stale(pool: Pool, vdev: TopVdev, leaf: Leaf) -> dtl_resilver.StaleLeaf:
    """The leaf's bytes under every block of its vdev written since it went missing are
    stale (damaged). Returns them, with the blocks themselves (what the resilver may
    copy: labsim.zfs.dtl_resilver.live_stale_bytes())."""
    before = leaf.blocks_when_missing or frozenset()
    leaf.blocks_when_missing = None
    ranges = []
    blocks = []
    for extent in scan.vdev_extents(pool, vdev):
        if (extent.offset, extent.length) in before:
            continue
        lo, hi = extent.offset, extent.offset + extent.length
        blocks.append((lo, hi))
        if vdev.kind == RAIDZ:
            # the rows of every child that hold the extent's sectors (scan's layout:
            # sector i of the vdev is on child i % width, row i // width)
            width, shift = vdev.layout.width, vdev.ashift
            lo = (lo >> shift) // width << shift
            hi = -(-(hi >> shift) // width) << shift
        ranges.append((lo + VDEV_LABEL_START_SIZE, hi + VDEV_LABEL_START_SIZE))
    scan.damage_ranges(leaf, ranges)
    return dtl_resilver.StaleLeaf(leaf.guid, ranges, scan.merged(blocks))


def config_tree(vdev: TopVdev) -> tuple[str, list[tuple[str, Leaf]]]:
    """The names the import listing gives a top-level vdev and its leaves (its MOS
    tree): a single device is its leaf."""
    if vdev.kind == SINGLE:
        return vdev.leaves[0].path, []
    return vdev.name, [(leaf.path, leaf) for leaf in vdev.leaves]
