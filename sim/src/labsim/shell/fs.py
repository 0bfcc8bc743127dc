"""Where a path lives: a sparse file on the host, or a file in a mounted ZFS dataset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsim.zfs import zvols
from labsim.zfs.pool import Dataset, Pool

if TYPE_CHECKING:
    from labsim.shell.session import Session


@dataclass(frozen=True)
class PoolPath:
    pool: Pool
    dataset: Dataset
    name: str  # file name inside the dataset ("" for the dataset's mountpoint)


def mounted_dataset(session: Session, path: str) -> PoolPath | None:
    """The dataset whose mountpoint holds ``path`` (datasets mount at /<name>); a
    volume's device /dev/zvol/POOL/NAME is its data object (labsim.zfs.zvols)."""
    volume = zvols.device_volume(session.pools, path)
    if volume is not None:
        return PoolPath(volume[0], volume[1], zvols.VOLUME_OBJECT)
    best: PoolPath | None = None
    for pool in session.pools.values():
        for dataset in pool.datasets.values():
            mountpoint = "/" + dataset.name
            if path == mountpoint:
                return PoolPath(pool, dataset, "")
            if path.startswith(mountpoint + "/"):
                rest = path[len(mountpoint) + 1 :]
                if best is None or len(dataset.name) > len(best.dataset.name):
                    best = PoolPath(pool, dataset, rest)
    return best


def is_dir(session: Session, path: str) -> bool:
    if path in session.host_dirs or zvols.volume_links(session.pools, path) is not None:
        return True
    hit = mounted_dataset(session, path)
    return hit is not None and hit.name == ""


def parent_exists(session: Session, path: str) -> bool:
    parent = path.rsplit("/", 1)[0] or "/"
    return is_dir(session, parent)


def exists(session: Session, path: str) -> bool:
    """A file or directory at ``path``, on the host or in a mounted dataset."""
    if path in session.host_files or is_dir(session, path):
        return True
    hit = mounted_dataset(session, path)
    return hit is not None and hit.name in hit.dataset.files


def entries(session: Session, path: str) -> list[str]:
    """The names in directory ``path`` (what a glob or ls sees): host files and directories,
    the files of a dataset mounted there, and the mountpoints of datasets inside it."""
    prefix = path.rstrip("/") + "/"
    names: set[str] = set()
    for name in (*session.host_files, *session.host_dirs):
        if name.startswith(prefix) and len(name) > len(prefix):
            names.add(name[len(prefix):].split("/", 1)[0])
    for pool in session.pools.values():
        for dataset in pool.datasets.values():
            mountpoint = "/" + dataset.name
            if mountpoint.startswith(prefix) and len(mountpoint) > len(prefix):
                names.add(mountpoint[len(prefix):].split("/", 1)[0])
    hit = mounted_dataset(session, path)
    if hit is not None:
        inside = hit.name + "/" if hit.name else ""
        for name in hit.dataset.files:
            if name.startswith(inside) and len(name) > len(inside):
                names.add(name[len(inside):].split("/", 1)[0])
    names.update(zvols.volume_links(session.pools, path) or [])
    return sorted(names)
