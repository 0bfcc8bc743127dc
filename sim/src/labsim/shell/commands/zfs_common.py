"""What the zfs subcommands (labsim.shell.commands.zfs) share: zfs's getopt, finding a
dataset or a snapshot by name, the properties labsim models (which it reads, sets and
validates), and a property's value and source as `zfs get` shows them. Which properties labsim
models, stores or answers with "not simulated" is decided, and explained, in
labsim.shell.commands.zfs_properties.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from labsim.format.numbers import nicenum
from labsim.shell import messages as msg
from labsim.shell.base import UsageError, parse_options
from labsim.shell.commands import zfs_properties as props
from labsim.shell.units import parse_zfs_number
from labsim.zfs import snapshot_space, zil, zvols
from labsim.zfs import snapshots as snap
from labsim.zfs.logical_space import dataset_compressratio, dataset_logicalused
from labsim.zfs.pool import Dataset, Pool, Snapshot, property_value
from labsim.zfs.space import (
    dataset_available,
    dataset_logical_referenced,
    dataset_used,
)
from labsim.zfs.versions import (
    ZfsVersion,
    dataset_property_names,
    is_userquota_property,
    is_written_property,
)

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


def zfs_getopt(args: list[str], optstring: str, subcommand: str, version: ZfsVersion):
    return parse_options(args, optstring, missing_argument=msg.zfs_missing_argument,
                         invalid_option=msg.zfs_invalid_option,
                         usage=msg.zfs_subcommand_usage(subcommand, version))


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
        space = snapshot_space.space(pool, ds)
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
        return snapshot_space.referenced(pool, ds), "-"
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
        return snapshot_space.snapshot_used(pool, s), "-"
    if prop == "referenced":
        return snapshot_space.referenced(pool, s), "-"
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


def refuse_unknown(version: ZfsVersion, command: str, prop: str, refusal: str,
                    status: int) -> NoReturn:
    """A property labsim does not handle: real OpenZFS ``version`` knows it (or it is a
    user property, module:name) and labsim says it is not simulated; otherwise the real
    tool's ``refusal``."""
    if ":" in prop or prop in dataset_property_names(version) \
            or is_userquota_property(prop) or is_written_property(prop):
        raise UsageError(msg.property_not_simulated(command, prop, version.release), 1)
    raise UsageError(refusal, status)


def readable_properties(version: ZfsVersion) -> tuple[str, ...]:
    """What zfs get and zfs list -o answer: the modelled properties, then the stored ones."""
    return READABLE + props.stored_properties(version)


def validate(name: str, prop: str, value: str, version: ZfsVersion,
             action: str = "set", kind: str = "filesystem") -> object:
    """A property value as zfs set (or, with action "create", zfs create -o) checks it;
    the error names the action as zfs_valid_proplist()'s caller does."""
    if props.is_user_property(prop) or prop in props.stored_properties(version):
        return props.check_stored(name, kind, prop, value, version, action)
    if prop not in SETTABLE and prop not in ("volsize", "volblocksize"):
        where = f"cannot create '{name}'" if action == "create" \
            else f"cannot set property for '{name}'"
        if is_written_property(prop):
            # zfs_valid_proplist(): written@ and written# are read-only whatever follows.
            raise UsageError(f"{where}: '{prop}' is readonly", 1)
        refuse_unknown(version, f"zfs {action}", prop, f"{where}: invalid property '{prop}'",
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
