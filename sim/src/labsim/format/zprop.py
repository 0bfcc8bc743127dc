"""Property tables, column widths and the ``get`` table shared by zpool and zfs.

Follows OpenZFS 2.1:

* column names, types and index values: ``zpool_prop_init()``
  (module/zcommon/zpool_prop.c) and ``zfs_prop_init()`` (module/zcommon/zfs_prop.c);
* the minimum width of a column: ``zprop_width()`` (module/zcommon/zprop_common.c),
  including its two enum-number collisions -- the checks ``prop == ZFS_PROP_CREATION``
  and ``prop == ZPOOL_PROP_HEALTH`` are made without looking at the property type,
  so pool ``size`` (enum 1, like ``creation``) is a non-fixed column and dataset
  ``referenced`` (enum 4, like ``health``) is 8 wide: the familiar
  ``AVAIL     REFER`` header of ``zfs list``;
* widening by the values actually printed: ``zpool_expand_proplist()``
  (lib/libzfs/libzfs_pool.c) and ``zfs_expand_proplist()``
  (lib/libzfs/libzfs_dataset.c) widen non-fixed columns, and every column under
  ``-p``;
* the NAME/PROPERTY/VALUE/SOURCE table of ``zpool get`` and ``zfs get``:
  ``zprop_print_headers()`` and ``zprop_print_one_property()``
  (lib/libzfs/libzfs_util.c).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labsim.zfs.versions import ColumnWidths, ZfsVersion, pool_property_names

__all__ = [
    "GET_COLUMNS",
    "InvalidColumn",
    "POOL_PROPS",
    "DATASET_PROPS",
    "Prop",
    "UnknownProperty",
    "column_width",
    "format_get_table",
    "get_fields",
    "lookup",
    "pool_lookup",
]

NUMBER, STRING, INDEX = "number", "string", "index"

# enum values that zprop_width() compares against without checking the type
_ZFS_PROP_CREATION = 1
_ZPOOL_PROP_HEALTH = 4


@dataclass(frozen=True)
class Prop:
    """One registered property: ``zprop_register_{number,string,index}()``."""

    name: str
    colname: str
    kind: str  # NUMBER, STRING or INDEX
    enum: int  # position in zpool_prop_t / zfs_prop_t (include/sys/fs/zfs.h)
    values: tuple[str, ...] = ()  # index table names, for the column width
    # Registered flexible (zprop_register_number(..., flex = B_TRUE) since 2.2): a
    # number column the values may widen without -p.
    flex: bool = False

    @property
    def right_align(self) -> bool:
        # zprop_register_number() registers right-aligned columns; index and
        # string properties are left-aligned (module/zcommon/zprop_common.c).
        return self.kind == NUMBER


def _table(*props: Prop) -> dict[str, Prop]:
    return {p.name: p for p in props}


_ON_OFF = ("off", "on")

# module/zcommon/zpool_prop.c (2.1) with zpool_prop_t numbering (include/sys/fs/zfs.h)
POOL_PROPS: dict[str, Prop] = _table(
    Prop("name", "NAME", STRING, 0),
    Prop("size", "SIZE", NUMBER, 1),
    Prop("capacity", "CAP", NUMBER, 2),
    Prop("altroot", "ALTROOT", STRING, 3),
    Prop("health", "HEALTH", NUMBER, 4),
    Prop("guid", "GUID", NUMBER, 5, flex=True),
    Prop("version", "VERSION", NUMBER, 6),
    Prop("bootfs", "BOOTFS", STRING, 7),
    Prop("delegation", "DELEGATION", INDEX, 8, _ON_OFF),
    Prop("autoreplace", "REPLACE", INDEX, 9, _ON_OFF),
    Prop("cachefile", "CACHEFILE", STRING, 10),
    Prop("failmode", "FAILMODE", INDEX, 11, ("wait", "continue", "panic")),
    Prop("listsnapshots", "LISTSNAPS", INDEX, 12, _ON_OFF),
    Prop("autoexpand", "EXPAND", INDEX, 13, _ON_OFF),
    Prop("dedupratio", "DEDUP", NUMBER, 15),
    Prop("free", "FREE", NUMBER, 16),
    Prop("allocated", "ALLOC", NUMBER, 17),
    Prop("readonly", "RDONLY", INDEX, 18, _ON_OFF),
    Prop("ashift", "ASHIFT", NUMBER, 19),
    Prop("comment", "COMMENT", STRING, 20),
    Prop("expandsize", "EXPANDSZ", NUMBER, 21),
    Prop("freeing", "FREEING", NUMBER, 22),
    Prop("fragmentation", "FRAG", NUMBER, 23),
    Prop("leaked", "LEAKED", NUMBER, 24),
    Prop("multihost", "MULTIHOST", INDEX, 28, _ON_OFF),
    Prop("checkpoint", "CKPOINT", NUMBER, 29),
    Prop("load_guid", "LOAD_GUID", NUMBER, 30, flex=True),
    Prop("autotrim", "AUTOTRIM", INDEX, 31, _ON_OFF),
    Prop("compatibility", "COMPATIBILITY", STRING, 32),
    # 2.2 (67a1b03791, block cloning): zprop_register_number(..., "BCLONE_USED", B_FALSE)
    # in zpool_prop_init(), ZPOOL_PROP_BCLONEUSED.. after ZPOOL_PROP_COMPATIBILITY. Known
    # to a release only if it lists them (pool_lookup()).
    Prop("bcloneused", "BCLONE_USED", NUMBER, 33),
    Prop("bclonesaved", "BCLONE_SAVED", NUMBER, 34),
    Prop("bcloneratio", "BCLONE_RATIO", NUMBER, 35),
)

_COMPRESS = (
    ("on", "off", "lzjb", "gzip") + tuple(f"gzip-{i}" for i in range(1, 10))
    + ("zle", "lz4", "zstd", "zstd-fast") + tuple(f"zstd-{i}" for i in range(1, 20))
    + tuple(f"zstd-fast-{i}" for i in (*range(1, 11), 20, 30, 40, 50, 60, 70, 80, 90,
                                       100, 500, 1000))
)
# 2.1 tables: no blake3 yet (it arrived in 2.2)
_CHECKSUM = ("on", "off", "fletcher2", "fletcher4", "sha256", "noparity", "sha512", "skein",
             "edonr")
_DEDUP = ("on", "off", "verify", "sha256", "sha256,verify", "sha512", "sha512,verify", "skein",
          "skein,verify", "edonr,verify")

# module/zcommon/zfs_prop.c (2.1) with zfs_prop_t numbering (include/sys/fs/zfs.h)
DATASET_PROPS: dict[str, Prop] = _table(
    Prop("type", "TYPE", STRING, 0),
    Prop("creation", "CREATION", NUMBER, 1, flex=True),
    Prop("used", "USED", NUMBER, 2),
    Prop("available", "AVAIL", NUMBER, 3),
    Prop("referenced", "REFER", NUMBER, 4),
    Prop("compressratio", "RATIO", NUMBER, 5),
    Prop("mounted", "MOUNTED", INDEX, 6, ("yes", "no")),
    Prop("origin", "ORIGIN", STRING, 7),
    Prop("quota", "QUOTA", NUMBER, 8),
    Prop("reservation", "RESERV", NUMBER, 9),
    Prop("volsize", "VOLSIZE", NUMBER, 10),
    Prop("volblocksize", "VOLBLOCK", NUMBER, 11),
    Prop("recordsize", "RECSIZE", NUMBER, 12),
    Prop("mountpoint", "MOUNTPOINT", STRING, 13),
    Prop("sharenfs", "SHARENFS", STRING, 14),
    Prop("checksum", "CHECKSUM", INDEX, 15, _CHECKSUM),
    Prop("compression", "COMPRESS", INDEX, 16, _COMPRESS),
    Prop("atime", "ATIME", INDEX, 17, _ON_OFF),
    Prop("devices", "DEVICES", INDEX, 18, _ON_OFF),
    Prop("exec", "EXEC", INDEX, 19, _ON_OFF),
    Prop("setuid", "SETUID", INDEX, 20, _ON_OFF),
    Prop("readonly", "RDONLY", INDEX, 21, _ON_OFF),
    Prop("snapdir", "SNAPDIR", INDEX, 23, ("hidden", "visible")),
    Prop("createtxg", "CREATETXG", NUMBER, 26, flex=True),
    Prop("name", "NAME", STRING, 27),
    Prop("canmount", "CANMOUNT", INDEX, 28, ("off", "on", "noauto")),
    Prop("xattr", "XATTR", INDEX, 30, ("off", "on", "sa", "dir")),
    Prop("copies", "COPIES", INDEX, 32, ("1", "2", "3")),
    Prop("refquota", "REFQUOTA", NUMBER, 40),
    Prop("refreservation", "REFRESERV", NUMBER, 41),
    Prop("guid", "GUID", NUMBER, 42, flex=True),
    Prop("primarycache", "PRIMARYCACHE", INDEX, 43, ("none", "metadata", "all")),
    Prop("secondarycache", "SECONDARYCACHE", INDEX, 44, ("none", "metadata", "all")),
    Prop("usedbysnapshots", "USEDSNAP", NUMBER, 45),
    Prop("usedbydataset", "USEDDS", NUMBER, 46),
    Prop("usedbychildren", "USEDCHILD", NUMBER, 47),
    Prop("usedbyrefreservation", "USEDREFRESERV", NUMBER, 48),
    Prop("logbias", "LOGBIAS", INDEX, 53, ("latency", "throughput")),
    Prop("dedup", "DEDUP", INDEX, 56, _DEDUP),
    Prop("sync", "SYNC", INDEX, 58, ("standard", "always", "disabled")),
    Prop("refcompressratio", "REFRATIO", NUMBER, 60),
    Prop("written", "WRITTEN", NUMBER, 61),
    Prop("logicalused", "LUSED", NUMBER, 63),
    Prop("logicalreferenced", "LREFER", NUMBER, 64),
    # The properties labsim stores without modelling (labsim.zfs.property_table), numbered
    # as zfs_prop_t at zfs-2.3.9.
    Prop("zoned", "ZONED", INDEX, 22, _ON_OFF),
    Prop("aclmode", "ACLMODE", INDEX, 24, ("discard", "groupmask", "passthrough",
                                           "restricted")),
    Prop("aclinherit", "ACLINHERIT", INDEX, 25, ("discard", "noallow", "restricted",
                                                 "passthrough", "passthrough-x")),
    Prop("utf8only", "UTF8ONLY", INDEX, 34, _ON_OFF),
    Prop("casesensitivity", "CASE", INDEX, 36, ("sensitive", "insensitive", "mixed")),
    Prop("vscan", "VSCAN", INDEX, 37, _ON_OFF),
    Prop("nbmand", "NBMAND", INDEX, 38, _ON_OFF),
    Prop("sharesmb", "SHARESMB", STRING, 39),
    Prop("dnodesize", "DNSIZE", INDEX, 59, ("legacy", "auto", "1k", "2k", "4k", "8k", "16k")),
    Prop("volmode", "VOLMODE", INDEX, 66, ("default", "full", "dev", "none")),
    Prop("snapdev", "SNAPDEV", INDEX, 71, ("hidden", "visible")),
    Prop("acltype", "ACLTYPE", INDEX, 72, ("off", "posix", "nfsv4")),
    Prop("context", "CONTEXT", STRING, 73),
    Prop("fscontext", "FSCONTEXT", STRING, 74),
    Prop("defcontext", "DEFCONTEXT", STRING, 75),
    Prop("rootcontext", "ROOTCONTEXT", STRING, 76),
    Prop("relatime", "RELATIME", INDEX, 77, _ON_OFF),
    Prop("overlay", "OVERLAY", INDEX, 79, _ON_OFF),
    Prop("prefetch", "PREFETCH", INDEX, 96, ("none", "metadata", "all")),
    Prop("volthreading", "zvol threading", INDEX, 97, _ON_OFF),
    Prop("direct", "DIRECT", INDEX, 98, ("disabled", "standard", "always")),
    Prop("longname", "LONGNAME", INDEX, 99, _ON_OFF),
)


class UnknownProperty(ValueError):
    """``zprop_get_list()`` (lib/libzfs/libzfs_util.c) rejected a column name.

    ``message`` is the first line the tools print, "bad property list: invalid
    property 'xyz'"; the caller follows it with the subcommand's usage (exit 2).
    """

    def __init__(self, name: str):
        self.name = name
        self.message = f"bad property list: invalid property '{name}'"
        super().__init__(self.message)


class InvalidColumn(ValueError):
    """``zfs get -o`` / ``zpool get -o`` named a field that is not one of name,
    property, value, received, source: "invalid column name 'xyz'"
    (cmd/zfs/zfs_main.c zfs_do_get; cmd/zpool/zpool_main.c zpool_do_get), followed
    by the usage (exit 2)."""

    def __init__(self, name: str):
        self.name = name
        self.message = f"invalid column name '{name}'"
        super().__init__(self.message)


def lookup(table: dict[str, Prop], name: str) -> Prop:
    """``zprop_name_to_prop()``: the property name itself, or its column name in
    lower case (``propname_match()`` compares ``tolower(colname)`` with the input)."""
    if name in table:
        return table[name]
    if ":" in name and table is DATASET_PROPS:
        # A user property: its name, upper-cased, heads its column (zfs_do_list(),
        # print_header()), and its value is text.
        return Prop(name, name.upper(), STRING, -1)
    for prop in table.values():
        if prop.colname.lower() == name:
            return prop
    raise UnknownProperty(name)


def pool_lookup(name: str, version: ZfsVersion) -> Prop:
    """``zprop_name_to_prop()`` for a pool property as ``version``'s tools know them: a
    property a later release added is as unknown as a misspelt one (UnknownProperty)."""
    prop = lookup(POOL_PROPS, name)
    if prop.name not in pool_property_names(version):
        raise UnknownProperty(name)
    return prop


def column_width(prop: Prop, rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS
                 ) -> tuple[int, bool]:
    """``zprop_width()``: (minimum width, fixed), as the release's ``rule`` has it
    (labsim.zfs.versions.ColumnWidths).  Only non-fixed columns are widened by their
    values, except under ``-p`` where every column is."""
    if rule is ColumnWidths.FLEX_FLAGS:
        width = len(prop.colname)
        if prop.kind == NUMBER:
            width = max(width, 5)
            if prop.name == "health":  # type == ZFS_TYPE_POOL && prop == ZPOOL_PROP_HEALTH
                width = 8
        elif prop.kind == INDEX:
            width = max([width, *(len(v) for v in prop.values)])
        # zprop_register_string() and _index() register every one flexible.
        return width, not (prop.flex or prop.kind != NUMBER)
    width = len(prop.colname)
    fixed = True
    if prop.kind == NUMBER:
        width = max(width, 5)  # "The maximum length of a human-readable number is 5"
        if prop.enum == _ZFS_PROP_CREATION:
            fixed = False
        if prop.enum == _ZPOOL_PROP_HEALTH:
            width = 8
    elif prop.kind == INDEX:
        width = max([width, *(len(v) for v in prop.values)])
    else:
        fixed = False
    return width, fixed


def expanded_width(prop: Prop, values: Iterable[str], literal: bool,
                   rule: ColumnWidths = ColumnWidths.ENUM_COLLISIONS) -> int:
    """Width after ``zpool_expand_proplist()`` / ``zfs_expand_proplist()``."""
    width, fixed = column_width(prop, rule)
    if fixed and not literal:
        return width
    return max([width, *(len(v) for v in values)])


# zprop_print_headers(): the columns of a get table and their titles
GET_COLUMNS = {"name": "NAME", "property": "PROPERTY", "value": "VALUE",
               "received": "RECEIVED", "source": "SOURCE"}


def get_fields(spec: str | Sequence[str] | None) -> tuple[str, ...]:
    """The ``-o`` fields of ``zfs get`` / ``zpool get``: default name,property,value,source; "all"
    is name,property,value,received,source (zfs_do_get)."""
    if spec is None:
        return ("name", "property", "value", "source")
    fields = spec.split(",") if isinstance(spec, str) else list(spec)
    if fields == ["all"]:
        return tuple(GET_COLUMNS)
    for field in fields:
        if field not in GET_COLUMNS:
            raise InvalidColumn(field)
    return tuple(fields)


def format_get_table(
    rows: Sequence[tuple[str, str, str, str]],
    value_widths: Sequence[int],
    *,
    scripted: bool = False,
    columns: Sequence[str] = ("name", "property", "value", "source"),
) -> str:
    """``zprop_print_headers()`` + ``zprop_print_one_property()``.

    ``rows`` are already-formatted (name, property, value, source) strings;
    ``value_widths`` are the widened column widths of the requested properties
    (the VALUE column is as wide as the widest of them, and at least "VALUE").
    Columns are separated by two spaces and padded (``%-*s``), except the last
    one; ``-H`` separates them by a tab and prints no header.
    """
    for col in columns:
        if col not in GET_COLUMNS:
            raise InvalidColumn(col)
    widths = {col: len(title) for col, title in GET_COLUMNS.items()}
    for name, prop, _value, _source in rows:
        widths["property"] = max(widths["property"], len(prop))
        widths["name"] = max(widths["name"], len(name))
    widths["value"] = max([widths["value"], *value_widths])
    # "we kludge it up by taking the worst-case scenario of inheriting from the
    # longest name" -- only set when a name is longer than the word NAME.
    if widths["name"] > len("NAME"):
        widths["source"] = widths["name"] + len("inherited from")

    def line(cells: dict[str, str]) -> str:
        out = []
        for i, col in enumerate(columns):
            text = cells[col]
            if i == len(columns) - 1:
                out.append(text)
            elif scripted:
                out.append(text + "\t")
            else:
                out.append(text.ljust(widths[col]) + "  ")
        return "".join(out) + "\n"

    text = "" if scripted or not rows else line(GET_COLUMNS)
    for name, prop, value, source in rows:
        text += line({"name": name, "property": prop, "value": value, "source": source,
                      "received": "-"})
    return text
