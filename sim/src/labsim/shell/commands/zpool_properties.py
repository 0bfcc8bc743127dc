"""`zpool set`, and the pool properties `zpool create -o` and `zpool get` take, each answered
truthfully: modelled (labsim computes it: size, health, ashift...), stored (checked as
zpool_valid_proplist() checks it, kept, shown by `zpool get` with its source:
labsim.zfs.pool_property_table), refused as real OpenZFS refuses it (a read-only
property, a bad value, a name that is no property), or the one "not simulated" notice
(version, bootfs, compatibility, multihost, ashift after creation, dedup_table_quota,
features labsim does not model, vdev properties).

Texts: cmd/zpool/zpool_main.c zpool_do_set() and lib/libzfs/libzfs_pool.c
zpool_set_prop() / zpool_valid_proplist() at zfs-2.1.11 and zfs-2.3.9; an index value is
refused by zprop_parse_value() (lib/libzfs/libzfs_util.c).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.zfs import pool_property_table as table
from labsim.zfs.pool import Pool
from labsim.zfs.versions import ZfsVersion, pool_property_names

if TYPE_CHECKING:
    from labsim.shell.session import Session

# The features whose state labsim follows (feature_state() in
# labsim.shell.commands.zpool_reports), by the ZfsVersion field that says whether a release
# has them.
MODELLED_FEATURES = {"block_cloning": "block_cloning_feature",
                     "raidz_expansion": "raidz_expansion"}


def is_user_property(name: str, version: ZfsVersion) -> bool:
    """zfs_prop_user() for a pool: 2.2 and later (ZfsVersion.vdev_properties)."""
    return version.vdev_properties and ":" in name and all(
        c in "abcdefghijklmnopqrstuvwxyz0123456789-_.:" for c in name)


def stored_names(version: ZfsVersion) -> tuple[str, ...]:
    names = pool_property_names(version)
    return tuple(name for name in table.STORED if name in names)


def check(session: Session, pool: str, prop: str, value: str, version: ZfsVersion,
          *, create: bool = False) -> str:
    """A pool property assignment as zpool_valid_proplist() checks it, with ``create`` its
    flags.create; returns the value to keep. Raises UsageError with the real refusal
    ("cannot set property for 'p': ..." or, at creation, "cannot create 'p': ..."), or
    with the notice for a property labsim neither models nor stores."""
    where = f"cannot create '{pool}'" if create else f"cannot set property for '{pool}'"
    command = "zpool create -o" if create else "zpool set"
    if prop.startswith("feature@"):
        return _feature(where, command, prop, value, version, create)
    if is_user_property(prop, version):
        if len(prop) >= table.ZAP_MAXNAMELEN:
            raise UsageError(f"{where}: property name '{prop}' is too long", 1)
        if len(value) >= table.ZFS_MAXPROPLEN:
            raise UsageError(f"{where}: property value '{value}' is too long", 1)
        return value
    if prop not in pool_property_names(version) | table.HIDDEN:
        raise UsageError(f"{where}: invalid property '{prop}'", 1)
    if prop in table.READONLY:
        raise UsageError(f"{where}: '{prop}' is readonly", 1)
    if prop == "readonly" and value not in ("on", "off"):
        raise UsageError(f"{where}: 'readonly' must be one of 'on | off'", 1)
    if prop in table.SET_ONLY_AT and not (create and prop == "altroot"):
        raise UsageError(f"{where}: property '{prop}' {table.SET_ONLY_AT[prop]}", 1)
    reg = table.STORED.get(prop)
    if reg is None:
        raise UsageError(msg.property_not_simulated(command, prop, version.release), 1)
    if reg.choices and value not in reg.choices:
        raise UsageError(f"{where}: '{prop}' must be one of '{reg.values}'", 1)
    problem = None
    if prop == "comment":
        problem = table.comment_problem(value)
    elif prop == "cachefile":
        problem = table.cachefile_problem(value, lambda path: fs.is_dir(session, path))
    if problem:
        raise UsageError(f"{where}: {problem}", 1)
    return value


def _feature(where: str, command: str, prop: str, value: str, version: ZfsVersion,
             create: bool) -> str:
    """feature@NAME: a feature labsim follows may be set "enabled" (it is, since zpool
    create enables them all) or, at creation only, "disabled"; other features get the
    notice (labsim keeps no table of which ones the release has)."""
    name = prop.removeprefix("feature@")
    if name not in MODELLED_FEATURES:
        raise UsageError(msg.property_not_simulated(command, prop, version.release), 1)
    if value not in ("enabled", "disabled"):
        raise UsageError(f"{where}: property '{prop}' can only be set to 'enabled' or "
                         "'disabled'", 1)
    if value == "disabled":
        if not create:
            raise UsageError(f"{where}: property '{prop}' can only be set to 'disabled' "
                             "at creation time", 1)
        raise UsageError(msg.not_simulated(command, "a pool with a feature disabled",
                                           version.release), 1)
    return value


def stored_value(pool: Pool, prop: str) -> tuple[object, str]:
    """A stored (or user) property's value and SOURCE as `zpool get` prints them: local
    when set, else the registered default (user properties: "-" and "-")."""
    if prop in pool.properties:
        return pool.properties[prop], "local"
    reg = table.STORED.get(prop)
    if reg is None:  # a user property set nowhere
        return None, "-"
    return reg.default, "default"


def set_(session: Session, args: list[str]) -> CommandResult:
    """zpool set PROPERTY=VALUE POOL (2.2 and later: [VDEV], a vdev property)."""
    version = session.version
    usage = msg.zpool_subcommand_usage("set", session.version)
    if args and args[0].startswith("-"):
        raise UsageError(msg.zpool_invalid_option(args[0][1:2]) + "\n" + usage, 2)
    if not args:
        raise UsageError("missing property=value argument\n" + usage, 2)
    if len(args) < 2:
        raise UsageError("missing pool name\n" + usage, 2)
    if len(args) > (3 if version.vdev_properties else 2):
        raise UsageError("too many pool names\n" + usage, 2)
    prop, eq, value = args[0].partition("=")
    if not eq:
        raise UsageError("missing value in property=value argument\n" + usage, 2)
    name = args[1]
    pool = session.pools.get(name)
    if pool is None:
        if version.vdev_properties:  # is_pool(), then return (EINVAL)
            raise UsageError(f"cannot open '{name}': is not a pool", 22)
        raise UsageError(msg.no_such_pool(name), 1)
    if len(args) == 3:
        raise UsageError(msg.not_simulated("zpool set", "setting a vdev property",
                                           version.release), 1)
    kept = check(session, name, prop, value, version)
    if prop.startswith("feature@"):
        return CommandResult()  # already enabled
    if kept == "" and prop in table.STORED:  # cachefile="": back to the default
        pool.properties.pop(prop, None)
    else:
        pool.properties[prop] = kept
    return CommandResult()
