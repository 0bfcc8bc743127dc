"""`zfs list` and `zfs get`: the datasets and snapshots asked for, their properties as
columns, sorted and filtered as cmd/zfs/zfs_main.c does (zfs_do_list(), zfs_do_get()).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from labsim.format import zfs_list as fmt
from labsim.format.zprop import DATASET_PROPS
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zfs_properties as props
from labsim.zfs import snapshot_space, zvols
from labsim.zfs import snapshots as snap
from labsim.zfs.pool import Dataset, Pool, Snapshot
from labsim.zfs.versions import ZfsVersion

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.zfs_common import (
    ALIASES,
    LIST_DEFAULT,
    LIST_TYPES,
    find_any,
    readable_properties,
    refuse_unknown,
    value_of,
    zfs_getopt,
)

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
            refuse_unknown(version, f"zfs {subcommand}", col, msg.zfs_bad_property(col)
                            + "\n" + msg.zfs_subcommand_usage(subcommand, version), 2)
        columns.append(col)
    return columns


Listed = tuple[Pool, "Dataset | Snapshot"]


def _datasets(session: Session, names: list[str], recursive: bool,
              types: frozenset[str] = frozenset({"filesystem", "volume"}),
              depth: int | None = None, listsnapshots: bool = False,
              missing: list[str] | None = None) -> list[Listed]:
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
    # zfs_for_each() (cmd/zfs/zfs_iter.c) opens a named dataset with the types asked for,
    # file systems added when it recurses (-r, -d, or -t snapshot alone) and volumes too
    # when snapshots are asked for; zfs list without -t asks for snapshots as well
    # (ZFS_TYPE_DATASET), as zfs get does. zfs_open() checks the name first
    # (zfs_validate_name()), then the type of the dataset it found.
    argtypes = set(types) | ({"snapshot"} if listsnapshots else set())
    if recursive or depth is not None or types == frozenset({"snapshot"}):
        argtypes.add("filesystem")
        if "snapshot" in types:
            argtypes.add("volume")

    def refuse(text: str) -> None:
        if missing is None:
            raise UsageError(text, 1)
        missing.append(text + "\n")

    for name in names:
        if "@" in name and "snapshot" not in argtypes:
            refuse(f"cannot open '{name}': snapshot delimiter '@' is not expected here")
            continue
        try:
            pool, found = find_any(session, name)
        except UsageError as err:
            if missing is None:
                raise
            # zfs_for_each() (cmd/zfs/zfs_iter.c): a name zfs_open() cannot open is
            # reported and the others are still visited; the exit status is 1.
            missing.append(err.message + "\n")
            continue
        kind = "snapshot" if isinstance(found, Snapshot) \
            else "volume" if zvols.is_volume(found) else "filesystem"
        if kind not in argtypes:
            refuse(f"cannot open '{name}': operation not applicable to datasets of this type")
            continue
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
        if ("volume" if zvols.is_volume(ds) else "filesystem") in types:
            out.append((pool, ds))
        if "snapshot" in types and ds.name not in skip_snapshots_of:
            out.extend((pool, s) for s in ds.snapshots)
    return out


def _sort_key(item: Listed) -> tuple[str, int, int]:
    obj = item[1]
    if isinstance(obj, Snapshot):
        return obj.dataset, 1, obj.txg
    return obj.name, 0, 0


def _types(spec: str | None, version: ZfsVersion,
           subcommand: str = "list") -> frozenset[str]:
    """-t's types (zfs_do_list(), zfs_do_get()); without -t, zfs list shows file systems
    and volumes."""
    if spec is None:
        return frozenset({"filesystem", "volume"})
    types = set()
    for word in spec.split(","):
        kind = LIST_TYPES.get(word)
        if kind is None:
            raise UsageError(f"invalid type '{word}'\n"
                             + msg.zfs_subcommand_usage(subcommand, version), 2)
        types |= {"filesystem", "volume", "snapshot"} if kind == "all" else {kind}
    return frozenset(types)


def list_datasets(session: Session, args: list[str]) -> CommandResult:
    opts, names = zfs_getopt(args, "Hpro:s:S:t:d:", "list", session.version)
    flags = {k for k, _ in opts}
    spec = next((v for k, v in opts if k == "-o"), None)
    columns = (_columns(spec, readable_properties(session.version), "list", session.version)
               if spec else [ALIASES.get(c, c) for c in LIST_DEFAULT])
    depth = next((int(v) for k, v in opts if k == "-d"), None)
    type_spec = next((v for k, v in opts if k == "-t"), None)
    missing: list[str] = []
    found = _datasets(session, names, "-r" in flags, _types(type_spec, session.version), depth,
                      listsnapshots=type_spec is None and spec != "space", missing=missing)
    if missing and not found:
        return CommandResult(stderr="".join(missing), status=1)
    if not found:
        return CommandResult(stderr=msg.no_datasets_available() + "\n")
    # A snapshot's USED needs its dataset's whole chain walked: walked once per dataset,
    # so that listing n snapshots takes time linear in n (snapshot_space.snapshots_used()).
    used_of_snapshots: dict[str, dict[str, int]] = {}

    def value(pool: Pool, ds: Dataset | Snapshot, column: str) -> object:
        if column == "name":
            return ds.name
        if column == "used" and isinstance(ds, Snapshot):
            if ds.dataset not in used_of_snapshots:
                used_of_snapshots[ds.dataset] = snapshot_space.snapshots_used(
                    pool, snap.owner(pool, ds))
            return used_of_snapshots[ds.dataset][ds.name]
        return value_of(pool, ds, column)[0]

    sort_keys = [(_columns(v, readable_properties(session.version), "list", session.version)[0],
                  k == "-S") for k, v in opts if k in ("-s", "-S")]
    if sort_keys:
        found = _sorted_by(found, sort_keys, value)
    rows = [{c: value(pool, ds, c) for c in columns} for pool, ds in found]
    return _with_missing(CommandResult(stdout=fmt.format_zfs_list(
        rows, columns=columns, parsable="-p" in flags, scripted="-H" in flags,
        widths_rule=session.version.column_widths)), missing)


def _with_missing(result: CommandResult, missing: list[str]) -> CommandResult:
    """``result`` after the errors of the names zfs_for_each() could not open, which it
    printed before anything else, and exit status 1 if there were any."""
    if not missing:
        return result
    errors = "".join(missing) + result.stderr
    return CommandResult(stdout=result.stdout, stderr=errors, status=1,
                         output=((2, errors), (1, result.stdout)) if result.stdout
                         else ((2, errors),))


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
    opts, operands = zfs_getopt(args, "Hprd:o:s:t:", "get", session.version)
    flags = {k for k, _ in opts}
    sources = None
    for k, v in opts:
        if k == "-s":
            sources = set()
            for word in v.split(","):
                if word not in GET_SOURCES:
                    raise UsageError(f"invalid source '{word}'\n"
                                     + msg.zfs_subcommand_usage("get", session.version), 2)
                sources.add(word)
    depth = next((int(v) for k, v in opts if k == "-d"), None)
    if not operands:
        raise UsageError(msg.zfs_missing_property_argument() + "\n"
                         + msg.zfs_subcommand_usage("get", session.version), 2)
    readable = readable_properties(session.version)
    everything = operands[0] == "all"
    # "all" in zfs_prop_t order (include/sys/fs/zfs.h): zprop_expand_list() walks the
    # property table unordered, as `zfs get all` prints it; user properties come after.
    wanted = tuple(sorted(readable, key=lambda name: DATASET_PROPS[name].enum)) \
        if everything else tuple(ALIASES.get(p, p)
                                 for p in _expand_space(operands[0].split(",")))
    for prop in wanted:
        if prop not in readable and prop != "name" and not props.is_user_property(prop):
            refuse_unknown(session.version, "zfs get", prop, msg.zfs_bad_property(prop)
                            + "\n" + msg.zfs_subcommand_usage("get", session.version), 2)
    fields = next((v.split(",") for k, v in opts if k == "-o"),
                  ["name", "property", "value", "source"])
    rows = []
    # zfs_for_each() sorts what it visits by name (zfs_sort(), cmd/zfs/zfs_iter.c).
    missing: list[str] = []
    found = _datasets(session, operands[1:], "-r" in flags,
                      _types(next((v for k, v in opts if k == "-t"), "all"), session.version,
                             "get"), depth,
                      missing=missing)
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
    if missing and not rows:
        return CommandResult(stderr="".join(missing), status=1)
    return _with_missing(CommandResult(
        stdout=fmt.format_zfs_get(rows, fields=fields, parsable="-p" in flags,
                                  scripted="-H" in flags,
                                  widths_rule=session.version.column_widths),
        stderr=note), missing)
