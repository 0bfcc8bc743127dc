"""`zpool create`, `add`, `remove` (of log vdevs), `destroy` and `freeze`: a pool and its
vdevs. Vdev specifications are read as in cmd/zpool/zpool_vdev.c (see
labsim.shell.vdev_spec): mirror and raidz, raidz1-3 open a group; "log" makes the vdevs
after it log vdevs; cache, spare, special, dedup and draid are recognised but not
simulated; anything else is a device, which must be a full path (labsim has sparse files,
not disks).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from labsim.shell import fs, vdev_labels, vdev_spec
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zpool_import
from labsim.shell.commands import zpool_properties as pool_props
from labsim.shell.units import parse_zfs_number
from labsim.zfs import pool_property_table as pool_table
from labsim.zfs import (
    scan,
)
from labsim.zfs.errors import DeviceTooSmall
from labsim.zfs.layouts import RAIDZ, SINGLE, Layout
from labsim.zfs.lifecycle import add_log_vdevs, add_vdevs, create_pool, freeze_pool, remove_log_vdev
from labsim.zfs.mos import activate_feature
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import VdevSpec, build_vdev
from labsim.zfs.versions import (
    ZfsVersion,
    dataset_property_names,
    pool_property_names,
    release_at_least,
)

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.zpool_common import (
    pool_named,
    zpool_getopt,
)

GROUP_KEYWORDS = {"mirror", "raidz", "raidz1", "raidz2", "raidz3", "draid", "log", "cache",
                  "spare", "special", "dedup"}


POOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


def ashift_of(props: list[str]) -> int:
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


def leaf_of(session: Session, word: str, props: list[str]) -> tuple[str, int]:
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
    ashift_of(props)
    return path, host.size


def top_levels(specs: list[VdevSpec]) -> list[vdev_spec.TopLevel]:
    return [vdev_spec.TopLevel(s.layout.kind, s.layout.nparity,
                               tuple(size for _, size in s.devices)) for s in specs]


def pool_top_levels(pool: Pool) -> list[vdev_spec.TopLevel]:
    return [vdev_spec.TopLevel(v.layout.kind, v.layout.nparity,
                               tuple(leaf.psize for leaf in v.leaves)) for v in pool.vdevs]


def _groups_to_specs(session: Session, groups: list[vdev_spec.Group], props: list[str],
                     log: bool = False) -> list[VdevSpec]:
    specs = []
    for group in groups:
        if log and group.kind == RAIDZ:
            raise UsageError(msg.unsupported_log_device(group.kind), 1)
        devices = tuple(leaf_of(session, word, props) for word in group.words)
        if group.keyword is None:
            specs.append(VdevSpec(Layout(), devices))
            continue
        if len(devices) < group.min_devices:
            raise UsageError(msg.group_too_small(group.keyword, group.min_devices), 1)
        specs.append(VdevSpec(Layout(group.kind, len(devices), group.nparity), devices))
    return specs


def vdev_specs(session: Session, words: list[str], action: str, pool: Pool | None,
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
        raise UsageError(msg.missing_vdev_spec() + "\n"
                         + msg.zpool_subcommand_usage(action, session.version), 2)
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
    ashift = ashift_of(props)
    paths = [path for spec in [*specs, *log_specs] for path, _ in spec.devices]
    in_use = [(path, other.name) for path in paths for other in session.pools.values()
              if scan.find_leaf(other, path) is not None]
    if in_use:
        raise UsageError(msg.devices_in_active_pools(in_use), 1)
    if not force and specs:
        problems = vdev_spec.check_replication(
            pool_top_levels(pool) if pool is not None else None, top_levels(specs))
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
    opts, operands = zpool_getopt(args, "fndR:m:o:O:t:", "create", session.version)
    flags = {k for k, _ in opts}
    for flag, what in (("-m", "the root dataset's mountpoint"), ("-R", "an alternate root"),
                       ("-d", "a pool with no feature enabled"),
                       ("-t", "a temporary pool name")):
        if flag in flags:
            raise UsageError(msg.option_not_simulated("zpool create", flag, what,
                                                      session.version.release), 1)
    props = [v for k, v in opts if k == "-o"]
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n"
                         + msg.zpool_subcommand_usage("create", session.version), 2)
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
    specs, log_specs, ashift = vdev_specs(session, operands[1:], "create", None, name, props,
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
        return CommandResult(stdout=msg.would_create(name, _dry_run_tree(specs),
                                                     _dry_run_tree(log_specs)) + "\n")
    try:
        pool = create_pool(name, list(specs), session.version, ashift)
        if log_specs:
            add_log_vdevs(pool, list(log_specs), ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("create", name), 1) from None
    pool.root.properties.update(fs_props)
    if str(fs_props.get("compression", "")).startswith("zstd"):
        # spa_create() sets the root's -O properties after the pool is made
        # (zfs_set_prop_nvlist()): compression=zstd activates zstd_compress on the root's
        # dsl_dataset, as `zfs set` does (labsim.zfs.mos.activate_feature).
        activate_feature(pool, pool.root.active_features, "zstd_compress", pool.root.ds_blocks)
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
    from labsim.shell.commands import zfs_common
    from labsim.shell.commands import zfs_properties as zfs_props

    props: dict[str, object] = {}
    for assignment in assignments:
        prop, eq, value = assignment.partition("=")
        prop = zfs_common.ALIASES.get(prop, prop)
        if not eq:
            raise UsageError(msg.zfs_missing_equals(assignment) + "\n"
                             + msg.zpool_subcommand_usage("create", version), 2)
        if not (prop in zfs_common.SETTABLE or zfs_props.is_user_property(prop)
                or prop in zfs_props.stored_properties(version)):
            if prop in dataset_property_names(version):
                raise UsageError(msg.property_not_simulated("zpool create -O", prop,
                                                            version.release), 1)
            # add_prop_list() (cmd/zpool/zpool_main.c, 2.1.11 and 2.3.9), exit 2
            raise UsageError(f"property '{prop}' is not a valid filesystem property\n"
                             + msg.zpool_subcommand_usage("create", version), 2)
        # zpool_create() checks them with zfs_valid_proplist(), errors "cannot create".
        props[prop] = zfs_common.validate(pool, prop, value, version, "create")
    return props


# zpool add's long options (getopt_long() in zpool_do_add(), cmd/zpool/zpool_main.c at
# zfs-2.2.9 and zfs-2.3.9; 2.1.11 has none): each turns off one of the checks -f skips.
ADD_ALLOW_OPTIONS = ("--allow-in-use", "--allow-replication-mismatch",
                     "--allow-ashift-mismatch")


def _allow_options(args: list[str], version: ZfsVersion) -> tuple[list[str], set[str]]:
    """The --allow-... options among ``args`` (getopt_long() takes a unique prefix), and
    the other words; a release before 2.2 has none and leaves them to getopt."""
    if not release_at_least(version, 2, 2):
        return args, set()
    rest: list[str] = []
    allowed: set[str] = set()
    for index, word in enumerate(args):
        if word == "--":
            rest += args[index:]
            break
        matches = [o for o in ADD_ALLOW_OPTIONS if len(word) > 2 and o.startswith(word)]
        if len(matches) == 1 or word in ADD_ALLOW_OPTIONS:
            allowed.add(matches[0] if len(matches) == 1 else word)
            continue
        rest.append(word)
    return rest, allowed


def add(session: Session, args: list[str]) -> CommandResult:
    """zpool add [-fgLnP] [-o ashift=N] [--allow-...] POOL VDEV...: zpool_do_add()."""
    args, allowed = _allow_options(args, session.version)
    opts, operands = zpool_getopt(args, "fgLnPo:", "add", session.version)
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n"
                         + msg.zpool_subcommand_usage("add", session.version), 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_vdev_spec() + "\n"
                         + msg.zpool_subcommand_usage("add", session.version), 2)
    force = "-f" in flags
    if force and allowed:
        raise UsageError("'-f' option is not allowed with '--allow-replication-mismatch', "
                         "'--allow-ashift-mismatch', or '--allow-in-use'\n"
                         + msg.zpool_subcommand_usage("add", session.version), 2)
    pool = pool_named(session, operands[0])
    props = [v for k, v in opts if k == "-o"]
    if not any(prop.partition("=")[0] == "ashift" for prop in props) \
            and "ashift" in pool.properties:
        # "unless manually specified use "ashift" pool property (if set)"
        props.append(f"ashift={pool.properties['ashift']}")
    specs, log_specs, ashift = vdev_specs(
        session, operands[1:], "add", pool, pool.name, props,
        force=force or "--allow-replication-mismatch" in allowed)
    if "-n" in flags:
        return CommandResult(stdout=_would_update(pool, specs, log_specs))
    check_ashift = release_at_least(session.version, 2, 2) and not force \
        and "--allow-ashift-mismatch" not in allowed
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
        data_ashifts = {vdev.ashift for vdev in pool.vdevs}
        if check_ashift and len(data_ashifts) == 1 and ashift not in data_ashifts:
            # spa_vdev_add() (module/zfs/spa.c, 2.2 and later): while the data vdevs share
            # one ashift (spa_max_ashift == spa_min_ashift), every new top-level vdev, a
            # log included, must have it; ZFS_ERR_ASHIFT_MISMATCH.
            raise UsageError(f"cannot add to '{pool.name}': adding devices with different "
                             "physical sector sizes is not allowed", 1)
        if specs:
            add_vdevs(pool, list(specs), ashift)
        if log_specs:
            add_log_vdevs(pool, list(log_specs), ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("add", pool.name), 1) from None
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def _would_update(pool: Pool, specs: list[VdevSpec], log_specs: list[VdevSpec]) -> str:
    """zpool add -n: "would update 'tank' to the following configuration:", then
    print_vdev_tree() of the pool (its top-level vdevs named with their ids), the new
    vdevs (named without), and the "logs" class the same way (names without ids)."""
    lines = [f"would update '{pool.name}' to the following configuration:", "",
             f"\t{pool.name}"]

    def tree(name: str, leaves: list[str], single: bool) -> list[str]:
        if single:
            return [f"\t  {leaves[0]}"]
        return [f"\t  {name}", *(f"\t    {leaf}" for leaf in leaves)]

    for vdev in pool.vdevs:
        lines += tree(vdev.name, [leaf.name for leaf in vdev.leaves],
                      vdev.layout.kind == SINGLE)
    for spec in specs:
        lines += tree(spec.layout.type_name, [path for path, _ in spec.devices],
                      spec.layout.kind == SINGLE)
    if pool.logs or log_specs:
        lines.append("\tlogs")
        for vdev in pool.logs:
            lines += tree(vdev.layout.type_name, [leaf.name for leaf in vdev.leaves],
                          vdev.layout.kind == SINGLE)
        for spec in log_specs:
            lines += tree(spec.layout.type_name, [path for path, _ in spec.devices],
                          spec.layout.kind == SINGLE)
    return "\n".join(lines) + "\n"


def destroy(session: Session, args: list[str]) -> CommandResult:
    _, operands = zpool_getopt(args, "f", "destroy", session.version)
    if not operands:
        raise UsageError(msg.missing_pool_argument() + "\n"
                         + msg.zpool_subcommand_usage("destroy", session.version), 2)
    pool = pool_named(session, operands[0])
    del session.pools[operands[0]]
    zpool_import.destroy_labels(session, pool)
    return CommandResult()


def remove(session: Session, args: list[str]) -> CommandResult:
    """zpool remove POOL DEVICE...: labsim removes log vdevs (always allowed); removing
    a data vdev (the device_removal feature, which copies its data away) is not
    modelled."""
    opts, operands = zpool_getopt(args, "npsw", "remove", session.version)
    if ("-s", "") in opts:
        raise UsageError(msg.option_not_simulated("zpool remove", "-s", "stopping a device "
                                                  "removal", session.version.release), 1)
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n"
                         + msg.zpool_subcommand_usage("remove", session.version), 2)
    pool = pool_named(session, operands[0])
    if len(operands) < 2:
        raise UsageError(msg.missing_device() + "\n"
                         + msg.zpool_subcommand_usage("remove", session.version), 2)
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
    pool = pool_named(session, args[0])
    freeze_pool(pool)
    return CommandResult()
