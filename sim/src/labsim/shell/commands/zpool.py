"""zpool: create, add, list, status, iostat, get, destroy, sync, version, freeze, wait; and
the device commands scrub, clear, offline, online, attach (RAID-Z expansion from 2.3
included), detach, replace and remove (of log vdevs).

Option parsing follows zpool's getopt strings (GNU getopt, so options may follow
operands). Vdev specifications are read as in cmd/zpool/zpool_vdev.c (see
labsim.shell.vdev_spec): mirror and raidz, raidz1-3 open a group; "log" makes the vdevs
after it log vdevs; cache, spare, special, dedup and draid are recognised but not
simulated; anything else is a device, which must be a full path (labsim has sparse files,
not disks).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from labsim.format import zpool_iostat as iostat_fmt
from labsim.format import zpool_list as list_fmt
from labsim.format import zpool_status as status_fmt
from labsim.format import zprop
from labsim.shell import fs, vdev_labels, vdev_spec
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError, parse_options
from labsim.shell.commands import zpool_import
from labsim.shell.commands import zpool_properties as pool_props
from labsim.shell.registry import command
from labsim.shell.units import parse_zfs_number
from labsim.zfs import (
    brt,
    ditto,
    health,
    import_config,
    lifecycle,
    raidz_expansion,
    raidz_expansion_state,
    scan,
)
from labsim.zfs import pool_property_table as pool_table
from labsim.zfs.errors import DeviceTooSmall
from labsim.zfs.labels import leaf_asize
from labsim.zfs.layouts import MIRROR, RAIDZ, SINGLE, Layout
from labsim.zfs.lifecycle import add_log_vdevs, add_vdevs, create_pool, freeze_pool, remove_log_vdev
from labsim.zfs.pool import Pool
from labsim.zfs.txg import advance_txg
from labsim.zfs.vdevs import Leaf, TopVdev, VdevSpec, build_vdev
from labsim.zfs.versions import (
    VdevListSize,
    ZfsVersion,
    dataset_property_names,
    pool_property_names,
    release_at_least,
    zpool_subcommands,
)

if TYPE_CHECKING:
    from labsim.shell.session import Session

GROUP_KEYWORDS = {"mirror", "raidz", "raidz1", "raidz2", "raidz3", "draid", "log", "cache",
                  "spare", "special", "dedup"}
POOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


@command("zpool")
def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zpool_missing_command(), 2)
    sub = SUBCOMMANDS.get(argv[1])
    if sub is None and "=" in argv[1]:
        # main() (cmd/zpool/zpool_main.c): a first word with "=" is `zpool set` shorthand
        return pool_props.set_(session, argv[1:])
    if sub is None and argv[1] in zpool_subcommands(session.version):
        raise UsageError(msg.subcommand_not_simulated("zpool", argv[1],
                                                      session.version.release), 1)
    if sub is None:
        raise UsageError(msg.zpool_unrecognized_command(argv[1]), 2)
    if argv[1] in JSON_SUBCOMMANDS and msg.asks_json(argv[2:], session.version):
        raise UsageError(msg.not_simulated(f"zpool {argv[1]}", "JSON output (-j)",
                                           session.version.release), 1)
    return sub(session, argv[2:])


# The zpool subcommands that print JSON with -j since 2.3.0 (cmd/zpool/zpool_main.c at
# zfs-2.3.9: zpool_do_list(), zpool_do_status(), zpool_do_get(), zpool_do_version()).
JSON_SUBCOMMANDS = ("list", "status", "get", "version")


def _getopt(args: list[str], optstring: str, subcommand: str):
    return parse_options(args, optstring, missing_argument=msg.zpool_missing_argument,
                         invalid_option=msg.zpool_invalid_option,
                         usage=msg.zpool_subcommand_usage(subcommand))


# Options later releases added to subcommands labsim simulates, read in the getopt strings
# of cmd/zpool/zpool_main.c at zfs-2.2.0 and zfs-2.3.9: (release, what it does). In those
# releases they get the notice; an older release refuses them as invalid options.
ADDED_OPTIONS = {
    "status": {"d": ((2, 3), "Direct I/O checksum errors"),
               "e": ((2, 3), "only unhealthy vdevs")},
    "scrub": {"e": ((2, 2), "error scrub"),
              "C": ((2, 3), "continuing from the last scrubbed txg")},
}


# Options of subcommands labsim simulates that change what the real tool prints in ways
# labsim does not reproduce (zpool-status.8, zpool-list.8, zpool-iostat.8 at 2.3.9): the
# notice, rather than the plain output as if they were not given.
UNSIMULATED_OPTIONS = {
    "status": {"-D": "the dedup table histogram", "-i": "initialization status",
               "-g": "vdev guids for names", "-p": "exact numbers", "-s": "slow I/O counts",
               "-t": "TRIM status", "-c": "script columns", "-T": "a timestamp"},
    "list": {"-g": "vdev guids for names", "-T": "a timestamp"},
    "iostat": {"-c": "script columns", "-g": "vdev guids for names", "-T": "a timestamp",
               "-y": "leaving out the report since import", "-l": "latency columns",
               "-q": "queue columns", "-r": "request size histograms",
               "-w": "latency histograms"},
}


def _refuse_unsimulated_options(subcommand: str, opts: list[tuple[str, str]],
                                version: ZfsVersion) -> None:
    for flag, _ in opts:
        what = UNSIMULATED_OPTIONS[subcommand].get(flag)
        if what is not None:
            raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", flag, what,
                                                      version.release), 1)


def _added_options(subcommand: str, version: ZfsVersion) -> str:
    return "".join(letter for letter, ((major, minor), _) in ADDED_OPTIONS[subcommand].items()
                   if release_at_least(version, major, minor))


def _refuse_added_options(subcommand: str, opts: list[tuple[str, str]],
                          version: ZfsVersion) -> None:
    for flag, _ in opts:
        added = ADDED_OPTIONS[subcommand].get(flag.lstrip("-"))
        if added is not None:
            raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", flag, added[1],
                                                      version.release), 1)


def _pool(session: Session, name: str) -> Pool:
    pool = session.pools.get(name)
    if pool is None:
        raise UsageError(msg.no_such_pool(name), 1)
    return pool


def _ashift(props: list[str]) -> int:
    ashift = 9  # file vdevs report 512-byte sectors
    for prop in props:
        key, _, value = prop.partition("=")
        if key != "ashift":
            continue
        number = parse_zfs_number(value)  # zpool reads it with zfs_nicestrtonum
        if number is None or (number != 0 and not msg.ASHIFT_MIN <= number <= msg.ASHIFT_MAX):
            raise UsageError(msg.bad_ashift(number), 1)
        ashift = number or 9
    return ashift


def _leaf(session: Session, word: str, props: list[str]) -> tuple[str, int]:
    """make_leaf_vdev(): resolve one device (labsim's are files given by full path) and
    check -o ashift, which zpool does for every leaf it builds."""
    if not word.startswith("/"):
        raise UsageError(msg.not_a_device(word), 1)
    path = session.absolute(word)
    host = session.host_files.get(path)
    if host is None:
        if fs.is_dir(session, path):
            raise UsageError(msg.cannot_use_directory(word), 1)
        hit = fs.mounted_dataset(session, path)
        if hit is not None and hit.name in hit.dataset.files:
            # A pool on a file of another pool's dataset: real ZFS takes it (a seed post
            # stacks its test pools so); labsim's vdevs are host files only.
            raise UsageError(msg.not_simulated("zpool", "a vdev on a file in a ZFS dataset",
                                               session.version.release), 1)
        raise UsageError(msg.cannot_open_path(word), 1)
    _ashift(props)
    return path, host.size


def _top_levels(specs: list[VdevSpec]) -> list[vdev_spec.TopLevel]:
    return [vdev_spec.TopLevel(s.layout.kind, s.layout.nparity,
                               tuple(size for _, size in s.devices)) for s in specs]


def _pool_top_levels(pool: Pool) -> list[vdev_spec.TopLevel]:
    return [vdev_spec.TopLevel(v.layout.kind, v.layout.nparity,
                               tuple(leaf.psize for leaf in v.leaves)) for v in pool.vdevs]


def _groups_to_specs(session: Session, groups: list[vdev_spec.Group], props: list[str],
                     log: bool = False) -> list[VdevSpec]:
    specs = []
    for group in groups:
        if log and group.kind == RAIDZ:
            raise UsageError(msg.unsupported_log_device(group.kind), 1)
        devices = tuple(_leaf(session, word, props) for word in group.words)
        if group.keyword is None:
            specs.append(VdevSpec(Layout(), devices))
            continue
        if len(devices) < group.min_devices:
            raise UsageError(msg.group_too_small(group.keyword, group.min_devices), 1)
        specs.append(VdevSpec(Layout(group.kind, len(devices), group.nparity), devices))
    return specs


def _vdev_specs(session: Session, words: list[str], action: str, pool: Pool | None,
                pool_name: str, props: list[str],
                force: bool) -> tuple[list[VdevSpec], list[VdevSpec], int]:
    """Resolve a vdev specification into top-level vdevs: the data vdevs, the log vdevs
    (after the "log" keyword), and the ashift.

    The order of the checks is make_root_vdev()'s (cmd/zpool/zpool_vdev.c): each group is
    built leaf by leaf (make_leaf_vdev(), which also rejects a bad -o ashift) and then
    checked for its minimum number of devices (construct_spec()); then the whole set is
    checked for devices in use, then (without -f) for consistent replication
    (check_replication(), which skips log vdevs). A device named twice is refused later,
    by the kernel.
    """
    if not words:
        raise UsageError(msg.missing_vdev_spec() + "\n" + msg.zpool_subcommand_usage(action), 2)
    try:
        data_words, log_words = vdev_spec.split_log(words)
        groups = vdev_spec.split_groups(data_words)
        log_groups = vdev_spec.split_groups(log_words or [])
    except ValueError as problem:
        text = str(problem)
        if text.startswith("invalid vdev specification"):
            raise UsageError(text, 1) from None
        # labsim's own words, not zpool's: the group parses, but is not simulated.
        raise UsageError(msg.notice(f"zpool {action} with '{text}' vdevs",
                                    release=session.version.release), 1) from None
    if action == "create" and not groups:
        # Refused by the kernel too (spa_create() needs a data vdev); its text has not been
        # recorded, so labsim says it does not simulate it.
        raise UsageError(msg.not_simulated("zpool create", "a pool of log vdevs only",
                                           session.version.release), 1)
    specs = _groups_to_specs(session, groups, props)
    log_specs = _groups_to_specs(session, log_groups, props, log=True)
    ashift = _ashift(props)
    paths = [path for spec in [*specs, *log_specs] for path, _ in spec.devices]
    in_use = [(path, other.name) for path in paths for other in session.pools.values()
              if scan.find_leaf(other, path) is not None]
    if in_use:
        raise UsageError(msg.devices_in_active_pools(in_use), 1)
    if not force and specs:
        problems = vdev_spec.check_replication(
            _pool_top_levels(pool) if pool is not None else None, _top_levels(specs))
        if problems:
            raise UsageError(msg.invalid_vdev_specification(problems), 1)
    if len(set(paths)) < len(paths):
        raise UsageError(msg.same_device_twice(action, pool_name), 1)
    return specs, log_specs, ashift


def _dry_run_tree(specs: list[VdevSpec]) -> list[str | tuple[str, list[str]]]:
    return [spec.devices[0][0] if spec.layout.kind == SINGLE
            else (spec.layout.type_name, [path for path, _ in spec.devices])
            for spec in specs]


def create(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "fndR:m:o:O:t:", "create")
    flags = {k for k, _ in opts}
    for flag, what in (("-m", "the root dataset's mountpoint"), ("-R", "an alternate root"),
                       ("-d", "a pool with no feature enabled"),
                       ("-t", "a temporary pool name")):
        if flag in flags:
            raise UsageError(msg.option_not_simulated("zpool create", flag, what,
                                                      session.version.release), 1)
    props = [v for k, v in opts if k == "-o"]
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("create"), 2)
    name = operands[0]
    if not POOL_NAME.match(name) or name in GROUP_KEYWORDS:
        raise UsageError(msg.invalid_pool_name("create", name), 1)
    for prop in props:
        # add_prop_list() (cmd/zpool/zpool_main.c): a name zpool_name_to_prop() knows
        # (hidden ones too) or a feature@ one.
        key = prop.partition("=")[0]
        if key not in pool_property_names(session.version) | pool_table.HIDDEN \
                and not key.startswith("feature@"):
            raise UsageError(msg.bad_pool_property(key, session.version.vdev_properties), 2)
    # -O properties are checked while the options are read (add_prop_list()), before
    # any vdev is looked at.
    fs_props = _root_dataset_properties(name, [v for k, v in opts if k == "-O"],
                                        session.version)
    specs, log_specs, ashift = _vdev_specs(session, operands[1:], "create", None, name, props,
                                           force="-f" in flags)
    if name in session.pools:
        raise UsageError(msg.pool_exists(name), 1)
    # zpool_create(): zpool_valid_proplist() with flags.create (ashift was checked by
    # make_leaf_vdev() already, and is modelled).
    kept = {}
    for prop in props:
        key, _, value = prop.partition("=")
        if key != "ashift":
            kept[key] = pool_props.check(session, name, key, value, session.version,
                                         create=True)
        else:  # kept as given: `zpool get ashift` shows it "local" (0 "default" unset)
            kept[key] = str(parse_zfs_number(value))
    if "-n" in flags:
        if log_specs:
            raise UsageError(msg.option_not_simulated("zpool create", "-n",
                                                      "with log vdevs",
                                                      session.version.release), 1)
        return CommandResult(stdout=msg.would_create(name, _dry_run_tree(specs)) + "\n")
    try:
        pool = create_pool(name, list(specs), session.version, ashift)
        if log_specs:
            add_log_vdevs(pool, list(log_specs), ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("create", name), 1) from None
    pool.root.properties.update(fs_props)
    pool.properties.update({k: v for k, v in kept.items()
                            if not k.startswith("feature@") and v != ""})
    pool.imported_at = session.clock
    session.pools[name] = pool
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def _root_dataset_properties(pool: str, assignments: list[str],
                             version: ZfsVersion) -> dict[str, object]:
    """-O file-system-property=value: set on the root dataset as zfs create -o would
    (zpool create hands them to zfs_create's property checks): the properties labsim
    models or stores; the others of the release get the notice."""
    from labsim.shell.commands import zfs
    from labsim.shell.commands import zfs_properties as zfs_props

    props: dict[str, object] = {}
    for assignment in assignments:
        prop, eq, value = assignment.partition("=")
        prop = zfs.ALIASES.get(prop, prop)
        if not eq:
            raise UsageError(msg.zfs_missing_equals(assignment) + "\n"
                             + msg.zpool_subcommand_usage("create"), 2)
        if not (prop in zfs.SETTABLE or zfs_props.is_user_property(prop)
                or prop in zfs_props.stored_properties(version)):
            if prop in dataset_property_names(version):
                raise UsageError(msg.property_not_simulated("zpool create -O", prop,
                                                            version.release), 1)
            # add_prop_list() (cmd/zpool/zpool_main.c, 2.1.11 and 2.3.9), exit 2
            raise UsageError(f"property '{prop}' is not a valid filesystem property\n"
                             + msg.zpool_subcommand_usage("create"), 2)
        # zpool_create() checks them with zfs_valid_proplist(), errors "cannot create".
        props[prop] = zfs.validate(pool, prop, value, version, "create")
    return props


def add(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "fgLnPo:", "add")
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("add"), 2)
    pool = _pool(session, operands[0])
    specs, log_specs, ashift = _vdev_specs(session, operands[1:], "add", pool, pool.name,
                                           [v for k, v in opts if k == "-o"],
                                           force=("-f", "") in opts)
    try:
        # Build every new vdev before adding any: a device that is too small fails the
        # whole command (the kernel opens the new vdevs together in spa_vdev_add()).
        for spec in specs:
            build_vdev(0, spec, ashift, pool.version)
        for spec in log_specs:
            try:
                build_vdev(0, spec, ashift, pool.version)
            except DeviceTooSmall:
                raise UsageError(msg.device_unavailable(pool.name), 1) from None
        if specs:
            add_vdevs(pool, list(specs), ashift)
        if log_specs:
            add_log_vdevs(pool, list(log_specs), ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("add", pool.name), 1) from None
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def destroy(session: Session, args: list[str]) -> CommandResult:
    _, operands = _getopt(args, "f", "destroy")
    if not operands:
        raise UsageError(msg.missing_pool_argument() + "\n"
                         + msg.zpool_subcommand_usage("destroy"), 2)
    pool = _pool(session, operands[0])
    del session.pools[operands[0]]
    zpool_import.destroy_labels(session, pool)
    return CommandResult()


def remove(session: Session, args: list[str]) -> CommandResult:
    """zpool remove POOL DEVICE...: labsim removes log vdevs (always allowed); removing
    a data vdev (the device_removal feature, which copies its data away) is not
    modelled."""
    opts, operands = _getopt(args, "npsw", "remove")
    if ("-s", "") in opts:
        raise UsageError(msg.option_not_simulated("zpool remove", "-s", "stopping a device "
                                                  "removal", session.version.release), 1)
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("remove"), 2)
    pool = _pool(session, operands[0])
    if len(operands) < 2:
        raise UsageError(msg.missing_device() + "\n" + msg.zpool_subcommand_usage("remove"), 2)
    for word in operands[1:]:
        path = session.absolute(word) if word.startswith("/") else word
        log = next((v for v in pool.logs if any(leaf.path == path for leaf in v.leaves)
                    or v.name == word), None)
        if log is not None:
            remove_log_vdev(pool, log)
            for leaf in log.leaves:  # vdev_remove_make_hole_and_free(): labels cleared
                vdev_labels.erase_labels(session, leaf.path)
            vdev_labels.write_labels(session, pool)
            continue
        if scan.find_leaf(pool, path) is not None or any(v.name == word for v in pool.vdevs):
            raise UsageError(msg.not_simulated("zpool remove", "removing a data vdev "
                                               "(device removal; log vdevs are)",
                                               session.version.release), 1)
        raise UsageError(msg.no_such_device_in_pool(word), 1)
    return CommandResult()


def freeze(session: Session, args: list[str]) -> CommandResult:
    """zpool freeze POOL: an undocumented testing aid (zpool_do_freeze() issues
    ZFS_IOC_POOL_FREEZE; spa_freeze() in module/zfs/spa.c). Transaction groups after this
    one still run in memory but are never written to disk, so an export and import
    afterwards finds what a power failure now would have left: the last written txg,
    plus whatever the intent log can replay."""
    if len(args) != 1:
        raise UsageError("usage: zpool freeze <pool>", 2)
    pool = _pool(session, args[0])
    freeze_pool(pool)
    return CommandResult()


def iostat(session: Session, args: list[str]) -> CommandResult:
    """zpool iostat [-v] [-p] [-H] [pool...]: one report, the statistics since each pool
    was imported (an interval and count are not modelled)."""
    opts, names = _getopt(args, "c:gHLpPT:vyhlrwnq", "iostat")
    if ("-h", "") in opts:  # zpool_do_iostat(): case 'h': usage(B_FALSE)
        raise UsageError(msg.zpool_subcommand_usage("iostat"), 2)
    _refuse_unsimulated_options("iostat", opts, session.version)
    flags = {k for k, _ in opts}
    if names and names[-1].isdigit():
        raise UsageError(msg.not_simulated("zpool iostat", "a report repeated at an interval",
                                           session.version.release), 1)
    pools = _selected(session, names)
    if not pools:
        return CommandResult(stderr=msg.no_pools_available() + "\n", status=1)
    rows = [iostat_row(session, p) for p in sorted(pools, key=lambda p: p.name)]
    return CommandResult(stdout=iostat_fmt.format_zpool_iostat(
        rows, verbose="-v" in flags, parsable="-p" in flags, scripted="-H" in flags))


def iostat_row(session: Session, pool: Pool) -> iostat_fmt.IostatRow:
    seconds = max(1.0, session.clock - pool.imported_at)

    def row(v: TopVdev) -> iostat_fmt.IostatRow:
        children = ([] if v.kind == SINGLE else
                    [iostat_fmt.IostatRow(leaf.path, None, None, 0, v.write_ops / seconds,
                                          0, v.write_bytes / seconds)
                     for leaf in v.leaves])
        return iostat_fmt.IostatRow(v.name, v.alloc, v.free, 0, v.write_ops / seconds, 0,
                                    v.write_bytes / seconds, children=children)

    vdevs = [row(v) for v in pool.vdevs]
    logs = [row(v) for v in pool.logs]
    ops = sum(v.write_ops for v in [*pool.vdevs, *pool.logs]) / seconds
    bw = sum(v.write_bytes for v in [*pool.vdevs, *pool.logs]) / seconds
    return iostat_fmt.IostatRow(pool.name, pool.alloc, pool.free, 0, ops, 0, bw,
                                children=vdevs, logs=logs)


def sync(session: Session, args: list[str]) -> CommandResult:
    """zpool sync [-f]: each pool named (or every pool) syncs a transaction group (-f
    forces one when nothing is dirty, as labsim always does)."""
    _, names = _getopt(args, "f", "sync")
    for pool in _selected(session, names):
        advance_txg(pool)
    return CommandResult()


def version(session: Session, args: list[str]) -> CommandResult:
    return CommandResult(stdout=msg.zpool_version(session.version.release,
                                                  session.version.package_release) + "\n")


def _selected(session: Session, names: list[str]) -> list[Pool]:
    missing = [n for n in names if n not in session.pools]
    if missing:
        raise UsageError(msg.no_such_pool(missing[0]), 1)
    return [session.pools[n] for n in names] if names else list(session.pools.values())


def list_pools(session: Session, args: list[str]) -> CommandResult:
    opts, names = _getopt(args, "gHLpPvo:T:", "list")
    _refuse_unsimulated_options("list", opts, session.version)
    flags = {k for k, _ in opts}
    columns = None
    for k, v in opts:
        if k == "-o":
            columns = v.split(",")
            for column in (c for c in columns if c.lower() not in list_fmt.COLUMNS):
                _unlisted_column(column, session.version)
    pools = _selected(session, names)
    if not pools:
        return CommandResult(stdout=msg.no_pools_available() + "\n")
    rows = [pool_row(p) for p in sorted(pools, key=lambda p: p.name)]
    text = list_fmt.format_zpool_list(rows, verbose="-v" in flags, parsable="-p" in flags,
                                      scripted="-H" in flags, columns=columns,
                                      widths_rule=session.version.column_widths)
    return CommandResult(stdout=text)


def _unlisted_column(column: str, version: ZfsVersion) -> NoReturn:
    """A -o column labsim's zpool list does not print: a property of the release (a
    feature@ or, from 2.2, a user property too) gets the notice; any other name the
    refusal of zprop_get_list() (lib/libzfs/libzfs_util.c), then the usage (exit 2)."""
    known: str | None
    try:
        known = zprop.pool_lookup(column, version).name
    except zprop.UnknownProperty:
        known = column if column.startswith("feature@") \
            or pool_props.is_user_property(column, version) else None
    if known is not None:
        raise UsageError(msg.not_simulated("zpool list", f"the column {known}",
                                           version.release), 1)
    raise UsageError(msg.pool_bad_property_list(column) + "\n"
                     + msg.zpool_subcommand_usage("list"), 2)


def _vdev_row(vdev: TopVdev, physical: bool, type_id: bool) -> list_fmt.VdevRow:
    """One top-level vdev of ``zpool list -v``, with its leaves under it for a group.

    Since OpenZFS PR #13106 (in 2.1.11, measured) a leaf's SIZE is its device size
    (vs_pspace), shown for leaves inside a group too; their other columns stay "-"
    because only top-level vdevs have space (print_list_stats()). Groups are named with
    their id ("mirror-0") since PR #13031; older releases printed "mirror".
    """
    name = vdev.name if type_id or vdev.kind == SINGLE else vdev.layout.type_name
    children = []
    if vdev.kind != SINGLE:
        # A leaf not opened since the import has no vs_pspace: "-" (and its guid).
        children = [list_fmt.VdevRow(name=leaf.name,
                                     pspace=leaf.label_aligned_size
                                     if physical and not leaf.not_present else None,
                                     health=leaf.state)
                    for leaf in vdev.leaves]
    pspace = vdev.leaves[0].label_aligned_size if physical and vdev.kind == SINGLE else None
    return list_fmt.VdevRow(
        name=name, size=vdev.space, pspace=pspace, alloc=vdev.alloc, free=vdev.free,
        frag=vdev.fragmentation, cap=vdev.alloc * 100 / vdev.space if vdev.space else 0.0,
        health=health.vdev_state(vdev), children=tuple(children),
    )


def pool_row(pool: Pool) -> list_fmt.PoolRow:
    physical = pool.version.vdev_list_size is VdevListSize.PHYSICAL
    vdevs = [_vdev_row(v, physical, pool.version.list_vdev_type_id) for v in pool.vdevs]
    logs = [_vdev_row(v, physical, pool.version.list_vdev_type_id) for v in pool.logs]
    return list_fmt.PoolRow(
        name=pool.name, size=pool.space, alloc=pool.alloc, free=pool.free,
        frag=pool.fragmentation, cap=pool.capacity, dedup=1.0,
        health=health.pool_state(pool), vdevs=tuple(vdevs), logs=tuple(logs),
        short_class_heading=not pool.version.class_heading_dash_under_health,
    )


def status(session: Session, args: list[str]) -> CommandResult:
    """zpool status [-x] [-v] [-P] [pool ...]. -P changes nothing here (file vdevs are
    always shown by their full path); -v would list damaged files, which labsim does not
    track by name, so it prints what plain status prints."""
    opts, names = _getopt(args, "DigLpPstvxc:T:" + _added_options("status", session.version),
                          "status")
    _refuse_added_options("status", opts, session.version)
    _refuse_unsimulated_options("status", opts, session.version)
    flags = {k for k, _ in opts}
    pools = _selected(session, names)
    if not pools:
        return CommandResult(stderr=msg.status_no_pools() + "\n")
    verbose = "-v" in flags
    if "-x" not in flags:
        text = "\n".join(status_fmt.format_zpool_status(status_row(p, verbose, session.now()))
                         for p in pools)
        return CommandResult(stdout=text)
    # status_callback() with -x: a healthy pool is one line when it was named, nothing
    # when every pool is listed; zpool_do_status() then says "all pools are healthy".
    chunks = []
    for pool in pools:
        if health.status_reason(pool) is not None:
            chunks.append(status_fmt.format_zpool_status(status_row(pool, verbose,
                                                                    session.now())))
        elif names:
            chunks.append(msg.pool_is_healthy(pool.name) + "\n")
    if not chunks:
        return CommandResult(stdout=msg.all_pools_healthy() + "\n")
    return CommandResult(stdout="\n".join(chunks) if not names else "".join(chunks))


def _leaf_status(leaf: Leaf) -> status_fmt.VdevStatus:
    # print_status_config(): "was <path>" for a leaf not present since the import,
    # else the vs_aux text of an unusable one
    note = f"was {leaf.path}" if leaf.not_present else leaf.aux
    return status_fmt.VdevStatus(name=leaf.name, state=leaf.state, read=leaf.read_errors,
                                 write=leaf.write_errors, cksum=leaf.cksum_errors, note=note)


def _scan_text(record: scan.ScanRecord | None) -> str | None:
    if record is None:
        return None
    if record.kind == "scrub":
        return status_fmt.scan_scrub_finished(record.processed, record.seconds,
                                              record.errors, record.end)
    return status_fmt.scan_resilver_finished(record.processed, record.seconds,
                                             record.errors, record.end)


def _top_status(pool: Pool, v: TopVdev) -> status_fmt.VdevStatus:
    if v.kind == SINGLE:
        return _leaf_status(v.leaves[0])
    return status_fmt.VdevStatus(
        name=v.name, state=health.vdev_state(v), cksum=pool.vdev_cksum_errors.get(v.id, 0),
        children=tuple(_leaf_status(leaf) for leaf in v.leaves))


def status_row(pool: Pool, verbose: bool = False, now: float = 0.0) -> status_fmt.PoolStatus:
    """What status_callback() prints for the pool; ``verbose`` (-v) lists the damaged
    files by path (zpool_obj_to_path(): the dataset's mountpoint and the file's name).
    ``now`` is the time of asking, from which a running expansion's rate is computed."""
    vdevs = [_top_status(pool, v) for v in pool.vdevs]
    reason = health.status_reason(pool)
    text, action, see = status_fmt.REASONS[reason] if reason else (None, None, None)
    scan_text = _scan_text(pool.scan)
    pending = pool.scrub_pending
    if pending is not None:
        # The scrub an expansion set up, its walk done and nothing issued yet
        # (labsim.zfs.raidz_expansion); blocks born in its setup txg would be skipped,
        # which labsim does not track (pss_skipped 0).
        scan_text = status_fmt.scan_scrub_in_progress(
            pending.start_time, examined=pending.to_examine, to_examine=pending.to_examine,
            issued=0, skipped=0, repaired=0)
    return status_fmt.PoolStatus(
        name=pool.name, state=health.pool_state(pool), vdevs=tuple(vdevs), status=text,
        action=action, see=see, scan=scan_text, cksum=pool.cksum_errors,
        errors=pool.data_errors, logs=tuple(_top_status(pool, v) for v in pool.logs),
        error_files=ditto.error_paths(pool) if verbose else None,
        expand=_expand_text(pool, now),
    )


def _expand_text(pool: Pool, now: float) -> str | None:
    """print_raidz_expand_status() from spa_raidz_expand_get_stats(): the running
    expansion, else the latest finished one; pres_to_reflow is the vdev's vs_alloc now."""
    expansion = pool.expansion
    if expansion is None:
        return None
    vdev = next(v for v in pool.vdevs if v.id == expansion.vdev)
    if expansion.state is raidz_expansion_state.ExpandState.FINISHED:
        return status_fmt.expand_finished(vdev.name, expansion.bytes_copied,
                                          expansion.start_time, expansion.end_time)
    return status_fmt.expand_in_progress(vdev.name, expansion.start_time,
                                         expansion.bytes_copied, vdev.alloc, now)


# ---------------------------------------------------------------- devices


def _device(pool: Pool, word: str) -> tuple[TopVdev, int] | None:
    """zpool_find_vdev(): a leaf named by its path (relative names are looked up under
    /dev, where labsim has no devices)."""
    return scan.find_leaf(pool, word)


def _new_device(session: Session, word: str, props: list[str]) -> tuple[str, int]:
    """The device attach or replace brings in: make_root_vdev() resolves it and checks
    that no active pool uses it (replication is not checked: check_rep is false)."""
    path, size = _leaf(session, word, props)
    for other in session.pools.values():
        if scan.find_leaf(other, path) is not None:
            raise UsageError(msg.device_in_active_pool(path, other.name), 1)
    return path, size


def _finish_resilver(session: Session, pool: Pool, nbytes: int) -> None:
    record = scan.resilver(pool, nbytes, session.now())
    session.clock += record.seconds


def scrub(session: Session, args: list[str]) -> CommandResult:
    """zpool scrub [-s | -p] [-w] pool ...: labsim's scrubs finish at once, so -w changes
    nothing and there is never one to stop or pause."""
    opts, names = _getopt(args, "spw" + _added_options("scrub", session.version), "scrub")
    _refuse_added_options("scrub", opts, session.version)
    flags = {k for k, _ in opts}
    if not names:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("scrub"),
                         2)
    errors = []
    for name in names:
        pool = _pool(session, name)
        if ("-s" in flags or "-p" in flags) and pool.scrub_pending is None:
            # zpool_scan(): ENOENT is EZFS_NO_SCRUB, "there is no active scrub".
            verb = "cancel" if "-s" in flags else "pause"
            errors.append(f"cannot {verb} scrubbing {name}: there is no active scrub\n")
            continue
        if pool.scrub_pending is not None:
            if "-s" in flags or "-p" in flags:
                raise UsageError(msg.not_simulated(
                    "zpool scrub", "stopping or pausing the scrub a RAID-Z expansion started "
                    "(zpool wait -t scrub finishes it)", session.version.release), 1)
            # zpool_scan(): EBUSY on a scrub in progress (2.2 and later wording).
            errors.append(f"cannot scrub {name}: currently scrubbing; use 'zpool scrub -s' "
                          "to cancel scrub\n")
            continue
        record = scan.scrub(pool, session.now())
        session.clock += record.seconds
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


def clear(session: Session, args: list[str]) -> CommandResult:
    _, operands = _getopt(args, "FnX", "clear")
    if not operands:
        raise UsageError(msg.missing_pool_name_short() + "\n"
                         + msg.zpool_subcommand_usage("clear"), 2)
    if len(operands) > 2:
        raise UsageError(msg.too_many_arguments() + "\n"
                         + msg.zpool_subcommand_usage("clear"), 2)
    pool = _pool(session, operands[0])
    if len(operands) == 2:
        found = _device(pool, operands[1])
        if found is None:
            raise UsageError(f"cannot clear errors for {operands[1]}: no such device in pool",
                             1)
        vdev, index = found
        scan.clear_errors(pool, [vdev.leaves[index]])
    else:
        scan.clear_errors(pool)
    return CommandResult()


def _pool_and_devices(session: Session, args: list[str], optstring: str,
                      subcommand: str) -> tuple[Pool, list[str]]:
    _, operands = _getopt(args, optstring, subcommand)
    if not operands:
        raise UsageError(msg.missing_pool_name_short() + "\n"
                         + msg.zpool_subcommand_usage(subcommand), 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_name() + "\n"
                         + msg.zpool_subcommand_usage(subcommand), 2)
    return _pool(session, operands[0]), operands[1:]


def offline(session: Session, args: list[str]) -> CommandResult:
    """zpool offline: refused with "no valid replicas" when the vdev would stop working
    (vdev_offline_locked(), module/zfs/vdev.c)."""
    opts, _ = _getopt(args, "ft", "offline")
    for flag, what in (("-f", "faulting the device"), ("-t", "a temporary offline")):
        if (flag, "") in opts:
            raise UsageError(msg.option_not_simulated("zpool offline", flag, what,
                                                      session.version.release), 1)
    pool, devices = _pool_and_devices(session, args, "ft", "offline")
    errors = []
    for word in devices:
        found = _device(pool, word)
        if found is None:
            errors.append(msg.no_such_device("offline", word) + "\n")
            continue
        vdev, index = found
        if not health.can_take_offline(vdev, index):
            errors.append(msg.no_valid_replicas("offline", word) + "\n")
            continue
        leaf = vdev.leaves[index]
        if leaf.state != health.OFFLINE:
            leaf.state = health.OFFLINE
            leaf.offline_alloc = pool.alloc
            vdev_labels.write_labels(session, pool)
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


def online(session: Session, args: list[str]) -> CommandResult:
    """zpool online: the leaf comes back and is resilvered with what was written while it
    was away (its DTL); labsim estimates that from the growth of the pool's allocation."""
    pool, devices = _pool_and_devices(session, args, "et", "online")
    errors, out = [], []
    for word in devices:
        found = _device(pool, word)
        if found is None:
            errors.append(msg.no_such_device("online", word) + "\n")
            continue
        vdev, index = found
        leaf = vdev.leaves[index]
        if leaf.state == health.UNAVAIL:
            # vdev_online() reopens it (vdev_reopen()): back if its file is at its path
            # with its label (vdev_validate() clears vdev_not_present), else it stays
            # unavailable and zpool_do_online() warns. Like a device found again at
            # import, it has no DTL to resilver: what was written meanwhile is stale on
            # it (labsim.zfs.import_config.mark_stale). Unverified on a recording.
            _, label = vdev_labels.read_device(session, leaf.path)
            if label is None or label.guid != leaf.guid:
                out.append(f"warning: device '{word}' onlined, but remains in faulted state\n"
                           "use 'zpool replace' to replace devices that are no longer "
                           "present\n")
                continue
            import_config.mark_stale(pool, vdev, leaf)
            leaf.state, leaf.aux, leaf.not_present = health.ONLINE, None, False
            vdev_labels.write_labels(session, pool)
        if leaf.state == health.OFFLINE:
            leaf.state = health.ONLINE
            missed = max(0, pool.alloc - leaf.offline_alloc)
            if vdev.kind == RAIDZ:
                missed //= vdev.layout.width
            _finish_resilver(session, pool, missed)
            vdev_labels.write_labels(session, pool)
    return CommandResult(stdout="".join(out), stderr="".join(errors),
                         status=1 if errors else 0)


def _attach_operands(args: list[str], subcommand: str, release: str,
                     flags: set[str] | None = None) -> tuple[list[str], list[str]]:
    """-o values and operands; ``flags``, when given, receives the flags (-f -s -w)."""
    opts, operands = _getopt(args, "fso:w", subcommand)
    if ("-s", "") in opts:
        raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", "-s",
                                                  "a sequential reconstruction", release), 1)
    if flags is not None:
        flags.update(k for k, _ in opts if k != "-o")
    usage = msg.zpool_subcommand_usage(subcommand)
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_spec() + "\n" + usage, 2)
    if len(operands) < 3 and subcommand == "attach":
        raise UsageError(msg.missing_new_device_spec() + "\n" + usage, 2)
    if len(operands) > 3:
        raise UsageError(msg.too_many_arguments() + "\n" + usage, 2)
    return [v for k, v in opts if k == "-o"], operands


def _smallest_child_asize(vdev: TopVdev) -> int:
    return min(leaf_asize(leaf.psize) for leaf in vdev.leaves)


def attach(session: Session, args: list[str]) -> CommandResult:
    """zpool attach pool existing new: a single device becomes a mirror, a mirror gets
    one more child; the new child is resilvered with every block of the vdev. A RAID-Z
    group named as such (raidz1-0) is widened by RAID-Z expansion from 2.3
    (labsim.zfs.raidz_expansion); 2.1 and 2.2 refuse it, as they refuse a RAID-Z child
    (spa_vdev_attach(): ENOTSUP). -w waits for the resilver or the expansion."""
    flags: set[str] = set()
    props, operands = _attach_operands(args, "attach", session.version.release, flags)
    pool = _pool(session, operands[0])
    existing, new = operands[1], operands[2]
    found = _device(pool, existing)
    # zpool_find_vdev() also finds a group by its type-id name ("raidz1-0", "mirror-0").
    group = None if found is not None else next(
        (v for v in pool.vdevs if v.kind != SINGLE and v.name == existing), None)
    if found is None and group is None:
        raise UsageError(msg.attach_no_such_device(existing, new), 1)
    path, size = _new_device(session, new, props)
    if group is not None:
        return _attach_to_group(session, pool, group, existing, new, path, size,
                                wait="-w" in flags)
    assert found is not None  # refused above when neither a device nor a group
    vdev, _ = found
    if vdev.kind == RAIDZ:
        raise UsageError(msg.attach_not_mirror(existing, new), 1)
    if leaf_asize(size) < _smallest_child_asize(vdev):
        raise UsageError(msg.attach_too_small(existing, new), 1)
    vdev.leaves.append(Leaf(path, size))
    vdev.layout = Layout(MIRROR, len(vdev.leaves))
    _finish_resilver(session, pool, scan.resilver_bytes(pool, vdev, len(vdev.leaves) - 1))
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def _attach_to_group(session: Session, pool: Pool, vdev: TopVdev, existing: str, new: str,
                     path: str, size: int, wait: bool) -> CommandResult:
    """spa_vdev_attach() with a group as the old vdev: only RAID-Z, and only where the
    release has RAID-Z expansion; the checks in the kernel's order."""
    if vdev.kind != RAIDZ or not session.version.raidz_expansion:
        # Not a leaf and not (expandable) RAID-Z: ENOTSUP; libzfs 2.1 and 2.2 have only
        # this text for it, 2.3 too for a mirror group.
        raise UsageError(msg.attach_not_mirror(existing, new), 1)
    if raidz_expansion.expanding(pool):
        # ZFS_ERR_RAIDZ_EXPAND_IN_PROGRESS: EZFS_RAIDZ_EXPAND_IN_PROGRESS's text
        raise UsageError(msg.attach_failed(existing, new, "raidz expansion in progress"), 1)
    # The new device against child 0's minimum size (vdev_get_min_asize()).
    if leaf_asize(size) < _smallest_child_asize(vdev):
        raise UsageError(msg.attach_too_small(existing, new), 1)
    if any(leaf.state != health.ONLINE for leaf in vdev.leaves):
        # ENXIO for a RAID-Z vdev (the typo is libzfs's own).
        raise UsageError(msg.attach_failed(
            existing, new, "raidz vdev has devices that are are offline or being replaced"), 1)
    lifecycle.attach_raidz_child(pool, vdev, path, size, session.now())
    vdev_labels.write_labels(session, pool)
    if wait:  # zpool_wait(ZPOOL_WAIT_RAIDZ_EXPAND): old_disk starts with "raidz"
        _wait_expansion(session, pool)
    return CommandResult()


def _wait_expansion(session: Session, pool: Pool) -> None:
    lifecycle.wait_for_expansion(pool)
    if pool.expansion is not None:
        session.clock = max(session.clock, pool.expansion.end_time)


def _wait_scrub(session: Session, pool: Pool) -> None:
    """A scrub labsim has not run yet (the one an expansion started) ends with the txg
    raidz_expansion.SCRUB_TXGS after its setup; the others finished at once."""
    while pool.scrub_pending is not None:
        advance_txg(pool)
    if pool.scan is not None:
        session.clock = max(session.clock, pool.scan.end)


# zpool_wait_activity_t in include/sys/fs/zfs.h, as zpool_do_wait() names them;
# raidz_expand came with RAID-Z expansion (2.3).
WAIT_ACTIVITIES = ("discard", "free", "initialize", "replace", "remove", "resilver", "scrub",
                   "trim", "raidz_expand")


def wait(session: Session, args: list[str]) -> CommandResult:
    """zpool wait [-Hp] [-T d|u] [-t activity[,...]] pool [interval]: returns once none of
    the activities runs. In labsim only an expansion and the scrub after it take time;
    everything else is done before its command returns."""
    opts, operands = _getopt(args, "HpT:t:", "wait")
    if any(k == "-T" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zpool wait", "-T", "a timestamp",
                                                  session.version.release), 1)
    usage = msg.zpool_subcommand_usage("wait")
    known = [a for a in WAIT_ACTIVITIES
             if a != "raidz_expand" or session.version.raidz_expansion]
    activities = set(known)
    for key, value in opts:
        if key == "-t":
            activities = set()
            for word in value.split(","):
                if word not in known:
                    raise UsageError(f"invalid activity '{word}'\n{usage}", 2)
                activities.add(word)
    if operands and operands[-1].isdigit() and len(operands) > 1:
        raise UsageError(msg.not_simulated("zpool wait", "a report repeated at an interval",
                                           session.version.release), 1)
    if not operands:
        raise UsageError(f"missing 'pool' argument\n{usage}", 2)
    if len(operands) > 1:
        raise UsageError(f"too many arguments\n{usage}", 2)
    pool = session.pools.get(operands[0])
    if pool is None:
        raise UsageError(msg.no_such_pool(operands[0]), 1)
    # zpool_do_wait() loops until no chosen activity runs: an expansion's scrub counts
    # when scrubs are waited for too.
    if "raidz_expand" in activities:
        _wait_expansion(session, pool)
    if "scrub" in activities:
        _wait_scrub(session, pool)
    return CommandResult()


def replace(session: Session, args: list[str]) -> CommandResult:
    """zpool replace pool old [new]: the new leaf takes the old one's place and is
    resilvered: every block for a mirror or single device, the leaf's columns of every
    block for RAID-Z."""
    props, operands = _attach_operands(args, "replace", session.version.release)
    pool = _pool(session, operands[0])
    old = operands[1]
    new = operands[2] if len(operands) > 2 else old
    found = _device(pool, old)
    if found is None:
        raise UsageError(msg.attach_no_such_device(old, new, replacing=True), 1)
    vdev, index = found
    if new == old:
        path, size = vdev.leaves[index].path, vdev.leaves[index].psize
    else:
        path, size = _new_device(session, new, props)
    others = [leaf for i, leaf in enumerate(vdev.leaves) if i != index]
    smallest = min((leaf_asize(leaf.psize) for leaf in others),
                   default=leaf_asize(vdev.leaves[index].psize))
    if leaf_asize(size) < min(smallest, leaf_asize(vdev.leaves[index].psize)):
        raise UsageError(msg.attach_too_small(old, new, replacing=True), 1)
    if path != vdev.leaves[index].path:
        vdev_labels.erase_labels(session, vdev.leaves[index].path)
    vdev.leaves[index] = Leaf(path, size)
    _finish_resilver(session, pool, scan.resilver_bytes(pool, vdev, index))
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def detach(session: Session, args: list[str]) -> CommandResult:
    """zpool detach pool device: only a mirror child (spa_vdev_detach(): ENOTSUP for
    anything else; EBUSY when it holds the last good copy). A mirror left with one child
    becomes that single device again."""
    _, operands = _getopt(args, "", "detach")
    usage = msg.zpool_subcommand_usage("detach")
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_spec() + "\n" + usage, 2)
    pool = _pool(session, operands[0])
    word = operands[1]
    found = _device(pool, word)
    if found is None:
        raise UsageError(msg.no_such_device("detach", word), 1)
    vdev, index = found
    if vdev.kind != MIRROR:
        raise UsageError(msg.detach_not_mirror(word), 1)
    if not any(leaf.state == health.ONLINE
               for i, leaf in enumerate(vdev.leaves) if i != index):
        raise UsageError(msg.no_valid_replicas("detach", word), 1)
    vdev_labels.erase_labels(session, vdev.leaves[index].path)
    del vdev.leaves[index]
    vdev.layout = Layout(MIRROR, len(vdev.leaves)) if len(vdev.leaves) > 1 else Layout()
    vdev_labels.write_labels(session, pool)
    return CommandResult()


POOL_PROPERTIES = ("size", "capacity", "altroot", "health", "allocated", "free",
                   "fragmentation", "ashift", "dedupratio", "freeing", "leaked", "readonly")
# Block cloning's pool properties (2.2 and later; labsim.zfs.bclone).
BCLONE_PROPERTIES = ("bcloneused", "bclonesaved", "bcloneratio")


def _known_properties(version: ZfsVersion) -> tuple[str, ...]:
    """The pool properties labsim models or stores that ``version`` has, in the order of
    zpool_prop_t (include/sys/fs/zfs.h), which `zpool get all` follows
    (zprop_expand_list() iterates the table unordered)."""
    names = POOL_PROPERTIES + tuple(p for p in BCLONE_PROPERTIES
                                    if p in version.pool_properties_added) \
        + pool_props.stored_names(version)
    return tuple(sorted(names, key=lambda name: zprop.POOL_PROPS[name].enum))


def _wanted_properties(spec: str, version: ZfsVersion) -> tuple[str, ...]:
    """zprop_get_list(): the properties named (or "all"), each a property of the release
    (zprop.pool_lookup(); a feature@ name is always accepted, zpool_prop_feature())."""
    if spec == "all":
        return _known_properties(version)
    wanted = []
    for name in spec.split(","):
        if name.startswith("feature@") or pool_props.is_user_property(name, version):
            wanted.append(name)
            continue
        try:
            prop = zprop.pool_lookup(name, version)
        except zprop.UnknownProperty:
            if name in pool_property_names(version) | pool_table.HIDDEN:
                raise UsageError(msg.property_not_simulated("zpool get", name,
                                                            version.release), 1) from None
            raise UsageError(msg.pool_bad_property_list(name) + "\n"
                             + msg.zpool_subcommand_usage("get"), 2) from None
        if prop.name not in _known_properties(version):
            raise UsageError(msg.property_not_simulated("zpool get", prop.name,
                                                        version.release), 1)
        wanted.append(prop.name)
    return tuple(wanted)


def get(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "pHo:", "get")
    flags = {k for k, _ in opts}
    columns = next((v for k, v in reversed(opts) if k == "-o"), None)
    if not operands:
        raise UsageError(msg.missing_property_argument() + "\n"
                         + msg.zpool_subcommand_usage("get"), 2)
    wanted = _wanted_properties(operands[0], session.version)
    rows: list[tuple[str, str, object, str]] = []
    for pool in _selected(session, operands[1:]):
        # zpool_expand_proplist() adds the pool's user properties to "all" (2.2 and later)
        users = tuple(sorted(p for p in pool.properties if ":" in p))
        for prop in wanted + users if operands[0] == "all" else wanted:
            if prop.startswith("feature@"):
                state = feature_state(pool, prop.removeprefix("feature@"))
                if state is not None:  # else zpool_prop_get_feature() fails: not printed
                    rows.append((pool.name, prop, state, "local"))
                continue
            value, source = pool_property(pool, prop)
            rows.append((pool.name, prop, value, source))
    try:
        text = list_fmt.format_zpool_get(rows, parsable="-p" in flags, scripted="-H" in flags,
                                         columns=columns,
                                         widths_rule=session.version.column_widths)
    except zprop.InvalidColumn as err:
        raise UsageError(err.message + "\n" + msg.zpool_subcommand_usage("get"), 2) from None
    # zpool get all lists every property and feature; labsim's list is shorter, and says so.
    note = msg.notice(f"zpool get all: the other properties and the features of OpenZFS "
                      f"{session.version.release}", plural=True, where=msg.REAL_OPENZFS) \
        if operands[0] == "all" else ""
    return CommandResult(stdout=text, stderr=note + "\n" if note else "")


MODELLED_FEATURES = pool_props.MODELLED_FEATURES


def feature_state(pool: Pool, feature: str) -> str | None:
    """zpool_prop_get_feature(): "enabled" or "active" (a refcount above 0) for a feature
    of the release (zpool create enables them all); None for a name the release does not
    know (zfeature_lookup_name() fails, get_callback() prints nothing)."""
    field = MODELLED_FEATURES.get(feature)
    if field is None:
        raise UsageError(msg.property_not_simulated("zpool get", f"feature@{feature}",
                                                    pool.version.release), 1)
    if not getattr(pool.version, field):
        return None
    if feature == "block_cloning":
        # brt_vdev_create() increments it for each vdev with BRT entries on disk,
        # brt_vdev_destroy() decrements it when the last one goes.
        return "active" if pool.brt.entries else "enabled"
    # vdev_raidz_attach_sync() increments it for each expansion; nothing decrements it.
    return "active" if pool.expansion is not None else "enabled"


def pool_property(pool: Pool, prop: str) -> tuple[object, str]:
    if prop in pool_props.stored_names(pool.version) or ":" in prop:
        return pool_props.stored_value(pool, prop)
    values = {
        "size": pool.space, "allocated": pool.alloc, "free": pool.free,
        "capacity": pool.capacity, "fragmentation": pool.fragmentation,
        "health": health.pool_state(pool), "altroot": None, "dedupratio": 1.0,
        "freeing": 0, "leaked": 0, "readonly": "off",
        # brt_get_used(), brt_get_saved(), brt_get_ratio() (labsim.zfs.bclone)
        "bcloneused": pool.brt.used, "bclonesaved": pool.brt.saved,
        "bcloneratio": brt.ratio(pool.brt) / 100,
    }
    if prop == "ashift":
        # The pool property, not the vdevs' ashift: what -o ashift set at creation, else
        # 0 from the default (zpool_prop.c registers ashift PROP_DEFAULT, default 0).
        if "ashift" in pool.properties:
            return int(pool.properties["ashift"]), "local"
        return 0, "default"
    return values[prop], "-" if prop != "altroot" else "default"


# The subcommands labsim simulates (labsim.limits lists the others real zpool has).
SUBCOMMANDS = {
    "create": create, "add": add, "list": list_pools, "status": status,
    "destroy": destroy, "get": get, "sync": sync, "version": version,
    "scrub": scrub, "clear": clear, "offline": offline, "online": online,
    "attach": attach, "detach": detach, "replace": replace,
    "export": zpool_import.export, "import": zpool_import.import_,
    "remove": remove, "iostat": iostat, "freeze": freeze, "wait": wait,
    "set": pool_props.set_,
}
