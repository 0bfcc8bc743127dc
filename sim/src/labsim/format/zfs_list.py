"""``zfs list`` and ``zfs get`` output, as OpenZFS 2.1 prints it.

Follows cmd/zfs/zfs_main.c ``zfs_do_list()`` / ``print_header()`` /
``print_dataset()`` and ``zfs_do_get()`` / ``get_callback()``, with values from
``zfs_prop_get()`` (lib/libzfs/libzfs_dataset.c) and column widths from
:mod:`labsim.format.zprop` (``zprop_width()`` + ``zfs_expand_proplist()``).

* ``zfs list``: default columns NAME USED AVAIL REFER MOUNTPOINT, two spaces
  apart; numbers right-aligned, strings left-aligned; the last left-aligned
  column is not padded.  REFER is 8 wide (``zprop_width()`` gives enum 4 the width
  of pool HEALTH), hence ``AVAIL     REFER``.  ``-H``: tabs, no header.  ``-p``:
  exact numbers and every column widened to fit.
* ``zfs get``: NAME PROPERTY VALUE SOURCE (see :func:`labsim.format.zprop.format_get_table`).

Raw values are Python values: ints for sizes and counts, the ratio as a float for
compressratio, strings for index and string properties, None where the property
does not apply (printed "-").
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from labsim.format import numbers as num
from labsim.format.zprop import (
    DATASET_PROPS,
    NUMBER,
    InvalidColumn,
    Prop,
    UnknownProperty,
    expanded_width,
    format_get_table,
    get_fields,
    lookup,
)
from labsim.zfs.versions import ColumnWidths

__all__ = [
    "DEFAULT_COLUMNS",
    "InvalidColumn",
    "UnknownProperty",
    "format_creation",
    "format_dataset_prop",
    "format_zfs_get",
    "format_zfs_list",
    "get_fields",
    "inherited_from",
]

# zfs_do_list(): "name,used,available,referenced,mountpoint"
DEFAULT_COLUMNS = ("name", "used", "available", "referenced", "mountpoint")

# zfs_prop_get(): "If quota or reservation is 0, we translate this into 'none'"
_NONE_WHEN_ZERO = ("quota", "reservation", "refquota", "refreservation")
_RATIOS = ("compressratio", "refcompressratio")
_PLAIN_NUMBERS = ("guid", "createtxg")  # "%llu" even without -p


def format_creation(when: int, *, parsable: bool = False) -> str:
    """``creation``: strftime("%a %b %e %k:%M %Y") of the local (here UTC) time,
    e.g. "Tue Nov 22  3:50 2022"; the seconds since the epoch with -p."""
    if parsable:
        return str(when)
    t = time.gmtime(when)
    return (time.strftime("%a %b ", t) + f"{t.tm_mday:2d} {t.tm_hour:2d}:"
            + time.strftime("%M %Y", t))


def format_dataset_prop(name: str, value: object, *, parsable: bool = False) -> str:
    """A raw dataset property value as ``zfs_prop_get()`` prints it."""
    prop = lookup(DATASET_PROPS, name)
    if value is None:
        return "-"  # print_dataset(): zfs_prop_get() failed -> "-"
    if isinstance(value, bool):
        return "yes" if value else "no"  # 'mounted'
    if prop.name == "creation":
        return format_creation(int(value), parsable=parsable)  # type: ignore[call-overload]
    if prop.name in _RATIOS:
        return num.dedup_ratio(value, parsable=parsable)  # type: ignore[arg-type]
    if prop.kind == NUMBER and isinstance(value, int):
        if prop.name in _NONE_WHEN_ZERO and value == 0:
            return "0" if parsable else "none"
        if parsable or prop.name in _PLAIN_NUMBERS:
            return str(value)
        return num.nicebytes(value)  # the default number case: zfs_nicebytes()
    return str(value)


def inherited_from(dataset: str) -> str:
    """The SOURCE of an inherited value: "inherited from %s"
    (zprop_print_one_property(), lib/libzfs/libzfs_util.c)."""
    return f"inherited from {dataset}"


def _resolve(columns: Sequence[str] | None) -> list[Prop]:
    return [lookup(DATASET_PROPS, col) for col in (columns or DEFAULT_COLUMNS)]


def _raw(row: Mapping[str, object], prop: Prop, given: str) -> object:
    for key in (prop.name, given, prop.colname.lower()):
        if key in row:
            return row[key]
    return None


def format_zfs_list(
    rows: Sequence[Mapping[str, object]],
    *,
    parsable: bool = False,
    scripted: bool = False,
    columns: Sequence[str] | None = None,
    widths_rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS,
) -> str:
    """What ``zfs list [-H] [-p] [-o ...]`` prints on stdout; ``widths_rule`` is the
    release's (ZfsVersion.column_widths).

    Each row maps property names (``name`` included) to raw values.  Column names
    may be property names or their lower-case column names ("avail", "refer").
    An empty ``rows`` gives "" (the caller prints "no datasets available").
    Raises :class:`UnknownProperty` for a bad ``-o`` column.
    """
    given = list(columns or DEFAULT_COLUMNS)
    props = _resolve(given)
    if not rows:
        return ""
    values = [[format_dataset_prop(p.name, _raw(row, p, g), parsable=parsable)
               for p, g in zip(props, given, strict=True)] for row in rows]
    widths = [expanded_width(p, (v[i] for v in values), parsable, widths_rule)
              for i, p in enumerate(props)]

    def line(cells: list[str], scripted: bool) -> str:
        out = []
        for i, (text, prop) in enumerate(zip(cells, props, strict=True)):
            if i:
                out.append("\t" if scripted else "  ")
            right = prop.right_align
            if scripted or (i == len(props) - 1 and not right):
                out.append(text)
            elif right:
                out.append(text.rjust(widths[i]))
            else:
                out.append(text.ljust(widths[i]))
        return "".join(out) + "\n"

    text = "" if scripted else line([p.colname for p in props], False)
    return text + "".join(line(v, scripted) for v in values)


def format_zfs_get(
    rows: Sequence[tuple[str, str, object, str]],
    *,
    parsable: bool = False,
    scripted: bool = False,
    columns: str | Sequence[str] | None = None,
    fields: str | Sequence[str] | None = None,
    widths_rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS,
) -> str:
    """What ``zfs get [-H] [-p] [-o field,...] prop[,prop] dataset ...`` prints.

    ``rows`` are (dataset, property, raw value, source) in output order, source
    being "-", "default", "local" or :func:`inherited_from`.  ``columns`` (alias
    ``fields``) selects the -o fields.  Raises :class:`UnknownProperty` or
    :class:`InvalidColumn`.
    """
    chosen = get_fields(columns if columns is not None else fields)
    cooked = []
    by_prop: dict[str, list[str]] = {}
    for name, prop_name, value, source in rows:
        prop = lookup(DATASET_PROPS, prop_name)
        text = format_dataset_prop(prop.name, value, parsable=parsable)
        cooked.append((name, prop.name, text, source))
        # zfs get -p sets cb_literal but not ZFS_ITER_LITERAL_PROPS (zfs_do_get), so
        # zfs_expand_proplist() sizes the VALUE column by the human-readable values:
        # "69996544" overflows a 5-wide column ("1.46   -" in the recordings).
        by_prop.setdefault(prop.name, []).append(format_dataset_prop(prop.name, value))
    widths = [expanded_width(lookup(DATASET_PROPS, p), texts, False, widths_rule)
              for p, texts in by_prop.items()]
    return format_get_table(cooked, widths, scripted=scripted, columns=chosen)
