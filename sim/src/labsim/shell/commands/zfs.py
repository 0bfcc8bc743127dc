"""zfs: create, list, get, set, inherit, destroy, and snapshot, clone, promote and
rollback (the space they move is computed in labsim.zfs.snapshots). Which properties
labsim models, stores or answers with "not simulated" is decided, and explained, in
labsim.shell.commands.zfs_properties."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn

from labsim.format import zfs_list as fmt
from labsim.format.numbers import nicenum
from labsim.format.zprop import DATASET_PROPS
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError, parse_options
from labsim.shell.commands import zfs_properties as props
from labsim.shell.registry import command
from labsim.shell.units import parse_zfs_number
from labsim.zfs import snapshots as snap
from labsim.zfs import zil, zvols
from labsim.zfs.datasets import create_dataset, destroy_dataset
from labsim.zfs.errors import NotSimulated
from labsim.zfs.pool import Dataset, Pool, Snapshot, property_value
from labsim.zfs.space import (
    dataset_available,
    dataset_compressratio,
    dataset_logical_referenced,
    dataset_logicalused,
    dataset_used,
)
from labsim.zfs.txg import advance_txg
from labsim.zfs.versions import ZfsVersion, dataset_property_names, zfs_subcommands

if TYPE_CHECKING:
    from labsim.shell.session import Session

COMPRESSION = re.compile(
    r"^(on|off|lzjb|gzip|gzip-[1-9]|zle|lz4|zstd|zstd-([1-9]|1[0-9])|zstd-fast"
    r"|zstd-fast-([1-9]|10|20|30|40|50|60|70|80|90|100|500|1000))$"
)
SETTABLE = ("compression", "recordsize", "sync", "logbias", "copies", "refreservation")
READABLE = ("type", "used", "available", "referenced", "compressratio", "mountpoint",
            "recordsize", "compression", "logicalused", "logicalreferenced", "sync",
            "logbias", "usedbysnapshots", "usedbydataset", "usedbychildren",
            "usedbyrefreservation", "origin", "copies", "volsize", "volblocksize",
            "refreservation")
# Properties real `zfs set` refuses as read-only (PROP_READONLY, and volblocksize, set at
# creation only: zfs_valid_proplist() "'%s' is readonly"); the other READABLE ones that are
# not SETTABLE (mountpoint, volsize) real OpenZFS sets, and labsim does not simulate it.
READONLY = ("type", "used", "available", "referenced", "compressratio", "logicalused",
            "logicalreferenced", "usedbysnapshots", "usedbydataset", "usedbychildren",
            "usedbyrefreservation", "origin", "volblocksize")
# The used* properties (and avail, mountpoint, origin) do not apply to a snapshot: zfs list
# prints "-" (zfs_prop_valid_for_type()).
NOT_FOR_SNAPSHOTS = ("available", "mountpoint", "usedbysnapshots", "usedbydataset",
                     "usedbychildren", "usedbyrefreservation", "origin")
# Index properties other than compression: their values (module/zcommon/zfs_prop.c).
INDEX_VALUES = {"sync": zil.SYNC_VALUES, "logbias": zil.LOGBIAS_VALUES,
                "copies": ("1", "2", "3")}  # copies: labsim.zfs.ditto
LIST_DEFAULT = ["name", "used", "avail", "refer", "mountpoint"]
ALIASES = {"avail": "available", "refer": "referenced", "compress": "compression",
           "recsize": "recordsize", "ratio": "compressratio", "usedsnap": "usedbysnapshots",
           "usedds": "usedbydataset", "usedchild": "usedbychildren",
           "usedrefreserv": "usedbyrefreservation"}
# zfs list -t: the types and their abbreviations (zfs_do_list())
LIST_TYPES = {"filesystem": "filesystem", "fs": "filesystem", "snapshot": "snapshot",
              "snap": "snapshot", "volume": "volume", "vol": "volume", "bookmark": "bookmark",
              "all": "all"}


@command("zfs")
def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zfs_missing_command(), 2)
    name = ALIAS_SUBCOMMANDS.get(argv[1], argv[1])
    sub = SUBCOMMANDS.get(name)
    if sub is None and "=" in name:
        # main() (cmd/zfs/zfs_main.c): a first word with "=" is `zfs set` shorthand
        return set_property(session, argv[1:])
    if sub is None and name in zfs_subcommands(session.version):
        raise UsageError(msg.subcommand_not_simulated("zfs", name,
                                                      session.version.release), 1)
    if sub is None:
        raise UsageError(msg.zfs_unrecognized_command(argv[1]), 2)
    if name in JSON_SUBCOMMANDS and msg.asks_json(argv[2:], session.version):
        raise UsageError(msg.not_simulated(f"zfs {name}", "JSON output (-j)",
                                           session.version.release), 1)
    return sub(session, argv[2:])


# The other names of subcommands (command_table[] in cmd/zfs/zfs_main.c: "snap",
# "recv", "umount").
ALIAS_SUBCOMMANDS = {"snap": "snapshot", "recv": "receive", "umount": "unmount"}
# The zfs subcommands that print JSON with -j since 2.3.0 (cmd/zfs/zfs_main.c at zfs-2.3.9).
JSON_SUBCOMMANDS = ("list", "get", "version", "mount")


def version(session: Session, args: list[str]) -> CommandResult:
    """zfs version: the same two lines as `zpool version` (zfs_version_print() in
    lib/libzfs/libzfs_util.c, shared by both commands)."""
    return CommandResult(stdout=msg.zpool_version(session.version.release,
                                                  session.version.package_release) + "\n")


def _getopt(args: list[str], optstring: str, subcommand: str):
    return parse_options(args, optstring, missing_argument=msg.zfs_missing_argument,
                         invalid_option=msg.zfs_invalid_option,
                         usage=msg.zfs_subcommand_usage(subcommand))


def find(session: Session, name: str) -> tuple[Pool, Dataset]:
    pool = session.pools.get(name.split("/")[0])
    if pool is None or name not in pool.datasets:
        raise UsageError(msg.dataset_does_not_exist(name), 1)
    return pool, pool.datasets[name]


def find_any(session: Session, name: str) -> tuple[Pool, Dataset | Snapshot]:
    """A dataset or, for a name with "@", a snapshot."""
    if "@" not in name:
        return find(session, name)
    pool = session.pools.get(name.split("/")[0].split("@")[0])
    found = snap.find_snapshot(pool, name) if pool is not None else None
    if pool is None or found is None:
        raise UsageError(msg.dataset_does_not_exist(name), 1)
    return pool, found


def value_of(pool: Pool, ds: Dataset | Snapshot, prop: str) -> tuple[object, str]:
    """A property's raw value and its source column."""
    if prop == "name":  # zfs get name: the dataset's name, source "-"
        return ds.name, "-"
    if isinstance(ds, Snapshot):
        return _snapshot_value(pool, ds, prop)
    if prop in ("used", "usedbysnapshots", "usedbydataset", "usedbychildren",
                "usedbyrefreservation"):
        space = snap.space(pool, ds)
        return {"used": space.used, "usedbysnapshots": space.snapshots,
                "usedbydataset": space.dataset, "usedbychildren": space.children,
                "usedbyrefreservation": space.refreservation}[prop], "-"
    if prop == "origin":
        return ds.origin, "-"
    if prop in ("volsize", "volblocksize", "refreservation"):  # lab 7, labsim.zfs.zvols
        if prop == "refreservation":
            return int(str(ds.properties.get(prop, 0))), "local" if prop in ds.properties \
                else "default"
        return ds.properties.get(prop), "local" if zvols.is_volume(ds) else "-"
    if prop in SETTABLE:
        return property_value(pool, ds, prop)
    if prop == "type":
        return ("volume" if zvols.is_volume(ds) else "filesystem"), "-"
    if prop == "used":
        return dataset_used(pool, ds), "-"
    if prop == "available":
        return dataset_available(pool, ds), "-"
    if prop == "referenced":
        return snap.referenced(pool, ds), "-"
    if prop == "logicalreferenced":
        return dataset_logical_referenced(pool, ds), "-"
    if prop == "logicalused":
        return dataset_logicalused(pool, ds), "-"
    if prop == "compressratio":
        return dataset_compressratio(pool, ds), "-"
    if prop == "mountpoint":
        return (None, "-") if zvols.is_volume(ds) else ("/" + ds.name, "default")
    return props.stored_value(pool, ds, prop, pool.version)


def _snapshot_value(pool: Pool, s: Snapshot, prop: str) -> tuple[object, str]:
    if prop in NOT_FOR_SNAPSHOTS:
        return None, "-"
    if prop == "type":
        return "snapshot", "-"
    if prop == "used":
        return snap.snapshot_used(pool, s), "-"
    if prop == "referenced":
        return snap.referenced(pool, s), "-"
    if prop in SETTABLE:
        # compression, recordsize, sync, logbias, copies and refreservation are
        # registered for file systems and volumes only (module/zcommon/zfs_prop.c): a
        # snapshot shows "-" (recorded on 2.3.9: tools/probes/shell/lab16-properties.sh).
        return None, "-"
    if prop in ("volsize", "volblocksize"):
        owner = snap.owner(pool, s)
        return (owner.properties.get(prop), "-") if zvols.is_volume(owner) else (None, "-")
    if prop == "logicalused":
        # A dsl_dir's figure (dsl_dir_stats()), which a snapshot does not have: "-"
        # (recorded on 2.3.9, tests/fixtures/real/2.3.9/probes/lab15-mos-composition.txt).
        return None, "-"
    if prop == "logicalreferenced":
        owner = snap.owner(pool, s)
        return dataset_logical_referenced(pool, Dataset(owner.name, files=s.files,
                                                        properties=owner.properties)), "-"
    if prop == "compressratio":
        raise UsageError(msg.not_simulated("zfs get", f"the {prop} of a snapshot",
                                                    pool.version.release), 1)
    return props.stored_value(pool, s, prop, pool.version)


def _refuse_unknown(version: ZfsVersion, command: str, prop: str, refusal: str,
                    status: int) -> NoReturn:
    """A property labsim does not handle: real OpenZFS ``version`` knows it (or it is a
    user property, module:name) and labsim says it is not simulated; otherwise the real
    tool's ``refusal``."""
    if ":" in prop or prop in dataset_property_names(version):
        raise UsageError(msg.property_not_simulated(command, prop, version.release), 1)
    raise UsageError(refusal, status)


def _readable(version: ZfsVersion) -> tuple[str, ...]:
    """What zfs get and zfs list -o answer: the modelled properties, then the stored ones."""
    return READABLE + props.stored_properties(version)


# zprop_get_list() (lib/libzfs/libzfs_util.c): "space" in a property list stands for these.
SPACE_PROPERTIES = ("name", "available", "used", "usedbysnapshots", "usedbydataset",
                    "usedbyrefreservation", "usedbychildren")


def _expand_space(words: list[str]) -> list[str]:
    return [name for word in words
            for name in (SPACE_PROPERTIES if word == "space" else (word,))]


def _columns(spec: str, allowed: tuple[str, ...], subcommand: str,
             version: ZfsVersion) -> list[str]:
    columns = []
    for col in _expand_space(spec.split(",")):
        col = ALIASES.get(col, col)
        if col != "name" and col not in allowed and not props.is_user_property(col):
            _refuse_unknown(version, f"zfs {subcommand}", col, msg.zfs_bad_property(col)
                            + "\n" + msg.zfs_subcommand_usage(subcommand), 2)
        columns.append(col)
    return columns


Listed = tuple[Pool, "Dataset | Snapshot"]


def _datasets(session: Session, names: list[str], recursive: bool,
              types: frozenset[str] = frozenset({"filesystem"}),
              depth: int | None = None, listsnapshots: bool = False) -> list[Listed]:
    """What zfs list / zfs get visit: the named datasets (all of them without names),
    with -r or -d their descendants, and the snapshots of those when ``types`` include
    snapshots. A named snapshot is always listed. ``listsnapshots``: zfs list without -t,
    which also lists the snapshots it recurses into on a pool whose listsnapshots
    property is on (cmd/zfs/zfs_iter.c zfs_include_snapshots(), ZFS_ITER_PROP_LISTSNAPS).
    Sorted as zfs_sort() does without -s (cmd/zfs/zfs_iter.c zfs_compare(): by dataset
    name, a dataset before its snapshots, snapshots by createtxg)."""
    out: list[Listed] = []

    def types_in(pool: Pool) -> frozenset[str]:
        if listsnapshots and pool.properties.get("listsnapshots") == "on":
            return types | {"snapshot"}
        return types

    if not names:
        for pool in session.pools.values():
            out.extend(_with_snapshots(pool, list(pool.datasets.values()), types_in(pool)))
    for name in names:
        pool, found = find_any(session, name)
        if isinstance(found, Snapshot):
            out.append((pool, found))
            continue
        visited = [found]
        if not recursive and depth is None:
            # Without -r or -d only the named dataset is visited, its snapshots too only
            # when snapshots are the one type asked for: zfs_do_list() and zfs_do_get()
            # then set ZFS_ITER_DEPTH_LIMIT | ZFS_ITER_RECURSE with limit 1 (`zfs list -t
            # snapshot fs`, cmd/zfs/zfs_main.c at zfs-2.3.9, the same in 2.1.11).
            if types == frozenset({"snapshot"}):
                out.extend((pool, s) for s in found.snapshots)
            else:
                out.extend(_with_snapshots(pool, visited, types - {"snapshot"}))
            continue
        if recursive or depth is not None:
            visited += [d for d in snap.descendants_of(pool, found)
                        if depth is None
                        or d.name.count("/") - found.name.count("/") <= depth]
        # -d N: a snapshot is one level below its dataset (zfs_iter_children() depth).
        base = found.name.count("/")
        too_deep = () if depth is None else tuple(
            d.name for d in visited if d.name.count("/") - base >= depth)
        out.extend(_with_snapshots(pool, visited, types_in(pool), skip_snapshots_of=too_deep))
    return sorted(out, key=_sort_key)


def _with_snapshots(pool: Pool, datasets: list[Dataset], types: frozenset[str],
                    skip_snapshots_of: tuple[str, ...] = ()) -> list[Listed]:
    out: list[Listed] = []
    for ds in datasets:
        if "filesystem" in types:
            out.append((pool, ds))
        if "snapshot" in types and ds.name not in skip_snapshots_of:
            out.extend((pool, s) for s in ds.snapshots)
    return out


def _sort_key(item: Listed) -> tuple[str, int, int]:
    obj = item[1]
    if isinstance(obj, Snapshot):
        return obj.dataset, 1, obj.txg
    return obj.name, 0, 0


def _types(spec: str | None) -> frozenset[str]:
    if spec is None:
        return frozenset({"filesystem"})
    types = set()
    for word in spec.split(","):
        kind = LIST_TYPES.get(word)
        if kind is None:
            raise UsageError(f"invalid type '{word}'\n" + msg.zfs_subcommand_usage("list"), 2)
        types |= {"filesystem", "snapshot"} if kind == "all" else {kind}
    return frozenset(types)


def list_datasets(session: Session, args: list[str]) -> CommandResult:
    opts, names = _getopt(args, "Hpro:s:S:t:d:", "list")
    flags = {k for k, _ in opts}
    spec = next((v for k, v in opts if k == "-o"), None)
    columns = _columns(spec, _readable(session.version), "list", session.version) if spec else \
        [ALIASES.get(c, c) for c in LIST_DEFAULT]
    depth = next((int(v) for k, v in opts if k == "-d"), None)
    type_spec = next((v for k, v in opts if k == "-t"), None)
    found = _datasets(session, names, "-r" in flags, _types(type_spec), depth,
                      listsnapshots=type_spec is None and spec != "space")
    if not found:
        return CommandResult(stderr=msg.no_datasets_available() + "\n")
    # A snapshot's USED needs its dataset's whole chain walked: walked once per dataset,
    # so that listing n snapshots takes time linear in n (snap.snapshots_used()).
    used_of_snapshots: dict[str, dict[str, int]] = {}

    def value(pool: Pool, ds: Dataset | Snapshot, column: str) -> object:
        if column == "name":
            return ds.name
        if column == "used" and isinstance(ds, Snapshot):
            if ds.dataset not in used_of_snapshots:
                used_of_snapshots[ds.dataset] = snap.snapshots_used(pool, snap.owner(pool, ds))
            return used_of_snapshots[ds.dataset][ds.name]
        return value_of(pool, ds, column)[0]

    sort_keys = [(_columns(v, _readable(session.version), "list", session.version)[0],
                  k == "-S") for k, v in opts if k in ("-s", "-S")]
    if sort_keys:
        found = _sorted_by(found, sort_keys, value)
    rows = [{c: value(pool, ds, c) for c in columns} for pool, ds in found]
    return CommandResult(stdout=fmt.format_zfs_list(rows, columns=columns,
                                                    parsable="-p" in flags,
                                                    scripted="-H" in flags,
                                                    widths_rule=session.version.column_widths))


def _sorted_by(found: list[Listed], keys: list[tuple[str, bool]], value) -> list[Listed]:
    """zfs_sort() (cmd/zfs/zfs_iter.c) for -s/-S: by each key in turn, a dataset that has
    the property before one that has not, numbers by value and text by strcmp(), -S
    reversing a key; ties by name as without -s (zfs_compare())."""

    def compare(left: Listed, right: Listed) -> int:
        for prop, reverse in keys:
            lv, rv = value(*left, prop), value(*right, prop)
            if lv is not None and rv is None:
                ret = -1
            elif lv is None and rv is not None:
                ret = 1
            elif lv is None or lv == rv:
                ret = 0
            elif isinstance(lv, int | float) and isinstance(rv, int | float):
                ret = -1 if lv < rv else 1
            else:
                ret = -1 if str(lv) < str(rv) else 1
            if ret:
                return -ret if reverse else ret
        lk, rk = _sort_key(left), _sort_key(right)
        return -1 if lk < rk else (1 if lk > rk else 0)

    return sorted(found, key=functools.cmp_to_key(compare))


# zfs_do_get() -s: the source kinds, as zfs get's SOURCE column words them.
GET_SOURCES = ("local", "default", "inherited", "received", "temporary", "none")


def _source_kind(source: str) -> str:
    if source.startswith("inherited"):
        return "inherited"
    return "none" if source == "-" else source


def get(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "Hprd:o:s:t:", "get")
    flags = {k for k, _ in opts}
    sources = None
    for k, v in opts:
        if k == "-s":
            sources = set()
            for word in v.split(","):
                if word not in GET_SOURCES:
                    raise UsageError(f"invalid source '{word}'\n"
                                     + msg.zfs_subcommand_usage("get"), 2)
                sources.add(word)
    depth = next((int(v) for k, v in opts if k == "-d"), None)
    if not operands:
        raise UsageError(msg.zfs_missing_property_argument() + "\n"
                         + msg.zfs_subcommand_usage("get"), 2)
    readable = _readable(session.version)
    everything = operands[0] == "all"
    # "all" in zfs_prop_t order (include/sys/fs/zfs.h): zprop_expand_list() walks the
    # property table unordered, as `zfs get all` prints it; user properties come after.
    wanted = tuple(sorted(readable, key=lambda name: DATASET_PROPS[name].enum)) \
        if everything else tuple(ALIASES.get(p, p)
                                 for p in _expand_space(operands[0].split(",")))
    for prop in wanted:
        if prop not in readable and prop != "name" and not props.is_user_property(prop):
            _refuse_unknown(session.version, "zfs get", prop, msg.zfs_bad_property(prop)
                            + "\n" + msg.zfs_subcommand_usage("get"), 2)
    fields = next((v.split(",") for k, v in opts if k == "-o"),
                  ["name", "property", "value", "source"])
    rows = []
    # zfs_for_each() sorts what it visits by name (zfs_sort(), cmd/zfs/zfs_iter.c).
    found = _datasets(session, operands[1:], "-r" in flags,
                      _types(next((v for k, v in opts if k == "-t"), "all")), depth)
    for pool, ds in found:
        listed = [*wanted, *props.user_properties_of(pool, ds)] if everything else wanted
        for prop in listed:
            try:
                value, source = value_of(pool, ds, prop)
            except UsageError:
                if everything:  # zfs get all leaves out what it cannot get
                    continue
                raise
            if everything and value is None:
                continue
            if sources is not None and _source_kind(source) not in sources:
                continue  # get_callback(): zprop_print_one_property() skips the source
            rows.append((ds.name, prop, value, source))
    # zfs get all lists every property; labsim's list is shorter, and says so.
    note = msg.get_all_partial(session.version.release) + "\n" if everything else ""
    return CommandResult(stdout=fmt.format_zfs_get(rows, fields=fields, parsable="-p" in flags,
                                                   scripted="-H" in flags,
                                                   widths_rule=session.version.column_widths),
                         stderr=note)


def set_property(session: Session, args: list[str]) -> CommandResult:
    """zfs set [-u] PROPERTY=VALUE... DATASET...: zfs_do_set() (cmd/zfs/zfs_main.c at
    zfs-2.1.11 and zfs-2.3.9): the assignments first, then the datasets, each set in turn
    (one that does not exist is said and skipped). -u (2.2 and later) keeps a changed
    mountpoint from remounting, which changes nothing in labsim."""
    usage = msg.zfs_subcommand_usage("set")
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flags = args[0][1:]
        bad = next((c for c in flags if c != "u" or not session.version.vdev_properties), None)
        if bad is not None:
            raise UsageError(msg.zfs_invalid_option(bad) + "\n" + usage, 2)
        args = args[1:]
    if not args:
        raise UsageError("missing arguments\n" + usage, 2)
    if len(args) < 2:
        text = "missing property=value argument(s)" if "=" not in args[0] \
            else "missing dataset name(s)"
        raise UsageError(text + "\n" + usage, 2)
    ds_start = next((i for i, arg in enumerate(args) if "=" not in arg), None)
    if ds_start is None:
        raise UsageError("missing dataset name(s)\n" + usage, 2)
    if any("=" in arg for arg in args[ds_start:]):
        raise UsageError("invalid argument order\n" + usage, 2)
    assignments: dict[str, str] = {}
    for assignment in args[:ds_start]:
        prop, _, value = assignment.partition("=")
        prop = ALIASES.get(prop, prop)
        if prop in assignments:  # parseprop(): main() then exits with zfs_do_set()'s -1
            raise UsageError(f"property '{prop}' specified multiple times", 255)
        assignments[prop] = value
    errors = []
    for name in args[ds_start:]:
        try:
            _set_on(session, name, assignments)
        except UsageError as err:
            if not err.message.startswith("cannot open '"):
                raise
            errors.append(err.message + "\n")  # zfs_for_each() goes on with the others
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


def _set_on(session: Session, name: str, assignments: dict[str, str]) -> None:
    if "@" in name:
        find_any(session, name)
        raise UsageError(msg.not_simulated("zfs set", "setting a property of a snapshot",
                                           session.version.release), 1)
    pool, ds = find(session, name)
    checked = {}
    for prop, value in assignments.items():
        if prop in READONLY:
            raise UsageError(msg.zfs_readonly_property(ds.name, prop), 1)
        if prop == "volsize":  # resizing a volume
            raise UsageError(msg.property_not_simulated("zfs set", prop,
                                                        session.version.release), 1)
        checked[prop] = validate(ds.name, prop, value, session.version,
                                 kind=props.kind_of(ds))
    # zfs_prop_set_list() sends them together: all are set, or (a refusal) none.
    ds.properties.update(checked)


def validate(name: str, prop: str, value: str, version: ZfsVersion,
             action: str = "set", kind: str = "filesystem") -> object:
    """A property value as zfs set (or, with action "create", zfs create -o) checks it;
    the error names the action as zfs_valid_proplist()'s caller does."""
    if props.is_user_property(prop) or prop in props.stored_properties(version):
        return props.check_stored(name, kind, prop, value, version, action)
    if prop not in SETTABLE and prop not in ("volsize", "volblocksize"):
        where = f"cannot create '{name}'" if action == "create" \
            else f"cannot set property for '{name}'"
        _refuse_unknown(version, f"zfs {action}", prop, f"{where}: invalid property '{prop}'",
                        1)
    if prop == "compression":
        if not COMPRESSION.match(value):
            raise UsageError(msg.zfs_bad_compression(name, action), 1)
        return value
    if prop == "refreservation" and value == "none":
        return 0
    if prop in INDEX_VALUES:
        if value not in INDEX_VALUES[prop]:
            raise UsageError(msg.zfs_bad_index_value(name, prop, action), 1)
        return value
    size = parse_zfs_number(value)
    if size is None:
        raise UsageError(msg.zfs_bad_numeric_value(name, prop, value, action), 1)
    if prop == "refreservation":
        return size
    largest = version.max_recordsize
    if size < 512 or size > largest or size & (size - 1):
        raise UsageError(msg.zfs_bad_recordsize(name, action, nicenum(largest)), 1)
    return size


def _create_ancestors(pool: Pool, name: str) -> None:
    """zfs_create_ancestors() (lib/libzfs/libzfs_dataset.c): each missing ancestor of
    ``name``, from the top, as a file system with no property of its own (-p)."""
    parts = name.split("/")
    for depth in range(2, len(parts)):
        ancestor = "/".join(parts[:depth])
        if ancestor not in pool.datasets:
            create_dataset(pool, ancestor, {})


def create(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "pusnvPV:b:o:", "create")
    if not operands:
        raise UsageError(msg.zfs_missing_dataset() + "\n" + msg.zfs_subcommand_usage("create"), 2)
    for flag, what in (("-n", "a dry run"), ("-v", "the verbose listing"),
                       ("-P", "the parsable listing")):
        if (flag, "") in opts:
            raise UsageError(msg.option_not_simulated("zfs create", flag, what,
                                                      session.version.release), 1)
    name = operands[0]
    parent = name.rsplit("/", 1)[0]
    if "/" not in name:
        raise UsageError(msg.zfs_create_missing_pool(name), 1)
    pool = session.pools.get(name.split("/")[0])
    parents = ("-p", "") in opts
    if pool is not None and parents:
        if name in pool.datasets:
            return CommandResult()  # zfs_do_create(): "-p" and it exists: no complaint
        _create_ancestors(pool, name)
    if pool is None or parent not in pool.datasets:
        raise UsageError(msg.zfs_create_missing_parent(name), 1)
    if name in pool.datasets:
        raise UsageError(msg.zfs_dataset_exists(name), 1)
    properties: dict[str, object] = {}
    volsize = next((v for k, v in opts if k == "-V"), None)
    kind = "filesystem" if volsize is None else "volume"
    for k, v in opts:
        if k == "-o":
            prop, _, value = v.partition("=")
            prop = ALIASES.get(prop, prop)
            if prop in READONLY and prop != "volblocksize":
                raise UsageError(f"cannot create '{name}': '{prop}' is readonly", 1)
            properties[prop] = validate(name, prop, value, session.version, "create", kind)
    if volsize is not None:
        return _create_volume(pool, name, volsize, opts, properties)
    create_dataset(pool, name, properties)
    return CommandResult()


def _create_volume(pool: Pool, name: str, volsize: str, opts: list[tuple[str, str]],
                   properties: dict[str, object]) -> CommandResult:
    """zfs create [-s] [-b BLOCKSIZE] -V SIZE: a thick or sparse volume (labsim.zfs.zvols)."""
    size = parse_zfs_number(volsize)
    if size is None:
        raise UsageError(msg.zfs_bad_numeric_value(name, "volsize", volsize, "create"), 1)
    block_text = next((v for k, v in opts if k == "-b"), None)
    block = parse_zfs_number(block_text) if block_text is not None else None
    sparse = ("-s", "") in opts
    if not sparse:
        # A thick volume's refreservation must fit: dsl_dataset_set_refreservation_check()
        # returns ENOSPC, zfs_ioc_create() undoes the create, zfs_create() prints it
        # with zfs_standard_error(): "out of space" (zfs-2.3.9).
        copies = int(str(properties.get("copies", property_value(
            pool, pool.datasets[name.rsplit("/", 1)[0]], "copies")[0])))
        reserve = zvols.volsize_to_reservation(
            size, block or pool.version.default_volblocksize, copies)
        if reserve > dataset_available(pool, pool.datasets[name.rsplit("/", 1)[0]]):
            raise UsageError(f"cannot create '{name}': out of space", 1)
    try:
        zvols.create_volume(pool, name, size, sparse=sparse, volblocksize=block,
                            properties=properties)
    except ValueError as err:
        raise UsageError(f"cannot create '{name}': {err}", 1) from None
    except NotSimulated as err:
        raise UsageError(msg.not_simulated("zfs create", err.what, pool.version.release),
                         1) from None
    return CommandResult()


# ---------------------------------------------------------------- snapshots and clones
# Texts of cmd/zfs/zfs_main.c (zfs_do_destroy(), destroy_check_dependent(),
# destroy_print_cb(), zfs_do_rollback(), rollback_check()) and lib/libzfs, as OpenZFS
# 2.1.11 prints them (recorded in tests/fixtures/real/2.1.11/06-snapshots*).


def _usage_with_properties(subcommand: str) -> str:
    """usage(B_FALSE) of a subcommand other than set/get/inherit/list: the synopsis, then
    where to find the property and permission lists."""
    return (msg.zfs_subcommand_usage(subcommand)
            + "\n\nFor the property list, run: zfs set|get"
            + "\n\nFor the delegated permission list, run: zfs allow|unallow")


def _missing_delimiter(name: str) -> str:
    return f"cannot open '{name}': missing '@' delimiter in snapshot name"


def snapshot(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "ro:", "snapshot")
    if not operands:
        raise UsageError("missing snapshot argument\n" + _usage_with_properties("snapshot"), 2)
    recursive = "-r" in {k for k, _ in opts}
    if any(k == "-o" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zfs snapshot", "-o", "properties of the "
                                                  "snapshot", session.version.release), 1)
    for operand in operands:
        name, at, short = operand.partition("@")
        pool = session.pools.get(name.split("/")[0])
        if not at or not short:
            raise UsageError(_missing_delimiter(operand), 1)
        if pool is None or name not in pool.datasets:
            raise UsageError(msg.dataset_does_not_exist(name) + "\n"
                             + _usage_with_properties("snapshot"), 2)
        top = pool.datasets[name]
        targets = [top, *(snap.descendants_of(pool, top) if recursive else [])]
        for ds in targets:  # a refreservation must still be honoured afterwards
            refusal = zvols.snapshot_refusal(pool, ds, f"{ds.name}@{short}")
            if refusal:
                raise UsageError(refusal, 1)
        try:
            for ds in targets:  # zfs snapshot -r: one txg for all (dsl_dataset_snapshot())
                snap.take_snapshot(pool, ds, short, session.clock)
        except snap.SnapshotError as err:
            raise UsageError(err.message, 1) from None
        advance_txg(pool)
    return CommandResult()


def clone(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "po:", "clone")
    if len(operands) < 2:
        text = "missing source dataset argument" if not operands else \
            "missing target dataset argument"
        raise UsageError(text + "\n" + _usage_with_properties("clone"), 2)
    source, target = operands[0], operands[1]
    if "@" not in source:
        raise UsageError(_missing_delimiter(source), 1)
    pool, origin = find_any(session, source)
    assert isinstance(origin, Snapshot)
    if target in pool.datasets:
        raise UsageError(msg.zfs_dataset_exists(target), 1)
    if ("-p", "") in opts and target.split("/")[0] == pool.name:
        _create_ancestors(pool, target)  # zfs_do_clone() -p: zfs_create_ancestors()
    if target.rsplit("/", 1)[0] not in pool.datasets:
        raise UsageError(msg.zfs_create_missing_parent(target), 1)
    if any(k == "-o" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zfs clone", "-o", "properties of the "
                                                  "clone", session.version.release), 1)
    snap.clone(pool, origin, target)
    return CommandResult()


def promote(session: Session, args: list[str]) -> CommandResult:
    _, operands = _getopt(args, "", "promote")
    if not operands:
        raise UsageError("missing clone filesystem argument\n"
                         + _usage_with_properties("promote"), 2)
    pool, ds = find(session, operands[0])
    try:
        snap.promote(pool, ds)
    except snap.SnapshotError as err:
        raise UsageError(err.message, 1) from None
    return CommandResult()


def _dependents(pool: Pool, target: Dataset | Snapshot) -> list[str]:
    """zfs_iter_dependents() with recursion (lib/libzfs/libzfs_iter.c
    iter_dependents_cb()): depth first, each dataset after what depends on it: a
    filesystem's children, then its snapshots, each after its clones. Real OpenZFS takes
    children and snapshots in the order of their ZAP (a hash); labsim by name and by txg.
    A clone of a snapshot of a descendant is met twice, and listed twice, as in zfs.
    A clone chain may be thousands deep: the walk keeps its own stack, and finds clones and
    children through one index of the pool's datasets."""
    clones: dict[str, list[Dataset]] = {}
    children: dict[str, list[Dataset]] = {}
    for name, dataset in sorted(pool.datasets.items()):
        if dataset.origin:
            clones.setdefault(dataset.origin, []).append(dataset)
        parent = name.rpartition("/")[0]
        if parent:
            children.setdefault(parent, []).append(dataset)

    def depending(node: Dataset | Snapshot) -> Iterator[Dataset | Snapshot]:
        if isinstance(node, Snapshot):
            return iter(clones.get(node.name, []))
        return iter([*children.get(node.name, []), *node.snapshots])

    out: list[str] = []
    stack = [(target, depending(target))]
    while stack:
        node, rest = stack[-1]
        following = next(rest, None)
        if following is not None:
            stack.append((following, depending(following)))
            continue
        stack.pop()
        if stack:  # each dependent after what depends on it; the target itself is not one
            out.append(node.name)
    return out


def _is_descendant(target: str, name: str) -> bool:
    return name.startswith((target + "/", target + "@"))


def _refusal(target: Dataset | Snapshot, kind: str, dependents: list[str],
             recursive: bool) -> str:
    """destroy_check_dependent(): "<target> has children" (use '-r') for descendants when
    not recursive, "<target> has dependent clones" (use '-R') for clones when recursive or
    when the target is a snapshot; one header, at the first dependent reported."""
    lines: list[str] = []
    for name in dependents:
        if _is_descendant(target.name, name):
            if recursive:
                continue
            head = (f"cannot destroy '{target.name}': {kind} has children",
                    "use '-r' to destroy the following datasets:")
        else:
            if not recursive and kind != "snapshot":
                continue
            head = (f"cannot destroy '{target.name}': {kind} has dependent clones",
                    "use '-R' to destroy the following datasets:")
        if not lines:
            lines.extend(head)
        lines.append(name)
    return "\n".join(lines)


def destroy(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "vpndfrR", "destroy")
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError(msg.zfs_missing_dataset("destroy") + "\n"
                         + msg.zfs_subcommand_usage("destroy"), 2)
    if len(operands) > 1:
        raise UsageError("too many arguments\n" + msg.zfs_subcommand_usage("destroy"), 2)
    if "-d" in flags:
        raise UsageError(msg.option_not_simulated("zfs destroy", "-d", "deferred destroy",
                                                  session.version.release), 1)
    if "@" in operands[0]:
        return _destroy_snapshots(session, operands[0], flags)
    if "#" in operands[0]:
        raise UsageError(msg.not_simulated("zfs destroy", "destroying a bookmark",
                                           session.version.release), 1)
    return _destroy_filesystem(session, operands[0], flags)


def _verbose_line(flags: set[str], name: str) -> str:
    if "-p" in flags:
        return f"destroy\t{name}\n"
    return f"{'would' if '-n' in flags else 'will'} destroy {name}\n"


def _destroy_snapshots(session: Session, spec: str, flags: set[str]) -> CommandResult:
    """zfs destroy FS@SNAPSPEC: the snapshots the spec names (with -r also those of the
    descendants), refused while one has clones (unless -R); -v lists them and what they
    would free, range by range (destroy_print_cb(), lzc_snaprange_space())."""
    name, _, snapspec = spec.partition("@")
    pool, top = find(session, name)
    verbose = bool(flags & {"-v", "-p"})
    recursive = bool(flags & {"-r", "-R"})
    errors: list[str] = []
    listing = ""
    chosen: list[Snapshot] = []
    reclaim = 0
    for ds in [top, *(snap.descendants_of(pool, top) if recursive else [])]:
        picked = snap.snapshot_spec(ds, snapspec) or []
        for s in picked:
            if "-R" not in flags:
                refusal = _refusal(s, "snapshot", _dependents(pool, s), recursive)
                if refusal:
                    errors.append(refusal)
        chosen += picked
        if verbose:
            # Runs of consecutive chosen snapshots, each priced as one range.
            run: list[Snapshot] = []
            for member in [*ds.snapshots, None]:
                if member is not None and member in picked:
                    listing += _verbose_line(flags, member.name)
                    run.append(member)
                elif run:
                    reclaim += snap.range_reclaim(pool, run[0], run[-1])
                    run = []
    if errors:
        # The refusals go to stderr while the snapshots are gathered, before the
        # "would destroy" lines (stdout, flushed at exit): a terminal shows them first.
        return CommandResult(stderr="\n".join(errors) + "\n" + listing, status=1)
    if not chosen:
        return CommandResult.fail("could not find any snapshots to destroy; "
                                  "check snapshot names.")
    out = listing
    if verbose:
        if "-p" in flags:
            out += f"reclaim\t{reclaim}\n"
        else:
            word = "would" if "-n" in flags else "will"
            out += f"{word} reclaim {fmt.format_dataset_prop('used', reclaim)}\n"
    if "-n" in flags:
        return CommandResult(stdout=out)
    stderr = ""
    if "-R" in flags:
        for s in chosen:
            for dependent in _dependents(pool, s):
                if verbose:
                    out += _verbose_line(flags, dependent)
                stderr += _destroy_one(pool, dependent)
    snap.destroy_snapshots(pool, [s for s in chosen if snap.find_snapshot(pool, s.name)])
    return CommandResult(stdout=out, stderr=stderr)


def _destroy_one(pool: Pool, name: str) -> str:
    """Destroy one dataset or snapshot of a -R/-r run; one destroyed already (a clone met
    twice) gives zfs_open()'s error and the run goes on."""
    if "@" in name:
        found = snap.find_snapshot(pool, name)
        if found is None:
            return msg.dataset_does_not_exist(name) + "\n"
        snap.destroy_snapshots(pool, [found])
        return ""
    ds = pool.datasets.get(name)
    if ds is None:
        return msg.dataset_does_not_exist(name) + "\n"
    if ds.snapshots:
        snap.destroy_snapshots(pool, list(ds.snapshots))
    destroy_dataset(pool, ds)
    return ""


def _destroy_filesystem(session: Session, name: str, flags: set[str]) -> CommandResult:
    pool, ds = find(session, name)
    recursive = bool(flags & {"-r", "-R"})
    if ds.name == pool.name and not recursive:
        raise UsageError(msg.zfs_destroy_root(ds.name), 1)
    dependents = _dependents(pool, ds)
    if "-R" not in flags:
        refusal = _refusal(ds, "filesystem", dependents, recursive)
        if refusal:
            return CommandResult.fail(refusal)
    verbose = bool(flags & {"-v", "-p"})
    order = [*dependents, ds.name] if ds.name != pool.name else dependents
    out = "".join(_verbose_line(flags, n) for n in order) if verbose else ""
    if "-n" in flags:
        return CommandResult(stdout=out)
    stderr = "".join(_destroy_one(pool, n) for n in order)
    return CommandResult(stdout=out, stderr=stderr)


def rollback(session: Session, args: list[str]) -> CommandResult:
    """zfs rollback [-rR] FS@SNAP (zfs_do_rollback(), rollback_check()): newer snapshots
    must be destroyed (-r), and clones of them too (-R)."""
    opts, operands = _getopt(args, "rRf", "rollback")
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError("missing dataset argument\n" + _usage_with_properties("rollback"), 2)
    if "@" not in operands[0]:
        raise UsageError(_missing_delimiter(operands[0]), 1)
    pool, target = find_any(session, operands[0])
    assert isinstance(target, Snapshot)
    ds = snap.owner(pool, target)
    newer = snap.newer_snapshots(ds, target)
    where = f"cannot rollback to '{target.name}'"
    if newer and not flags & {"-r", "-R"}:
        return CommandResult.fail(
            f"{where}: more recent snapshots or bookmarks exist\n"
            "use '-r' to force deletion of the following snapshots and bookmarks:\n"
            + "\n".join(s.name for s in newer))
    clones = [n for s in newer for c in snap.clones_of(pool, s)
              for n in [*_dependents(pool, c), c.name]]
    if clones and "-R" not in flags:
        return CommandResult.fail(
            f"{where}: clones of previous snapshots exist\n"
            "use '-R' to force deletion of the following clones and dependents:\n"
            + "\n".join(clones))
    stderr = "".join(_destroy_one(pool, n) for n in clones)
    if newer:
        snap.destroy_snapshots(pool, newer)
    snap.rollback(pool, ds, target)
    return CommandResult(stderr=stderr)


# The subcommands labsim simulates (labsim.limits lists the others real zfs has).
SUBCOMMANDS = {"list": list_datasets, "get": get, "set": set_property, "create": create,
               "destroy": destroy, "snapshot": snapshot, "snap": snapshot, "clone": clone,
               "promote": promote, "rollback": rollback, "version": version,
               "inherit": lambda session, args: props.inherit(
                   session, args, modelled=SETTABLE, readable=READABLE, aliases=ALIASES)}
