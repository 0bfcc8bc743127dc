"""Where a path lives: a sparse file on the host, or a file in a mounted ZFS dataset."""

from __future__ import annotations

from dataclasses import dataclass

from labsim.shell.session import Session
from labsim.zfs.pool import Dataset, Pool


@dataclass(frozen=True)
class PoolPath:
    pool: Pool
    dataset: Dataset
    name: str  # file name inside the dataset ("" for the dataset's mountpoint)


def mounted_dataset(session: Session, path: str) -> PoolPath | None:
    """The dataset whose mountpoint holds ``path`` (datasets mount at /<name>)."""
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
    if path in session.host_dirs:
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
