"""The pool properties labsim stores without modelling their effect, and what real OpenZFS
says of the others when `zpool set` or `zpool create -o` names them.

Registrations follow zpool_prop_init() (module/zcommon/zpool_prop.c, zfs-2.1.11 and
zfs-2.3.9, alike for these): the values `zpool set` accepts, the text a refused value is
told (zprop_parse_value(): "'failmode' must be one of 'wait | continue | panic'") and the
default `zpool get` prints. The checks of particular properties are those of
zpool_valid_proplist() (lib/libzfs/libzfs_pool.c).

Stored: delegation, autoreplace, listsnapshots (which labsim's `zfs list` follows),
autoexpand, autotrim, failmode, comment, cachefile and, from 2.2, user properties. Each
changes only what labsim has no model of (delegated permissions, zed's replacing, a
device that grows, TRIM, a suspended pool, the cache file read at boot). Which properties
labsim models, stores or answers with "not simulated" is decided in
labsim.shell.commands.zpool_properties; this module holds the registrations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

_ON_OFF = ("on", "off")


@dataclass(frozen=True)
class PoolRegistration:
    name: str
    default: str | None  # as `zpool get` prints it; None: "-"
    values: str  # zpool_prop.c's value text, told when a value is refused
    choices: tuple[str, ...] = ()  # an index property's words; () for a string


def _bool(name: str, default: str) -> PoolRegistration:
    return PoolRegistration(name, default, "on | off", _ON_OFF)


STORED: dict[str, PoolRegistration] = {r.name: r for r in (
    _bool("delegation", "on"),
    _bool("autoreplace", "off"),
    _bool("listsnapshots", "off"),
    _bool("autoexpand", "off"),
    _bool("autotrim", "off"),
    PoolRegistration("failmode", "wait", "wait | continue | panic",
                     ("wait", "continue", "panic")),
    PoolRegistration("comment", None, "<comment-string>"),
    PoolRegistration("cachefile", None, "<file> | none"),
)}

# PROP_READONLY in zpool_prop_init() (hidden ones too: zpool_name_to_prop() finds them).
READONLY = frozenset((
    "name", "size", "free", "freeing", "checkpoint", "leaked", "allocated", "expandsize",
    "fragmentation", "capacity", "guid", "load_guid", "health", "dedupratio", "bcloneused",
    "bclonesaved", "bcloneratio", "dedup_table_size", "last_scrubbed_txg", "maxblocksize",
    "maxdnodesize", "dedupcached"))

# zprop_register_hidden() in zpool_prop_init(): names `zpool set` knows though `zpool get
# all` does not list them.
HIDDEN = frozenset(("maxblocksize", "maxdnodesize", "tname", "dedupditto"))

# zpool_valid_proplist(): properties settable only at some times, and the reason given.
SET_ONLY_AT = {
    "altroot": "can only be set during pool creation or import",
    "readonly": "can only be set at import time",
}

ZPROP_MAX_COMMENT = 32  # include/sys/fs/zfs.h
ZAP_MAXNAMELEN = 256  # include/sys/zap.h
ZFS_MAXPROPLEN = 8192  # include/sys/fs/zfs.h


def comment_problem(value: str) -> str | None:
    """zpool_valid_proplist() ZPOOL_PROP_COMMENT: printable characters, at most 32."""
    if any(not (" " <= c <= "~") for c in value):
        return "comment may only have printable characters"
    if len(value) > ZPROP_MAX_COMMENT:
        return f"comment must not exceed {ZPROP_MAX_COMMENT} characters"
    return None


def cachefile_problem(value: str, is_dir: Callable[[str], bool]) -> str | None:
    """zpool_valid_proplist() ZPOOL_PROP_CACHEFILE: empty, "none", or an absolute path of a
    file (not ending in /, /. or /..) in an existing directory; ``is_dir`` tells which
    paths are directories."""
    if value in ("", "none"):
        return None
    if not value.startswith("/"):
        return "property 'cachefile' must be empty, an absolute path, or 'none'"
    parent, _, last = value.rpartition("/")
    if last in ("", ".", ".."):
        return f"'{value}' is not a valid file"
    if parent and not is_dir(parent):
        return f"'{parent}' is not a valid directory"
    return None
