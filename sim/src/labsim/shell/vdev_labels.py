"""The labels in the host files a pool's vdevs are made of: written when the pool's
config changes, read back by zpool import (labsim.zfs.labels, labsim.zfs.discovery).

OpenZFS rewrites a leaf's labels whenever the config is synced (vdev_config_sync() in
module/zfs/vdev_label.c): at create, when vdevs are added, attached, detached or
replaced, when the pool is exported or destroyed (spa_export_common() dirties every
label with the new state) and imported. labsim writes them at those commands, with the
pool's txg then. Only leaves that can be written get them: not an offline leaf, nor one
missing since the import. A detached leaf's labels are erased (spa_vdev_detach():
vdev_label_init(VDEV_LABEL_REMOVE)).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from labsim.zfs import health
from labsim.zfs.discovery import FoundDevice
from labsim.zfs.labels import (
    POOL_STATE_ACTIVE,
    GuidSource,
    LeafConfig,
    TopConfig,
    VdevLabel,
    new_guid,
    read_label,
    write_copies,
)
from labsim.zfs.layouts import SINGLE
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import Leaf, TopVdev

if TYPE_CHECKING:
    from labsim.shell.session import Session


def assign_guids(pool: Pool, source: GuidSource) -> None:
    """Give the pool and every vdev still without one a guid. A single-device top-level
    vdev is its leaf, one guid for both; a leaf left alone by a detach takes its
    mirror's guid (vdev_remove_parent() keeps the top-level guid), and a device that
    becomes a mirror by attach gets a new mirror vdev above it (vdev_add_parent())."""
    if not pool.guid:
        pool.guid = new_guid(source)
    for vdev in [*pool.vdevs, *pool.logs]:
        for leaf in vdev.leaves:
            if not leaf.guid:
                leaf.guid = new_guid(source)
        if vdev.kind == SINGLE:
            if vdev.guid:
                vdev.leaves[0].guid = vdev.guid
            else:
                vdev.guid = vdev.leaves[0].guid
        elif not vdev.guid or any(leaf.guid == vdev.guid for leaf in vdev.leaves):
            vdev.guid = new_guid(source)


def _kind(vdev: TopVdev) -> str:
    return "disk" if vdev.kind == SINGLE else vdev.layout.type_name


def label_of(pool: Pool, vdev: TopVdev, leaf: Leaf, state: str) -> VdevLabel:
    """The config vdev_label_sync() writes into ``leaf``'s labels."""
    tree = TopConfig(vdev.id, vdev.guid, _kind(vdev),
                     tuple(LeafConfig(child.guid, child.path) for child in vdev.leaves))
    children = 1 + max(v.id for v in [*pool.vdevs, *pool.logs])
    return VdevLabel(pool_name=pool.name, pool_guid=pool.guid, state=state, txg=pool.txg,
                     top_guid=vdev.guid, guid=leaf.guid,
                     vdev_children=max(children, pool.root_children), vdev_tree=tree)


def write_labels(session: Session, pool: Pool, state: str = POOL_STATE_ACTIVE) -> None:
    """vdev_config_sync(): every writable leaf's four copies, with the pool's txg."""
    assign_guids(pool, session.guids)
    for vdev in [*pool.vdevs, *pool.logs]:
        for leaf in vdev.leaves:
            host = session.host_files.get(leaf.path)
            if host is None or leaf.state != health.ONLINE:
                continue
            session.host_files[leaf.path] = replace(
                host, labels=write_copies(host.size, label_of(pool, vdev, leaf, state)))


def erase_labels(session: Session, path: str) -> None:
    host = session.host_files.get(path)
    if host is not None:
        session.host_files[path] = replace(host, labels=())


def read_device(session: Session, path: str) -> tuple[bool, VdevLabel | None]:
    """What opening ``path`` finds: whether a file is there, and its label."""
    host = session.host_files.get(path)
    if host is None:
        return False, None
    found = read_label(host.labels, host.size)
    return True, None if found is None else found[0]


def file_size(session: Session, path: str) -> int | None:
    """The size of the file at ``path`` now (what vdev_file_open() stats), None if none."""
    host = session.host_files.get(path)
    return None if host is None else host.size


def scan_directories(session: Session, directories: list[str]) -> list[FoundDevice]:
    """zpool_find_import_scan(): the entries directly in each directory (a path that is
    a file is taken by itself), each read once, in path order (the slice cache is an AVL
    tree sorted by name), with the position of the first directory that listed it."""
    seen: dict[str, int] = {}
    for order, directory in enumerate(directories):
        if directory in session.host_files:
            seen.setdefault(directory, order)
            continue
        prefix = directory.rstrip("/") + "/"
        for path in session.host_files:
            if path.startswith(prefix) and "/" not in path[len(prefix):]:
                seen.setdefault(path, order)
    found = []
    for path in sorted(seen):
        host = session.host_files[path]
        label = read_label(host.labels, host.size)
        if label is not None:
            found.append(FoundDevice(path, seen[path], label[0], label[1]))
    return found


def owning_leaf(session: Session, path: str) -> Leaf | None:
    """The leaf a host file is: of an imported pool, the one opened at that path; else
    the one its label names, in an exported or imported pool (the file may have been
    renamed since: an open vdev follows its file, not its name)."""
    for pool in session.pools.values():
        for vdev in [*pool.vdevs, *pool.logs]:
            for leaf in vdev.leaves:
                if leaf.path == path:
                    return leaf
    host = session.host_files.get(path)
    found = None if host is None else read_label(host.labels, host.size)
    if found is None:
        return None
    label = found[0]
    owner = session.exported_pools.get(label.pool_guid) or next(
        (p for p in session.pools.values() if p.guid == label.pool_guid), None)
    if owner is None:
        return None
    return next((leaf for vdev in [*owner.vdevs, *owner.logs] for leaf in vdev.leaves
                 if leaf.guid == label.guid), None)
