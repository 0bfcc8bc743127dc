"""What ``zpool import`` prints for each pool it finds: show_import() and
print_import_config() in cmd/zpool/zpool_main.c (LANG=C, no colour).

Layout on 2.3 (zfs-2.3.9, recorded), with the 2.1 and 2.2 headings one column to the
right (" action:", " config:"...; ``status_aligned`` False)::

    "  pool: lab15r\\n"
    "    id: 2786399400373461489\\n"
    " state: ONLINE\\n"
    "action: The pool can be imported using its name or numeric identifier.\\n"
    "config:\\n\\n"
    "\\tlab15r                              ONLINE\\n"      # "\\t%*s%-*s", "  %s"
    "\\t  /var/tmp/labs/lab15r-a.raw        ONLINE\\n"
    "\\t  /var/tmp/labs/lab15r-renamed.raw  UNAVAIL  cannot open\\n"   # "  " and vs_aux

The name column is max_width() over the tree (the pool's name counted), at least 10.
Pools are separated by an empty line (zpool_do_import()).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ImportPool", "ImportVdev", "format_import_listing", "ACTIONS", "STATUSES"]


def _tuple(value: Sequence[ImportVdev] | None) -> tuple[ImportVdev, ...]:
    return tuple(value or ())


@dataclass(frozen=True)
class ImportVdev:
    """One row of the config: a vdev's name, state and, if it is not usable, vs_aux's
    text ("cannot open", "insufficient replicas"...)."""

    name: str
    state: str = "ONLINE"
    aux: str | None = None
    children: tuple[ImportVdev, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", _tuple(self.children))


@dataclass(frozen=True)
class ImportPool:
    """One pool of the listing. ``status`` and ``action`` are keys of STATUSES and
    ACTIONS, ``see`` a message id (ZFS-8000-3C) or None."""

    name: str
    guid: int
    state: str
    root_aux: str | None = None
    status: str | None = None
    action: str = "ok"
    see: str | None = None
    vdevs: tuple[ImportVdev, ...] = ()
    logs: tuple[ImportVdev, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "vdevs", _tuple(self.vdevs))
        object.__setattr__(self, "logs", _tuple(self.logs))


# show_import(): the status line by zpool_import_status()'s reason.
STATUSES = {
    "missing_dev_r": "One or more devices are missing from the system.",
    "missing_dev_nr": "One or more devices are missing from the system.",
    "corrupt_label_r": "One or more devices contains corrupted data.",
    "corrupt_label_nr": "One or more devices contains corrupted data.",
}
# show_import()'s action, by the root vdev's state (and, for one that cannot be
# imported, the reason); "\n\t" continues a line.
ACTIONS = {
    "ok": "The pool can be imported using its name or numeric identifier.",
    "degraded": "The pool can be imported despite missing or damaged devices.  The\n"
                "\tfault tolerance of the pool may be compromised if imported.",
    "missing": "The pool cannot be imported. Attach the missing\n\tdevices and try again.",
    "damaged": "The pool cannot be imported due to damaged devices or data.",
}


def _width(vdev: ImportVdev, depth: int) -> int:
    return max([depth + len(vdev.name), *(_width(c, depth + 2) for c in vdev.children)])


def _rows(vdev: ImportVdev, depth: int, width: int) -> str:
    line = "\t" + " " * depth + vdev.name.ljust(width - depth) + "  " + vdev.state
    if vdev.aux:
        line += "  " + vdev.aux
    return line + "\n" + "".join(_rows(c, depth + 2, width) for c in vdev.children)


def _one(pool: ImportPool, status_aligned: bool) -> str:
    # 2.3 prints "%s  pool:" with an indent that is empty without a pool comment; 2.1
    # and 2.2 print "   pool:" and " action:", " config:".
    pad = "" if status_aligned else " "
    text = (f"{pad}  pool: {pool.name}\n{pad}    id: {pool.guid}\n"
            f"{pad} state: {pool.state}\n")
    if pool.status is not None:
        text += f"status: {STATUSES[pool.status]}\n"
    text += f"{pad}action: {ACTIONS[pool.action]}\n"
    if pool.see is not None:
        text += f"   see: https://openzfs.github.io/openzfs-docs/msg/{pool.see}\n"
    text += f"{pad}config:\n\n"
    width = max([len(pool.name), 10, *(_width(v, 2) for v in (*pool.vdevs, *pool.logs))])
    text += _rows(ImportVdev(pool.name, pool.state, pool.root_aux), 0, width)
    text += "".join(_rows(v, 2, width) for v in pool.vdevs)
    if pool.logs:
        text += "\tlogs\t\n" + "".join(_rows(v, 2, width) for v in pool.logs)
    return text


def format_import_listing(pools: list[ImportPool], status_aligned: bool = True) -> str:
    return "\n".join(_one(pool, status_aligned) for pool in pools)
