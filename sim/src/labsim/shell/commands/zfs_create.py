"""`zfs create` (file systems and volumes, with their -o properties) and `zfs set`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zfs_properties as props
from labsim.shell.units import parse_zfs_number
from labsim.zfs import zvols
from labsim.zfs.datasets import create_dataset
from labsim.zfs.errors import NotSimulated
from labsim.zfs.objset import sync_task_synced
from labsim.zfs.pool import Pool, property_value
from labsim.zfs.space import (
    dataset_available,
)
from labsim.zfs.txg import advance_txg

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.zfs_common import (
    ALIASES,
    READONLY,
    find,
    find_any,
    validate,
    zfs_getopt,
)


def set_property(session: Session, args: list[str]) -> CommandResult:
    """zfs set [-u] PROPERTY=VALUE... DATASET...: zfs_do_set() (cmd/zfs/zfs_main.c at
    zfs-2.1.11 and zfs-2.3.9): the assignments first, then the datasets, each set in turn
    (one that does not exist is said and skipped). -u (2.2 and later) keeps a changed
    mountpoint from remounting, which changes nothing in labsim."""
    usage = msg.zfs_subcommand_usage("set", session.version)
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
    # zfs_for_each() goes on with the other datasets after a failure: one it cannot open
    # makes the status 1; a refusal by zfs_prop_set_list() returns -1, which ORed into the
    # status makes zfs exit 255 (recorded on 2.3.9: lab16-properties, lab15-add-forms).
    # It opens every dataset first and then calls back in name order, each once.
    errors = []
    status = 0
    opened = []
    for name in args[ds_start:]:
        try:
            find_any(session, name)
        except UsageError as err:
            status |= 1
            errors.append(err.message + "\n")
            continue
        opened.append(name)
    for name in sorted(set(opened)):
        try:
            _set_on(session, name, assignments)
        except UsageError as err:
            if not err.message.startswith(f"cannot set property for '{name}'"):
                raise  # labsim's own notice
            status = 255
            errors.append(err.message + "\n")
    return CommandResult(stderr="".join(errors), status=status)


def _set_on(session: Session, name: str, assignments: dict[str, str]) -> None:
    if "@" in name:
        find_any(session, name)
        if not all(props.is_user_property(prop) for prop in assignments):
            # zfs_valid_proplist() (lib/libzfs/libzfs_dataset.c): only user properties can
            # be set on a snapshot; any other name, real or not, is refused so.
            raise UsageError(f"cannot set property for '{name}': this property can not be "
                             "modified for snapshots", 1)
        raise UsageError(msg.not_simulated("zfs set", "setting a user property of a snapshot",
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
    sync_task_synced(pool)  # dsl_props_set() is a sync task: its txg syncs
    advance_txg(pool)


def create_ancestors(pool: Pool, name: str) -> None:
    """zfs_create_ancestors() (lib/libzfs/libzfs_dataset.c): each missing ancestor of
    ``name``, from the top, as a file system with no property of its own (-p)."""
    parts = name.split("/")
    for depth in range(2, len(parts)):
        ancestor = "/".join(parts[:depth])
        if ancestor not in pool.datasets:
            create_dataset(pool, ancestor, {})


def create(session: Session, args: list[str]) -> CommandResult:
    opts, operands = zfs_getopt(args, "pusnvPV:b:o:", "create", session.version)
    if not operands:
        raise UsageError(msg.zfs_missing_dataset() + "\n"
                         + msg.zfs_subcommand_usage("create", session.version), 2)
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
        create_ancestors(pool, name)
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
    requested = parse_zfs_number(block_text) if block_text is not None else None
    if requested is None and "volblocksize" in properties:
        requested = int(str(properties["volblocksize"]))
    if requested is not None:
        reason = zvols.check_volblocksize(requested, pool.version.max_recordsize)
        if reason:  # zfs_valid_proplist() comes before default_volblocksize()
            raise UsageError(f"cannot create '{name}': {reason}", 1)
    # zfs_do_create() (cmd/zfs/zfs_main.c): the pool's default volblocksize, or a warning
    # about the one asked for; then volsize rounded up to whole blocks.
    block, warning = zvols.default_volblocksize(pool, requested)
    if size % block:
        size += block - size % block
    sparse = ("-s", "") in opts
    if not sparse:
        # A thick volume's refreservation must fit: dsl_dataset_set_refreservation_check()
        # returns ENOSPC, zfs_ioc_create() undoes the create, zfs_create() prints it
        # with zfs_standard_error(): "out of space" (zfs-2.3.9).
        copies = int(str(properties.get("copies", property_value(
            pool, pool.datasets[name.rsplit("/", 1)[0]], "copies")[0])))
        reserve = zvols.volsize_to_reservation(size, block, copies,
                                               zvols.raidz_geometry(pool))
        if reserve > dataset_available(pool, pool.datasets[name.rsplit("/", 1)[0]]):
            return CommandResult(stderr=f"{warning}cannot create '{name}': out of space\n",
                                 status=1)
    try:
        zvols.create_volume(pool, name, size, sparse=sparse, volblocksize=block,
                            properties={k: v for k, v in properties.items()
                                        if k != "volblocksize"})
    except ValueError as err:
        return CommandResult(stderr=f"{warning}cannot create '{name}': {err}\n", status=1)
    except NotSimulated as err:
        return CommandResult(stderr=warning + msg.not_simulated(
            "zfs create", err.what, pool.version.release) + "\n", status=1)
    return CommandResult(stderr=warning)
