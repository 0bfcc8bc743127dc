"""zfs: create, list, get, set (and destroy for datasets without snapshots)."""

from __future__ import annotations

import re

from labsim.format import zfs_list as fmt
from labsim.shell import messages as msg
from labsim.shell.session import CommandResult, Session, UsageError, parse_options
from labsim.shell.units import parse_zfs_number
from labsim.zfs import zil
from labsim.zfs.pool import (
    Dataset,
    Pool,
    create_dataset,
    dataset_available,
    dataset_compressratio,
    dataset_logical_referenced,
    dataset_logicalused,
    dataset_referenced,
    dataset_used,
    destroy_dataset,
    property_value,
)

COMPRESSION = re.compile(
    r"^(on|off|lzjb|gzip|gzip-[1-9]|zle|lz4|zstd|zstd-([1-9]|1[0-9])|zstd-fast"
    r"|zstd-fast-([1-9]|10|20|30|40|50|60|70|80|90|100|500|1000))$"
)
SETTABLE = ("compression", "recordsize", "sync", "logbias")
READABLE = ("type", "used", "available", "referenced", "compressratio", "mountpoint",
            "recordsize", "compression", "logicalused", "logicalreferenced", "sync",
            "logbias")
# Index properties other than compression: their values (module/zcommon/zfs_prop.c).
INDEX_VALUES = {"sync": zil.SYNC_VALUES, "logbias": zil.LOGBIAS_VALUES}
LIST_DEFAULT = ["name", "used", "avail", "refer", "mountpoint"]
ALIASES = {"avail": "available", "refer": "referenced", "compress": "compression",
           "recsize": "recordsize", "ratio": "compressratio"}
MAX_RECORDSIZE = 1 << 20  # zfs_max_recordsize in OpenZFS 2.1


def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zfs_missing_command(), 2)
    sub = {"list": list_datasets, "get": get, "set": set_property, "create": create,
           "destroy": destroy}.get(argv[1])
    if sub is None:
        raise UsageError(msg.zfs_unrecognized_command(argv[1]), 2)
    return sub(session, argv[2:])


def _getopt(args: list[str], optstring: str, subcommand: str):
    return parse_options(args, optstring, missing_argument=msg.zfs_missing_argument,
                         invalid_option=msg.zfs_invalid_option,
                         usage=msg.zfs_subcommand_usage(subcommand))


def find(session: Session, name: str) -> tuple[Pool, Dataset]:
    pool = session.pools.get(name.split("/")[0])
    if pool is None or name not in pool.datasets:
        raise UsageError(msg.dataset_does_not_exist(name), 1)
    return pool, pool.datasets[name]


def value_of(pool: Pool, ds: Dataset, prop: str) -> tuple[object, str]:
    """A property's raw value and its source column."""
    if prop in SETTABLE:
        return property_value(pool, ds, prop)
    if prop == "type":
        return "filesystem", "-"
    if prop == "used":
        return dataset_used(pool, ds), "-"
    if prop == "available":
        return dataset_available(pool, ds), "-"
    if prop == "referenced":
        return dataset_referenced(pool, ds), "-"
    if prop == "logicalreferenced":
        return dataset_logical_referenced(pool, ds), "-"
    if prop == "logicalused":
        return dataset_logicalused(pool, ds), "-"
    if prop == "compressratio":
        return dataset_compressratio(pool, ds), "-"
    if prop == "mountpoint":
        return "/" + ds.name, "default"
    raise KeyError(prop)


def _columns(spec: str, allowed: tuple[str, ...], subcommand: str) -> list[str]:
    columns = []
    for col in spec.split(","):
        col = ALIASES.get(col, col)
        if col != "name" and col not in allowed:
            raise UsageError(msg.zfs_bad_property(col) + "\n"
                             + msg.zfs_subcommand_usage(subcommand), 2)
        columns.append(col)
    return columns


def _datasets(session: Session, names: list[str], recursive: bool) -> list[tuple[Pool, Dataset]]:
    if not names:
        return [(p, d) for p in session.pools.values() for d in p.datasets.values()]
    out = []
    for name in names:
        pool, ds = find(session, name)
        out.append((pool, ds))
        if recursive:
            out.extend((pool, d) for n, d in pool.datasets.items() if n.startswith(name + "/"))
    return out


def list_datasets(session: Session, args: list[str]) -> CommandResult:
    opts, names = _getopt(args, "HpPro:s:S:t:d:", "list")
    flags = {k for k, _ in opts}
    spec = next((v for k, v in opts if k == "-o"), None)
    columns = _columns(spec, READABLE, "list") if spec else \
        [ALIASES.get(c, c) for c in LIST_DEFAULT]
    found = sorted(_datasets(session, names, "-r" in flags), key=lambda pd: pd[1].name)
    if not found:
        return CommandResult(stderr=msg.no_datasets_available() + "\n")
    rows = [{c: (ds.name if c == "name" else value_of(pool, ds, c)[0]) for c in columns}
            for pool, ds in found]
    return CommandResult(stdout=fmt.format_zfs_list(rows, columns=columns,
                                                    parsable="-p" in flags,
                                                    scripted="-H" in flags))


def get(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "HpRrd:o:s:t:", "get")
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError(msg.zfs_missing_property_argument() + "\n"
                         + msg.zfs_subcommand_usage("get"), 2)
    props = READABLE if operands[0] == "all" else \
        tuple(ALIASES.get(p, p) for p in operands[0].split(","))
    for prop in props:
        if prop not in READABLE:
            raise UsageError(msg.zfs_bad_property(prop) + "\n"
                             + msg.zfs_subcommand_usage("get"), 2)
    fields = next((v.split(",") for k, v in opts if k == "-o"),
                  ["name", "property", "value", "source"])
    rows = []
    # zfs_for_each() sorts what it visits by name (zfs_sort(), cmd/zfs/zfs_iter.c).
    found = sorted(_datasets(session, operands[1:], "-r" in flags), key=lambda pd: pd[1].name)
    for pool, ds in found:
        for prop in props:
            value, source = value_of(pool, ds, prop)
            rows.append((ds.name, prop, value, source))
    return CommandResult(stdout=fmt.format_zfs_get(rows, fields=fields, parsable="-p" in flags,
                                                   scripted="-H" in flags))


def set_property(session: Session, args: list[str]) -> CommandResult:
    if len(args) < 2:
        text = msg.zfs_missing_property_argument() if not args else msg.zfs_missing_dataset()
        raise UsageError(text + "\n" + msg.zfs_subcommand_usage("set"), 2)
    assignments, names = args[:-1], args[-1:]
    for assignment in assignments:
        prop, eq, value = assignment.partition("=")
        if not eq:
            raise UsageError(msg.zfs_missing_equals(assignment) + "\n"
                             + msg.zfs_subcommand_usage("set"), 2)
        prop = ALIASES.get(prop, prop)
        pool, ds = find(session, names[0])
        if prop not in READABLE:
            raise UsageError(msg.zfs_set_invalid_property(ds.name, prop), 1)
        if prop not in SETTABLE:
            raise UsageError(msg.zfs_readonly_property(ds.name, prop), 1)
        ds.properties[prop] = validate(ds.name, prop, value)
    return CommandResult()


def validate(name: str, prop: str, value: str, action: str = "set") -> object:
    """A property value as zfs set (or, with action "create", zfs create -o) checks it;
    the error names the action as zfs_valid_proplist()'s caller does."""
    if prop == "compression":
        if not COMPRESSION.match(value):
            raise UsageError(msg.zfs_bad_compression(name, action), 1)
        return value
    if prop in INDEX_VALUES:
        if value not in INDEX_VALUES[prop]:
            raise UsageError(msg.zfs_bad_index_value(name, prop, action), 1)
        return value
    size = parse_zfs_number(value)
    if size is None:
        raise UsageError(msg.zfs_bad_numeric_value(name, prop, value, action), 1)
    if size < 512 or size > MAX_RECORDSIZE or size & (size - 1):
        raise UsageError(msg.zfs_bad_recordsize(name, action), 1)
    return size


def create(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "pusV:b:o:", "create")
    if not operands:
        raise UsageError(msg.zfs_missing_dataset() + "\n" + msg.zfs_subcommand_usage("create"), 2)
    name = operands[0]
    parent = name.rsplit("/", 1)[0]
    if "/" not in name:
        raise UsageError(msg.zfs_create_missing_pool(name), 1)
    pool = session.pools.get(name.split("/")[0])
    if pool is None or parent not in pool.datasets:
        raise UsageError(msg.zfs_create_missing_parent(name), 1)
    if name in pool.datasets:
        raise UsageError(msg.zfs_dataset_exists(name), 1)
    properties: dict[str, object] = {}
    for k, v in opts:
        if k == "-o":
            prop, _, value = v.partition("=")
            properties[ALIASES.get(prop, prop)] = validate(name, ALIASES.get(prop, prop),
                                                           value, "create")
    create_dataset(pool, name, properties)
    return CommandResult()


def destroy(session: Session, args: list[str]) -> CommandResult:
    _, operands = _getopt(args, "fnprRv", "destroy")
    if not operands:
        raise UsageError(msg.zfs_missing_dataset() + "\n" + msg.zfs_subcommand_usage("destroy"),
                         2)
    pool, ds = find(session, operands[0])
    if ds.name == pool.name:
        raise UsageError(msg.zfs_destroy_root(ds.name), 1)
    destroy_dataset(pool, ds)
    return CommandResult()
