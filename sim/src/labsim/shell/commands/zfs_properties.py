"""How labsim answers each dataset property of real OpenZFS, and `zfs inherit`.

The rule, property by property (labsim.limits lists the outcome on the course page):

* **Modelled**: the property changes what labsim computes (compression, recordsize, sync,
  logbias, copies, refreservation, volsize, volblocksize, and the read-only space and
  ratio properties). `zfs set`, `zfs create -o`, `zfs get` and `zfs list -o` validate and
  show them as OpenZFS does (labsim.shell.commands.zfs).
* **Stored**: the property changes only things labsim has no model of at all (access
  times, extended attributes, ACLs, caching, NFS/SMB sharing, SELinux labels, how a
  snapshot directory or a volume's device node is shown...). labsim validates the value
  as zfs_valid_proplist() does (the values registered in module/zcommon/zfs_prop.c,
  labsim.zfs.property_table), keeps it, and shows it with its real SOURCE (local,
  inherited from the nearest ancestor that sets it, default); it never pretends the
  setting acts. User properties (module:name) are stored the same way: they are only
  text, on real OpenZFS too.
* **Not simulated**: the property would change what labsim computes but labsim does not
  model how (quota, reservation, dedup, encryption, mountpoint, readonly, limits on
  counts, special_small_blocks, redundant_metadata, checksum=off...): labsim says so in
  one notice (labsim.shell.messages.property_not_simulated) rather than accept a value
  whose effect it would then get wrong, or refuse it as real OpenZFS never does.

A property real OpenZFS does not know gets the real refusal ("invalid property").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError, parse_options
from labsim.zfs import snapshots as snap
from labsim.zfs import zvols
from labsim.zfs.pool import Dataset, Pool, Snapshot
from labsim.zfs.property_table import (
    FILESYSTEM,
    REGISTRATIONS,
    SNAPSHOT,
    VOLUME,
    canonical,
    registration,
)
from labsim.zfs.versions import ZfsVersion, dataset_property_names

if TYPE_CHECKING:
    from labsim.shell.session import Session

# Stored values that would change what labsim computes: checksum=off (and noparity, a
# debugging value) leaves blocks a scrub could not verify, which labsim's scrub ignores.
NOT_SIMULATED_VALUES = {"checksum": ("off", "noparity")}
# The onetime properties are set at creation only (zfs_valid_proplist(): "'%s' is readonly"
# on zfs set); labsim stores these two. normalization is not stored: a value other than
# none also turns utf8only on (zfs_fill_zplprops_impl()), which labsim does not follow.
ONETIME_STORED = ("utf8only", "casesensitivity")
# zfs_prop_user() (module/zcommon/zfs_prop.c): lower-case letters, digits, "-_.:",
# with at least one ":".
_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.:")
# ZAP_MAXNAMELEN (include/sys/zap.h) and ZFS_MAXPROPLEN (include/sys/fs/zfs.h).
USER_NAME_MAX = 256
USER_VALUE_MAX = 8192


def stored_properties(version: ZfsVersion) -> tuple[str, ...]:
    """The properties ``version`` has that labsim stores without modelling."""
    names = dataset_property_names(version)
    return tuple(name for name in REGISTRATIONS if name in names)


def is_user_property(name: str) -> bool:
    """zfs_prop_user(): a valid user property name."""
    return ":" in name and all(c in _USER_CHARS for c in name)


def kind_of(ds: Dataset | Snapshot) -> str:
    if isinstance(ds, Snapshot):
        return SNAPSHOT
    return VOLUME if zvols.is_volume(ds) else FILESYSTEM


def _where(name: str, action: str) -> str:
    return f"cannot create '{name}'" if action == "create" \
        else f"cannot set property for '{name}'"


def check_stored(name: str, kind: str, prop: str, value: str, version: ZfsVersion,
                 action: str = "set") -> str:
    """A stored property's value as zfs_valid_proplist() checks it (texts of
    lib/libzfs/libzfs_dataset.c and libzfs_util.c zprop_parse_value() at zfs-2.3.9);
    returns the value `zfs get` will print."""
    where = _where(name, action)
    if is_user_property(prop):
        if len(prop) >= USER_NAME_MAX:
            raise UsageError(f"{where}: property name '{prop}' is too long", 1)
        if len(value) >= USER_VALUE_MAX:
            raise UsageError(f"{where}: property value '{value}' is too long", 1)
        return value
    reg = registration(prop, version)
    if prop in ONETIME_STORED and action != "create":
        raise UsageError(f"{where}: '{prop}' is readonly", 1)
    if kind not in reg.types:
        raise UsageError(f"{where}: '{prop}' does not apply to datasets of this type", 1)
    if reg.choices and value not in reg.choices:
        raise UsageError(f"{where}: '{prop}' must be one of '{reg.values}'", 1)
    if value in NOT_SIMULATED_VALUES.get(prop, ()):
        raise UsageError(msg.not_simulated(f"zfs {action}", f"{prop}={value}",
                                             version.release), 1)
    return canonical(reg, value, version) if reg.choices else value


def stored_value(pool: Pool, ds: Dataset | Snapshot, prop: str,
                 version: ZfsVersion) -> tuple[object, str]:
    """A stored property's value and SOURCE: set here (local), set on the nearest
    ancestor for an inheritable one (dsl_prop_get_dd()), else its default; a snapshot
    takes its dataset's. A user property set nowhere is "-" with source "-"; a property
    that does not apply to the dataset's type is "-" too."""
    user = is_user_property(prop)
    if not user and kind_of(ds) not in registration(prop, version).types:
        return None, "-"
    if isinstance(ds, Snapshot):
        owner = snap.owner(pool, ds)
        value, source = stored_value(pool, owner, prop, version)
        if source == "local":
            source = f"inherited from {owner.name}"
        return value, source
    if prop in ds.properties:
        return ds.properties[prop], "local"
    if user or registration(prop, version).inheritable:
        parts = ds.name.split("/")
        for depth in range(len(parts) - 1, 0, -1):
            ancestor = pool.datasets.get("/".join(parts[:depth]))
            if ancestor is not None and prop in ancestor.properties:
                return ancestor.properties[prop], f"inherited from {ancestor.name}"
    if user:
        return None, "-"
    return registration(prop, version).default, "default"


def user_properties_of(pool: Pool, ds: Dataset | Snapshot) -> list[str]:
    """The user properties set on ``ds`` or inherited by it, sorted by name as `zfs get
    all` lists them after the native ones."""
    names: set[str] = set()
    owner = snap.owner(pool, ds) if isinstance(ds, Snapshot) else ds
    parts = owner.name.split("/")
    for depth in range(len(parts), 0, -1):
        ancestor = pool.datasets.get("/".join(parts[:depth]))
        if ancestor is not None:
            names |= {p for p in ancestor.properties if is_user_property(p)}
    return sorted(names)


# ---------------------------------------------------------------- zfs inherit
# cmd/zfs/zfs_main.c zfs_do_inherit() and lib/libzfs/libzfs_dataset.c zfs_prop_inherit()
# at zfs-2.3.9.
_RESERVATIONS = ("quota", "reservation", "refquota", "refreservation")


def inherit(session: Session, args: list[str], *, modelled: tuple[str, ...],
            readable: tuple[str, ...], aliases: dict[str, str]) -> CommandResult:
    """zfs inherit [-rS] PROPERTY DATASET...: clear the local value, so the dataset
    takes its parent's (or the default)."""
    usage = msg.zfs_subcommand_usage("inherit", session.version)
    opts, operands = parse_options(args, "rS", missing_argument=msg.zfs_missing_argument,
                                   invalid_option=msg.zfs_invalid_option, usage=usage)
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError("missing property argument\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError("missing dataset argument\n" + usage, 2)
    version = session.version
    prop = aliases.get(operands[0], operands[0])
    known = dataset_property_names(version)
    if "-S" in flags:
        raise UsageError(msg.option_not_simulated("zfs inherit", "-S", "received properties",
                                                  version.release), 1)
    stored = stored_properties(version)
    if not is_user_property(prop):
        if prop not in known:
            raise UsageError(f"invalid property '{prop}'\n" + usage, 2)
        if prop in readable and prop not in modelled:
            return CommandResult.fail(f"{prop} property is read-only")
        if prop in _RESERVATIONS or prop in ("volsize", "filesystem_limit", "snapshot_limit",
                                             "version", "canmount", "keylocation",
                                             "pbkdf2iters", "context", "fscontext",
                                             "defcontext", "rootcontext", "volthreading"):
            lines = [f"'{prop}' property cannot be inherited"]
            if prop in _RESERVATIONS:
                lines += [f"use 'zfs set {prop}=none' to clear",
                          f"use 'zfs inherit -S {prop}' to revert to received value"]
            return CommandResult.fail("\n".join(lines))
        if prop not in modelled and prop not in stored:
            raise UsageError(msg.property_not_simulated("zfs inherit", prop,
                                                        version.release), 1)
    stderr = ""
    status = 0
    for name in operands[1:]:
        pool = session.pools.get(name.split("/")[0].split("@")[0])
        found = None
        if pool is not None:
            found = snap.find_snapshot(pool, name) if "@" in name else pool.datasets.get(name)
        if pool is None or found is None:
            stderr += msg.dataset_does_not_exist(name) + "\n"
            status = 1
            continue
        if isinstance(found, Snapshot):
            if not is_user_property(prop):
                stderr += (f"cannot inherit {prop} for '{name}': property doesn't apply "
                           "to datasets of this type\n")
                status = 1
            continue
        if not is_user_property(prop) and prop in stored and \
                kind_of(found) not in registration(prop, version).types:
            stderr += (f"cannot inherit {prop} for '{name}': property doesn't apply to "
                       "datasets of this type\n")
            status = 1
            continue
        targets = [found, *(snap.descendants_of(pool, found) if "-r" in flags else [])]
        for ds in targets:
            ds.properties.pop(prop, None)
    return CommandResult(stderr=stderr, status=status)
