"""``zpool list`` and ``zpool get`` output, as OpenZFS 2.1 prints it.

Follows cmd/zpool/zpool_main.c: ``zpool_do_list()``, ``print_header()``,
``print_pool()``, ``get_namewidth_list()`` (with ``get_namewidth()``/``max_width()``),
``list_callback()``, ``print_list_stats()`` and ``print_one_column()``; pool values
come from ``zpool_get_prop()`` (lib/libzfs/libzfs_pool.c) and column widths from
:mod:`labsim.format.zprop`.

Rules worth knowing (each cited again where it is implemented):

* pool rows: columns two spaces apart; numbers right-aligned, NAME and ALTROOT
  left-aligned; the last column is not padded if it is left-aligned;
* ``-H``: no header, one tab between columns, no padding;
* ``-p``: exact numbers, and every column is widened to its values;
* ``-v``: after each pool, one row per vdev, indented two spaces per level; the NAME
  column is then at least 9 wide; vdev rows have their own fixed widths (they do
  not follow ``-p`` widening, nor ``-o``); SIZE..CAP are "-" for vdevs that are not
  top-level, DEDUP is always "-", CAP has decimals ("0.08%"), HEALTH is 8 wide.

Version notes: leaf vdevs show their device size in SIZE (vs_pspace, OpenZFS PR
#13106) in 2.1.11, measured in the lab VM for top-level leaves; 2.1.0 printed "-" for
leaves inside a group.  Pass ``pspace`` for the releases that have it.  Top-level
vdev *names* are the caller's business: 2.1.0 printed "mirror", later releases
"mirror-0" (PR #13031); pass whichever the lesson's release prints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from labsim.format import numbers as num
from labsim.format.zprop import (
    POOL_PROPS,
    Prop,
    UnknownProperty,
    column_width,
    expanded_width,
    format_get_table,
    get_fields,
    lookup,
)
from labsim.zfs.versions import ColumnWidths

__all__ = [
    "COLUMNS",
    "DEFAULT_COLUMNS",
    "PoolPropertyRow",
    "PoolRow",
    "UnknownProperty",
    "VdevRow",
    "format_zpool_get",
    "format_pool_prop",
    "format_vdevs",
    "format_zpool_list",
    "namewidth",
    "pool_value",
]

# zpool_do_list(): default_props
DEFAULT_COLUMNS = ("name", "size", "allocated", "free", "checkpoint", "expandsize",
                   "fragmentation", "capacity", "dedupratio", "health", "altroot")

# What ``-o`` accepts here: a property name or its column name in lower case
# (zprop_name_to_prop / propname_match in module/zcommon/zprop_common.c).
_LISTABLE = DEFAULT_COLUMNS
COLUMNS: frozenset[str] = frozenset(
    [*_LISTABLE, *(POOL_PROPS[p].colname.lower() for p in _LISTABLE)]
)


def _tuple(value: Sequence[VdevRow] | None) -> tuple[VdevRow, ...]:
    return tuple(value or ())


@dataclass(frozen=True)
class VdevRow:
    """One vdev line of ``zpool list -v`` (one ``vdev_stat_t``).

    ``size`` is ``vs_space``: give it for top-level vdevs only.  print_list_stats()
    treats a vdev with ``vs_space == 0`` as not top-level and prints "-" for
    SIZE, ALLOC, FREE, CKPOINT, FRAG and CAP, so leave ``size`` as None (or 0)
    for mirror/raidz members and cache/spare devices' children.

    ``pspace`` is ``vs_pspace``, a leaf's device size: when given (not 0) it is
    printed under SIZE, for any leaf, while the other columns still follow ``size``.

    ``free`` defaults to ``size - alloc`` (the column is ``vs_space - vs_alloc``).
    ``cap`` is a percentage; leave it None to compute it as the kernel numbers are
    computed, ``alloc * 10000 / size`` in integer arithmetic.  ``frag`` None is
    ZFS_FRAG_INVALID ("-").  ``expandsz`` is printed for every vdev ("-" when 0).
    There is no DEDUP field: print_list_stats() passes 0, so it is always "-".
    The indentation depth follows from nesting (``children``).
    """

    name: str
    size: int | None = None
    alloc: int | None = None
    free: int | None = None
    ckpoint: int = 0
    expandsz: int = 0
    frag: int | None = None
    cap: float | None = None
    health: str = "ONLINE"
    children: tuple[VdevRow, ...] = ()
    pspace: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", _tuple(self.children))

    @property
    def toplevel(self) -> bool:
        return bool(self.size)  # print_list_stats(): toplevel = (vs->vs_space != 0)

    @property
    def permyriad(self) -> int:
        """CAP in parts per 10,000, as print_list_stats() computes it."""
        if not self.size:
            return 0
        if self.cap is not None:
            return math.floor(self.cap * 100 + 1e-9)
        return (self.alloc or 0) * 10000 // self.size


@dataclass(frozen=True)
class PoolRow:
    """One pool of ``zpool list``: the values ``zpool_get_prop()`` formats.

    ``cap`` is the whole-number percentage the kernel reports; ``dedup`` the ratio
    (1.0 prints "1.00x"); ``frag`` None prints "-"; ``ckpoint``/``expandsz`` 0
    print "-"; ``altroot`` None prints "-".  ``vdevs`` are the normal top-level
    vdevs; the allocation classes and auxiliary devices get their own section
    under ``-v`` (print_list_stats: "dedup", "special", "logs", then "cache" and
    "spare").
    """

    name: str
    size: int
    alloc: int
    free: int
    ckpoint: int = 0
    expandsz: int = 0
    frag: int | None = 0
    cap: int = 0
    dedup: float = 1.0
    health: str = "ONLINE"
    altroot: str | None = None
    vdevs: tuple[VdevRow, ...] = ()
    dedup_vdevs: tuple[VdevRow, ...] = ()
    special: tuple[VdevRow, ...] = ()
    logs: tuple[VdevRow, ...] = ()
    cache: tuple[VdevRow, ...] = ()
    spares: tuple[VdevRow, ...] = ()
    guid: int = 0
    ashift: int = 0
    # the 2.1 form of the "logs"/"cache" heading line (see _DASHES)
    short_class_heading: bool = True

    def __post_init__(self) -> None:
        for name in ("vdevs", "dedup_vdevs", "special", "logs", "cache", "spares"):
            object.__setattr__(self, name, _tuple(getattr(self, name)))

    def sections(self) -> list[tuple[str | None, tuple[VdevRow, ...]]]:
        # print_list_stats(): normal vdevs, then class_name[] = {dedup, special,
        # logs}, then "cache", then "spare" -- each heading printed only if used.
        return [(None, self.vdevs), ("dedup", self.dedup_vdevs), ("special", self.special),
                ("logs", self.logs), ("cache", self.cache), ("spare", self.spares)]


def format_pool_prop(name: str, value: object, *, parsable: bool = False) -> str:
    """A raw pool property value as ``zpool_get_prop()`` (lib/libzfs/libzfs_pool.c)
    prints it; None (unset) prints "-"."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value if value else "-"  # zpool_get_prop_string(): "-" when unset
    if name in ("size", "allocated", "free", "freeing", "leaked", "ashift", "bcloneused",
                "bclonesaved"):
        # ZPOOL_PROP_SIZE/ALLOCATED/FREE/FREEING/LEAKED/ASHIFT/BCLONE{USED,SAVED}:
        # "%llu" or zfs_nicenum()
        return str(value) if parsable else num.nicenum(int(value))  # type: ignore[call-overload]
    if name in ("checkpoint", "expandsize"):
        # ZPOOL_PROP_EXPANDSZ/CHECKPOINT: "-" when 0, else "%llu" or zfs_nicebytes()
        if value == 0:
            return "-"
        return str(value) if parsable else num.nicebytes(int(value))  # type: ignore[call-overload]
    if name == "fragmentation":
        return num.fragmentation(None if value is None else int(value), parsable=parsable)  # type: ignore[call-overload]
    if name == "capacity":
        return num.nicenum_percent(int(value), parsable=parsable)  # type: ignore[call-overload]
    if name in ("dedupratio", "bcloneratio"):
        # ZPOOL_PROP_DEDUPRATIO, ZPOOL_PROP_BCLONERATIO: "%llu.%02llu" or "%llu.%02llux"
        return num.dedup_ratio(value, parsable=parsable)  # type: ignore[arg-type]
    return str(value)  # guid, load_guid, version: "%llu"


def pool_value(pool: PoolRow, prop: Prop, parsable: bool) -> str:
    """One column of a pool row (print_pool() calls zpool_get_prop())."""
    attr = {"name": "name", "size": "size", "allocated": "alloc", "free": "free",
            "checkpoint": "ckpoint", "expandsize": "expandsz", "fragmentation": "frag",
            "capacity": "cap", "dedupratio": "dedup", "health": "health",
            "altroot": "altroot", "guid": "guid", "ashift": "ashift"}.get(prop.name)
    if attr is None:
        raise UnknownProperty(prop.name)
    return format_pool_prop(prop.name, getattr(pool, attr), parsable=parsable)


def _resolve(columns: Sequence[str] | None) -> list[Prop]:
    props = []
    for col in columns or DEFAULT_COLUMNS:
        prop = lookup(POOL_PROPS, col)
        if prop.name not in _LISTABLE:
            raise UnknownProperty(col)  # not modelled by labsim
        props.append(prop)
    return props


def _max_width(vdev: VdevRow, depth: int) -> int:
    # max_width(): strlen(name) + depth over the tree, children two deeper
    return max([len(vdev.name) + depth, *(_max_width(c, depth + 2) for c in vdev.children)])


def namewidth(pools: Sequence[PoolRow]) -> int:
    """NAME column width under ``-v``: get_namewidth_list() takes the widest pool
    name or indented vdev name of all pools listed, and at least 9."""
    width = 0
    for pool in pools:
        width = max(width, len(pool.name))
        for _heading, vdevs in pool.sections():
            for vdev in vdevs:
                width = max(width, _max_width(vdev, 2))
        width = max(width, 9)  # "The width must be at least 9"
    return width


def _row(cells: list[tuple[str, int, bool]], scripted: bool) -> str:
    """print_header() / print_pool(): cells are (text, width, right_justify)."""
    out = []
    for i, (text, width, right) in enumerate(cells):
        if i:
            out.append("\t" if scripted else "  ")
        last = i == len(cells) - 1
        if scripted or (last and not right):
            out.append(text)  # no width for -H, nor for a left-aligned last column
        elif right:
            out.append(text.rjust(width))
        else:
            out.append(text.ljust(width))
    return "".join(out) + "\n"


# print_one_column() widths for vdev rows: zprop_width() of each column, HEALTH 8
_VDEV_WIDTH = {name: column_width(POOL_PROPS[name])[0] for name in DEFAULT_COLUMNS}
_VDEV_WIDTH["health"] = 8

# print_list_stats(): the heading line of an allocation class / cache / spare. Real
# 2.1.11 prints the last dash two spaces after DEDUP's (measured: the "logs" line of lab
# 5's recordings); later releases put it under HEALTH (as in netdata issue #18359).
_DASHES = "      -      -      -        -         -      -      -      -  -\n"
_DASHES_LATER = "      -      -      -        -         -      -      -      -         -\n"


def _vdev_line(vdev: VdevRow, depth: int, width: int, parsable: bool, scripted: bool) -> str:
    fmt = num.NICENUM_RAW if parsable else num.NICENUM_1024
    top = vdev.toplevel

    def column(prop: str, value: int, valid: bool, text: str | None = None) -> str:
        # print_one_column(): SIZE/EXPANDSZ/CHECKPOINT/DEDUP print "-" for 0
        if text is None:
            if prop in ("size", "expandsize", "checkpoint", "dedupratio") and value == 0:
                text = "-"
            else:
                text = num.nicenum_format(value, fmt)
        if not valid:
            text = "-"
        return ("\t" + text) if scripted else ("  " + text.rjust(_VDEV_WIDTH[prop]))

    if scripted:
        line = "\t" + vdev.name
    elif len(vdev.name) + depth > width:
        line = " " * depth + vdev.name
    else:
        line = " " * depth + vdev.name.ljust(width - depth)
    size = vdev.size or 0
    alloc = vdev.alloc or 0
    free = vdev.free if vdev.free is not None else size - alloc
    frag_text = "-" if vdev.frag is None else num.fragmentation(vdev.frag, parsable=parsable)
    if vdev.pspace:
        # print_list_stats(): "if (VDEV_STAT_VALID(vs_pspace, c) && vs->vs_pspace)" the
        # device size is printed and valid whether or not the vdev is top-level.
        line += column("size", vdev.pspace, True)
    else:
        line += column("size", size, top)
    line += column("allocated", alloc, top)
    line += column("free", free, top)
    line += column("checkpoint", vdev.ckpoint, top)
    line += column("expandsize", vdev.expandsz, True)
    line += column("fragmentation", 0, vdev.frag is not None and top, frag_text)
    line += column("capacity", 0, top, num.vdev_capacity(vdev.permyriad, parsable=parsable))
    line += column("dedupratio", 0, top)
    line += column("health", 0, True, vdev.health)
    return line + "\n"


def _vdev_lines(vdev: VdevRow, depth: int, width: int, parsable: bool, scripted: bool) -> str:
    text = _vdev_line(vdev, depth, width, parsable, scripted)
    for child in vdev.children:
        text += _vdev_lines(child, depth + 2, width, parsable, scripted)
    return text


def format_vdevs(pool: PoolRow, width: int, *, parsable: bool = False,
                 scripted: bool = False) -> str:
    """The ``-v`` lines of one pool: print_list_stats() from the root vdev."""
    text = ""
    for heading, vdevs in pool.sections():
        if not vdevs:
            continue
        if heading is not None:
            dashes = _DASHES if pool.short_class_heading else _DASHES_LATER
            text += heading.ljust(width) + dashes  # printf(dashes, namewidth, name)
        for vdev in vdevs:
            text += _vdev_lines(vdev, 2, width, parsable, scripted)
    return text


def format_zpool_list(
    pools: Sequence[PoolRow],
    *,
    verbose: bool = False,
    parsable: bool = False,
    scripted: bool = False,
    columns: Sequence[str] | None = None,
    widths_rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS,
) -> str:
    """What ``zpool list [-H] [-p] [-v] [-o ...]`` prints on stdout.

    An empty ``pools`` gives "" -- the caller prints ``no pools available``
    (:func:`labsim.shell.messages.no_pools_available`) when no pool was named and
    ``-H`` is not given.  Raises :class:`UnknownProperty` for a bad ``-o`` column.
    """
    props = _resolve(columns)
    if not pools:
        return ""
    values = [[pool_value(pool, prop, parsable) for prop in props] for pool in pools]
    widths = [expanded_width(prop, (row[i] for row in values), parsable, widths_rule)
              for i, prop in enumerate(props)]
    vwidth = namewidth(pools) if verbose else 0
    if verbose:
        widths[0] = vwidth  # "Reset the width to accommodate the verbose listing"

    text = ""
    if not scripted:
        text += _row([(p.colname, widths[i], p.right_align) for i, p in enumerate(props)],
                     False)
    for pool, row in zip(pools, values, strict=True):
        text += _row([(row[i], widths[i], p.right_align) for i, p in enumerate(props)],
                     scripted)
        if verbose:
            text += format_vdevs(pool, vwidth, parsable=parsable, scripted=scripted)
    return text


@dataclass(frozen=True)
class PoolPropertyRow:
    """One line of ``zpool get``: ``source`` is "-", "default" or "local"."""

    name: str
    property: str
    value: object
    source: str = "-"


def format_zpool_get(
    rows: Sequence[PoolPropertyRow | tuple[str, str, object, str]],
    *,
    parsable: bool = False,
    scripted: bool = False,
    columns: str | Sequence[str] | None = None,
    widths_rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS,
) -> str:
    """What ``zpool get [-H] [-p] [-o field,...] prop[,prop] pool`` prints.

    ``rows`` hold raw values (ints, the dedup ratio as a float, strings, None for
    unset); they are formatted as ``zpool_get_prop()`` does.  Column widths follow
    zprop_print_headers() (lib/libzfs/libzfs_util.c).
    """
    cooked = []
    by_prop: dict[str, list[str]] = {}
    for row in rows:
        name, prop_name, value, source = (row.name, row.property, row.value, row.source) \
            if isinstance(row, PoolPropertyRow) else row
        if prop_name.startswith("feature@"):
            # zpool_prop_get_feature(): a feature is a user property to zprop, its
            # value printed as is ("enabled", "active").
            cooked.append((name, prop_name, str(value), source))
            by_prop.setdefault(prop_name, []).append(str(value))
            continue
        if ":" in prop_name:  # a user property (2.2 and later): its value as set, or "-"
            text = "-" if value is None else str(value)
            cooked.append((name, prop_name, text, source))
            by_prop.setdefault(prop_name, []).append(text)
            continue
        prop = lookup(POOL_PROPS, prop_name)
        text = format_pool_prop(prop.name, value, parsable=parsable)
        cooked.append((name, prop.name, text, source))
        by_prop.setdefault(prop.name, []).append(text)
    # addlist(): a feature's column is as wide as its name (pl_width = strlen(propname))
    # and not widened by its values; a user property's is widened by its values
    # (zpool_expand_proplist(), ZPROP_USERPROP with zfs_prop_user(), zfs-2.3.9).
    widths = [len(p) if p.startswith("feature@")
              else max(len(p), *map(len, texts)) if ":" in p
              else expanded_width(POOL_PROPS[p], texts, parsable, widths_rule)
              for p, texts in by_prop.items()]
    return format_get_table(cooked, widths, scripted=scripted, columns=get_fields(columns))

