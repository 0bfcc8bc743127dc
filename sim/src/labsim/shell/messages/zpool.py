"""zpool's texts outside the vdev specification: the usage (cmd/zpool/zpool_main.c
get_usage(), command_table[], usage()), missing operands, pools that do not exist or exist
already, pool names (zpool_name_valid()), property lists, create -n, version, status."""

from __future__ import annotations

from collections.abc import Sequence

from labsim.shell.messages.usage_texts import (
    ZPOOL_COMMAND_ORDER,
    ZPOOL_SYNOPSES,
    usage_release,
)
from labsim.zfs.versions import ZfsVersion, release_at_least

# zpool_prop.c value strings and readonly-ness, for print_prop_cb()
_POOL_PROP_VALUES = {
    "allocated": "<size>", "capacity": "<size>", "checkpoint": "<size>",
    "dedupratio": "<1.00x or higher if deduped>", "expandsize": "<size>",
    "fragmentation": "<percent>", "free": "<size>", "freeing": "<size>", "guid": "<guid>",
    "health": "<state>", "leaked": "<size>", "load_guid": "<load_guid>", "size": "<size>",
    "altroot": "<path>", "ashift": "<ashift, 9-16, or 0=default>", "autoexpand": "on | off",
    "autoreplace": "on | off", "autotrim": "on | off", "bootfs": "<filesystem>",
    "cachefile": "<file> | none", "comment": "<comment-string>",
    "compatibility": "<file[,file...]> | off | legacy", "delegation": "on | off",
    "failmode": "wait | continue | panic", "listsnapshots": "on | off",
    "multihost": "on | off", "readonly": "on | off", "version": "<version>",
}
_POOL_READONLY = {"allocated", "capacity", "checkpoint", "dedupratio", "expandsize",
                  "fragmentation", "free", "freeing", "guid", "health", "leaked", "load_guid",
                  "size"}


def _pool_property_table() -> str:
    """usage() for list/get/set: print_prop_cb() over zprop_iter(ordered), which
    sorts read-only properties first, each group by name (zprop_compare()).
    Unverified against a 2.1 binary: reconstructed from zpool_prop.c."""
    text = "\nthe following properties are supported:\n"
    text += f"\n\t{'PROPERTY':<15}  EDIT   VALUES\n\n"
    order = sorted(_POOL_PROP_VALUES, key=lambda p: (p not in _POOL_READONLY, p))
    for prop in order:
        edit = "  NO   " if prop in _POOL_READONLY else " YES   "
        text += f"\t{prop:<15}  {edit}{_POOL_PROP_VALUES[prop]}\n"
    text += f"\t{'feature@...':<15}   YES   disabled | enabled | active\n"
    text += ("\nThe feature@ properties must be appended with a feature name.\n"
             "See zpool-features(7).\n")
    return text


def zpool_usage(version: ZfsVersion) -> str:
    """usage(B_FALSE) outside a subcommand: ``version``'s whole command table, then from
    2.2 the line on `zpool help` (exit 2)."""
    text = "usage: zpool command args ...\nwhere 'command' is one of the following:\n\n"
    synopses = ZPOOL_SYNOPSES[usage_release(version)]
    for name in ZPOOL_COMMAND_ORDER[usage_release(version)]:
        text += "\n" if name is None else synopses[name]
    if release_at_least(version, 2, 2):
        text += "\nFor further help on a command or topic, run: zpool help [<topic>]\n"
    return text.removesuffix("\n")


def zpool_subcommand_usage(subcommand: str, version: ZfsVersion) -> str:
    """usage(B_FALSE) inside a subcommand: "usage:" and ``version``'s synopsis of it
    (get_usage()); list, get and set add the property table (exit 2)."""
    text = "usage:\n" + ZPOOL_SYNOPSES[usage_release(version)][subcommand]
    if subcommand in ("list", "get", "set"):
        text += _pool_property_table()
    return text.removesuffix("\n")


def zpool_missing_command(version: ZfsVersion) -> str:
    """main(): "missing command" then the full usage (exit 2)."""
    return "missing command\n" + zpool_usage(version)


def zpool_unrecognized_command(name: str, version: ZfsVersion) -> str:
    """main(): "unrecognized command 'foo'" then the full usage (exit 2)."""
    return f"unrecognized command '{name}'\n" + zpool_usage(version)


def zpool_invalid_option(opt: str) -> str:
    """getopt '?': "invalid option 'x'" (then the subcommand usage, exit 2)."""
    return f"invalid option '{opt if opt == '-' else opt.lstrip('-')}'"


def zpool_missing_argument(opt: str) -> str:
    """getopt ':': "missing argument for 'o' option" (then usage, exit 2)."""
    return f"missing argument for '{opt.lstrip('-')}' option"

def missing_pool_name() -> str:
    """zpool_do_create()/zpool_do_add(): "missing pool name argument" (usage, 2)."""
    return "missing pool name argument"


def missing_pool_argument() -> str:
    """zpool_do_destroy() (and export): "missing pool argument" (usage, 2)."""
    return "missing pool argument"


def missing_vdev_spec() -> str:
    """zpool_do_create()/zpool_do_add(): "missing vdev specification" (usage, 2)."""
    return "missing vdev specification"


def missing_property_argument() -> str:
    """zpool_do_get(): "missing property argument" (usage, 2)."""
    return "missing property argument"


def no_such_pool(name: str) -> str:
    """zpool_open_canfail() (lib/libzfs/libzfs_pool.c), EZFS_NOENT:
    "cannot open 'x': no such pool" (exit 1)."""
    return f"cannot open '{name}': no such pool"


def no_such_pool_available(name: str) -> str:
    """zpool_do_import() when no pool of that name is found in the searched directories
    (also for a pool that is imported: its labels say active, and the search skips
    it): "cannot import 'x': no such pool available" (exit 1)."""
    return f"cannot import '{name}': no such pool available"


def no_pools_to_import() -> str:
    """zpool_do_import() without a pool name, when nothing is found (exit 1)."""
    return "no pools available to import"


def import_pool_exists(name: str) -> str:
    """do_import(): an exported pool whose name an imported pool already has (exit 1)."""
    return (f"cannot import '{name}': a pool with that name already exists\n"
            "use the form 'zpool import <pool | id> <newpool>' to give it a new name")


def no_pools_available() -> str:
    """zpool list with no pools: "no pools available" on *stdout*, not with -H
    (zpool_do_list).  zpool status prints the same words on *stderr*
    (zpool_do_status: fprintf(stderr, ...)).  Exit 0 in both cases."""
    return "no pools available"


def pool_exists(name: str) -> str:
    """zpool_create() -> EEXIST -> zpool_standard_error() EZFS_EXISTS:
    "cannot create 'tank': pool already exists" (exit 1)."""
    return f"cannot create '{name}': pool already exists"


def _action(action: str, pool: str) -> str:
    # zpool_create(): "cannot create '%s'"; zpool_add(): "cannot add to '%s'"
    return f"cannot add to '{pool}'" if action == "add" else f"cannot create '{pool}'"

def bad_pool_property(prop: str, vdev_properties: bool = False) -> str:
    """add_prop_list() for ``zpool create -o``: "property 'xyz' is not a valid pool
    property" (2.1), "... pool or vdev property" from 2.2 (ZfsVersion.vdev_properties;
    then the usage, exit 2)."""
    kind = "pool or vdev" if vdev_properties else "pool"
    return f"property '{prop}' is not a valid {kind} property"


def pool_bad_property_list(prop: str) -> str:
    """zprop_get_list() for ``zpool list -o`` / ``zpool get``: "bad property list:
    invalid property 'xyz'" (lib/libzfs/libzfs_util.c; then usage, exit 2)."""
    return f"bad property list: invalid property '{prop}'"


_RESERVED_PREFIXES = ("mirror", "raidz", "draid", "spare")


def pool_name_problem(name: str) -> str | None:
    """Why ``zpool_name_valid()`` / ``pool_namecheck()`` rejects a name, or None.

    Reasons (lib/libzfs/libzfs_pool.c, module/zcommon/zfs_namecheck.c):
    "name must begin with a letter", "invalid character 'x' in pool name",
    "name is reserved" (mirror*, raidz*, draid*, spare*, log), "pool name is
    reserved" (c0.. like a Solaris disk), "name is too long"."""
    if len(name) >= 256:
        return "name is too long"
    for ch in name:
        if not (ch.isalnum() and ch.isascii()) and ch not in "-_.: ":
            return f"invalid character '{ch}' in pool name"
    if not name[:1].isalpha():
        return "name must begin with a letter"
    if name.startswith(_RESERVED_PREFIXES) or name == "log":
        return "name is reserved"
    if len(name) >= 2 and name[0] == "c" and name[1].isdigit():
        return "pool name is reserved"
    return None


def invalid_pool_name(action: str, name: str) -> str:
    """"cannot create 'x': <reason>" for a bad pool name (exit 1).  A '/' gets
    zpool_do_create()'s own two lines pointing at zfs create."""
    if "/" in name:
        return (f"cannot create '{name}': invalid character '/' in pool name\n"
                "use 'zfs create' to create a dataset")
    reason = pool_name_problem(name) or "invalid name"
    return f"{_action(action, name)}: {reason}"


def would_create(pool: str, vdevs: Sequence[str | tuple[str, Sequence[str]]],
                 logs: Sequence[str | tuple[str, Sequence[str]]] = ()) -> str:
    """``zpool create -n`` (stdout): "would create 'tank' with the following
    layout:" + a blank line + print_vdev_tree() ("\\t%*s%s\\n", two spaces per
    level), then the same for the "logs" class when there are log vdevs.  ``vdevs``
    are the top-level vdevs in order: a device path, or a (name, members) pair such as
    ("mirror", [...]) or ("raidz2", [...]).  A group is named without its id
    (zpool_vdev_name() without VDEV_NAME_TYPE_ID)."""
    def tree(top: Sequence[str | tuple[str, Sequence[str]]]) -> str:
        text = ""
        for vdev in top:
            if isinstance(vdev, str):
                text += f"\t  {vdev}\n"
            else:
                kind, members = vdev
                text += f"\t  {kind}\n" + "".join(f"\t    {m}\n" for m in members)
        return text

    text = f"would create '{pool}' with the following layout:\n\n\t{pool}\n" + tree(vdevs)
    if logs:
        text += "\tlogs\n" + tree(logs)
    return text.removesuffix("\n")


def zpool_version(version: str, release: str = "1") -> str:
    """``zpool version`` (stdout): userland then kernel module,
    "zfs-2.1.11-1" / "zfs-kmod-2.1.11-1" (Debian's package release is "-1")."""
    version = version.removeprefix("zfs-")
    return f"zfs-{version}-{release}\nzfs-kmod-{version}-{release}"


def status_no_pools() -> str:
    """zpool status with no pools: "no pools available" on stderr, exit 0."""
    return "no pools available"

