"""The dataset properties labsim stores without modelling their effect: how real OpenZFS
registers them (zprop_register_index()/zprop_register_string() in
module/zcommon/zfs_prop.c at zfs-2.3.9): the values `zfs set` accepts, the text its
refusal lists, whether children inherit them, which dataset types they apply to and
their default as `zfs get` prints it.

Which properties labsim stores, models or answers with "not simulated" is decided in
labsim.shell.commands.zfs_properties; this module only holds the registrations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from labsim.zfs.versions import ZfsVersion

FILESYSTEM, VOLUME, SNAPSHOT = "filesystem", "volume", "snapshot"
# zfs_prop_t attributes (include/sys/fs/zfs.h zprop_attr_t)
INHERIT, DEFAULT, ONETIME = "inherit", "default", "onetime"


@dataclass(frozen=True)
class Registration:
    name: str
    default: str  # the default value as `zfs get` prints it
    attr: str  # INHERIT, DEFAULT or ONETIME
    types: frozenset[str]
    values: str  # the text a refused value is told ("'atime' must be one of 'on | off'")
    choices: tuple[str, ...] = ()  # an index property's accepted words; () for a string

    @property
    def inheritable(self) -> bool:
        """zfs_prop_inheritable(): PROP_INHERIT and PROP_ONETIME properties."""
        return self.attr in (INHERIT, ONETIME)


_FS = frozenset({FILESYSTEM})
_FS_SNAP = frozenset({FILESYSTEM, SNAPSHOT})
_FS_VOL = frozenset({FILESYSTEM, VOLUME})
_ALL = frozenset({FILESYSTEM, VOLUME, SNAPSHOT})
_VOL = frozenset({VOLUME})
_ON_OFF = ("off", "on")


def _index(name: str, default: str, attr: str, types: frozenset[str], values: str,
           choices: tuple[str, ...]) -> Registration:
    return Registration(name, default, attr, types, values, choices)


def _bool(name: str, default: str, types: frozenset[str], attr: str = INHERIT) -> Registration:
    return Registration(name, default, attr, types, "on | off", _ON_OFF)


_CHECKSUMS = ("on", "off", "fletcher2", "fletcher4", "sha256", "noparity", "sha512", "skein",
              "edonr", "blake3")

REGISTRATIONS: dict[str, Registration] = {r.name: r for r in (
    _index("checksum", "on", INHERIT, _FS_VOL,
           "on | off | fletcher2 | fletcher4 | sha256 | sha512 | skein | edonr | blake3",
           _CHECKSUMS),
    _index("snapdir", "hidden", INHERIT, _FS, "disabled | hidden | visible",
           ("hidden", "visible", "disabled")),
    _index("snapdev", "hidden", INHERIT, _FS_VOL, "hidden | visible", ("hidden", "visible")),
    _index("aclmode", "discard", INHERIT, _FS,
           "discard | groupmask | passthrough | restricted",
           ("discard", "groupmask", "passthrough", "restricted")),
    # Linux's default (ZFS_ACLTYPE_OFF under __linux__); the old names are aliases.
    _index("acltype", "off", INHERIT, _FS_SNAP, "off | nfsv4 | posix",
           ("off", "posix", "nfsv4", "disabled", "noacl", "posixacl")),
    _index("aclinherit", "restricted", INHERIT, _FS,
           "discard | noallow | restricted | passthrough | passthrough-x",
           ("discard", "noallow", "restricted", "passthrough", "secure", "passthrough-x")),
    _index("primarycache", "all", INHERIT, _ALL, "all | none | metadata",
           ("none", "metadata", "all")),
    _index("secondarycache", "all", INHERIT, _ALL, "all | none | metadata",
           ("none", "metadata", "all")),
    _index("prefetch", "all", INHERIT, _ALL, "none | metadata | all",
           ("none", "metadata", "all")),
    _index("xattr", "on", INHERIT, _FS_SNAP, "on | off | dir | sa", ("off", "on", "sa", "dir")),
    _index("dnodesize", "legacy", INHERIT, _FS, "legacy | auto | 1k | 2k | 4k | 8k | 16k",
           ("legacy", "auto", "1k", "2k", "4k", "8k", "16k")),
    _index("volmode", "default", INHERIT, _FS_VOL, "default | full | geom | dev | none",
           ("default", "full", "geom", "dev", "none")),
    _index("direct", "standard", INHERIT, _FS, "disabled | standard | always",
           ("disabled", "standard", "always")),
    _bool("atime", "on", _FS),
    _bool("relatime", "on", _FS),
    _bool("devices", "on", _FS_SNAP),
    _bool("exec", "on", _FS_SNAP),
    _bool("setuid", "on", _FS_SNAP),
    _bool("zoned", "off", _FS),
    _bool("vscan", "off", _FS),
    _bool("nbmand", "off", _FS_SNAP),
    _bool("overlay", "on", _FS),
    _bool("longname", "off", _FS),
    _bool("volthreading", "on", _VOL, DEFAULT),
    _bool("utf8only", "off", _FS_SNAP, ONETIME),
    _index("casesensitivity", "sensitive", ONETIME, _FS_SNAP,
           "sensitive | insensitive | mixed", ("sensitive", "insensitive", "mixed")),
    Registration("sharenfs", "off", INHERIT, _FS, "on | off | NFS share options"),
    Registration("sharesmb", "off", INHERIT, _FS, "on | off | SMB share options"),
    Registration("context", "none", DEFAULT, _ALL, "<selinux context>"),
    Registration("fscontext", "none", DEFAULT, _ALL, "<selinux fscontext>"),
    Registration("defcontext", "none", DEFAULT, _ALL, "<selinux defcontext>"),
    Registration("rootcontext", "none", DEFAULT, _ALL, "<selinux rootcontext>"),
)}


def registration(name: str, version: ZfsVersion) -> Registration:
    """``name``'s registration as ``version`` has it: before 2.2 there is no blake3
    (added to checksum_table[] in 2.2.0), and relatime defaults to off
    (ZfsVersion.relatime_default)."""
    found = REGISTRATIONS[name]
    if name == "relatime":
        return replace(found, default="on" if version.relatime_default else "off")
    if name == "checksum" and _before_2_2(version):
        return Registration(found.name, found.default, found.attr, found.types,
                            found.values.removesuffix(" | blake3"), found.choices[:-1])
    return found


def _before_2_2(version: ZfsVersion) -> bool:
    major, minor = (int(part) for part in version.release.split(".")[:2])
    return (major, minor) < (2, 2)


def _before_2_3(version: ZfsVersion) -> bool:
    major, minor = (int(part) for part in version.release.split(".")[:2])
    return (major, minor) < (2, 3)


def canonical(reg: Registration, value: str, version: ZfsVersion) -> str:
    """The word `zfs get` prints for an index value: zprop_index_to_string() returns the
    first entry of the table with the same number, so an alias prints as its first
    spelling (acltype=posixacl -> posix, volmode=geom -> full). xattr's "on" moved:
    ZFS_XATTR_DIR before 2.3, so xattr=dir prints "on" and sa "sa"; ZFS_XATTR_SA from
    2.3.0 (e419a63bf4, "xattr dataset prop: change defaults to sa"), so sa prints "on"
    and dir "dir"."""
    if reg.name == "xattr":
        return {"dir": "on"}.get(value, value) if _before_2_3(version) \
            else {"sa": "on"}.get(value, value)
    same = _ALIASES.get(reg.name, {})
    return same.get(value, value)


# Entries that share a number with an earlier one (the tables in zfs_prop_init()).
_ALIASES = {
    "acltype": {"disabled": "off", "noacl": "off", "posixacl": "posix"},
    "aclinherit": {"secure": "restricted"},
    "volmode": {"geom": "full"},
}
