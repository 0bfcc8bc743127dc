"""The exact error texts of zpool, zfs and bash that labsim reproduces (OpenZFS 2.1).

Convention: every function returns what the tool writes to stderr (or stdout
where noted) *without the final newline*; multi-line messages contain their
inner newlines.  Usage blocks ("usage:\\n\\tcreate ...") likewise end without the
last newline.  Each text cites the source it was taken from; "unverified" marks
text reconstructed from a neighbouring release rather than read in 2.1 itself.

Exit statuses (``EXIT_*``): the ``usage()`` functions of zpool and zfs exit 2
(cmd/zpool/zpool_main.c and cmd/zfs/zfs_main.c: ``exit(requested ? 0 : 2)``);
failures reported through libzfs exit 1; bash exits 127 for an unknown command.

How libzfs composes most messages: ``zfs_error()`` (lib/libzfs/libzfs_util.c)
prints "<action>: <reason>", e.g. "cannot create 'tank': pool already exists".
"""

from __future__ import annotations

from collections.abc import Sequence

EXIT_OK = 0
EXIT_FAILURE = 1  # libzfs errors: "cannot open 'x': no such pool", ...
EXIT_USAGE = 2  # usage(B_FALSE): bad option, missing argument, unknown subcommand
EXIT_COMMAND_NOT_FOUND = 127  # bash

ASHIFT_MIN, ASHIFT_MAX = 9, 16  # include/sys/vdev_impl.h (ASHIFT_MAX 16 since 0.8)
SPA_MINDEVSIZE_TEXT = "64M"  # zfs_nicebytes(SPA_MINDEVSIZE = 64 MiB)
DISK_ROOT = "/dev"  # lib/libzutil/os/linux/zutil_device_path_os.c

# ---------------------------------------------------------------------------
# bash
# ---------------------------------------------------------------------------


def command_not_found(name: str) -> str:
    """bash: "bash: foo: command not found", exit 127 (bash execute_cmd.c)."""
    return f"bash: {name}: command not found"


# ---------------------------------------------------------------------------
# zpool usage (cmd/zpool/zpool_main.c get_usage(), command_table[], usage())
# ---------------------------------------------------------------------------

# get_usage() texts, 2.1.  create/destroy/add/list/status/get/set/sync/version are
# the ones labsim answers; the rest only appear in the full usage.  Lines marked
# 2.2 in the 2.2 listing (scrub -e, initialize -u, set <vdev_property>, the final
# "For further help" line) are left out.
_ZPOOL_USAGE = {
    "version": "\tversion\n",
    "create": ("\tcreate [-fnd] [-o property=value] ... \n"
               "\t    [-O file-system-property=value] ... \n"
               "\t    [-m mountpoint] [-R root] <pool> <vdev> ...\n"),
    "destroy": "\tdestroy [-f] <pool>\n",
    "add": "\tadd [-fgLnP] [-o property=value] <pool> <vdev> ...\n",
    "remove": "\tremove [-npsw] <pool> <device> ...\n",
    "labelclear": "\tlabelclear [-f] <vdev>\n",
    "checkpoint": "\tcheckpoint [-d [-w]] <pool> ...\n",
    "list": ("\tlist [-gHLpPv] [-o property[,...]] [-T d|u] [pool] ... \n"
             "\t    [interval [count]]\n"),
    "iostat": ("\tiostat [[[-c [script1,script2,...][-lq]]|[-rw]] [-T d | u] [-ghHLpPvy]\n"
               "\t    [[pool ...]|[pool vdev ...]|[vdev ...]] [[-n] interval [count]]\n"),
    "status": ("\tstatus [-c [script1,script2,...]] [-igLpPstvxD]  [-T d|u] [pool] ... \n"
               "\t    [interval [count]]\n"),
    "online": "\tonline [-e] <pool> <device> ...\n",
    "offline": "\toffline [-f] [-t] <pool> <device> ...\n",
    "clear": "\tclear [-nF] <pool> [device]\n",
    "reopen": "\treopen [-n] <pool>\n",
    "attach": "\tattach [-fsw] [-o property=value] <pool> <device> <new-device>\n",
    "detach": "\tdetach <pool> <device>\n",
    "replace": "\treplace [-fsw] [-o property=value] <pool> <device> [new-device]\n",
    "split": ("\tsplit [-gLnPl] [-R altroot] [-o mntopts]\n"
              "\t    [-o property=value] <pool> <newpool> [<device> ...]\n"),
    "initialize": "\tinitialize [-c | -s] [-w] <pool> [<device> ...]\n",
    "resilver": "\tresilver <pool> ...\n",
    "scrub": "\tscrub [-s | -p] [-w] <pool> ...\n",
    "trim": "\ttrim [-dw] [-r <rate>] [-c | -s] <pool> [<device> ...]\n",
    "import": ("\timport [-d dir] [-D]\n"
               "\timport [-o mntopts] [-o property=value] ... \n"
               "\t    [-d dir | -c cachefile] [-D] [-l] [-f] [-m] [-N] [-R root] [-F [-n]] -a\n"
               "\timport [-o mntopts] [-o property=value] ... \n"
               "\t    [-d dir | -c cachefile] [-D] [-l] [-f] [-m] [-N] [-R root] [-F [-n]]\n"
               "\t    [--rewind-to-checkpoint] <pool | id> [newpool]\n"),
    "export": "\texport [-af] <pool> ...\n",
    "upgrade": "\tupgrade\n\tupgrade -v\n\tupgrade [-V version] <-a | pool ...>\n",
    "reguid": "\treguid <pool>\n",
    "history": "\thistory [-il] [<pool>] ...\n",
    "events": "\tevents [-vHf [pool] | -c]\n",
    "get": ("\tget [-Hp] [-o \"all\" | field[,...]] "
            "<\"all\" | property[,...]> <pool> ...\n"),
    "set": "\tset <property=value> <pool> \n",
    "sync": "\tsync [pool] ...\n",
    "wait": "\twait [-Hp] [-T d|u] [-t <activity>[,...]] <pool> [interval]\n",
}

# command_table[]: None is an empty line in the general usage
_ZPOOL_TABLE: tuple[str | None, ...] = (
    "version", None, "create", "destroy", None, "add", "remove", None, "labelclear", None,
    "checkpoint", None, "list", "iostat", "status", None, "online", "offline", "clear",
    "reopen", None, "attach", "detach", "replace", "split", None, "initialize", "resilver",
    "scrub", "trim", None, "import", "export", "upgrade", "reguid", None, "history",
    "events", None, "get", "set", "sync", None, "wait",
)

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


def zpool_usage() -> str:
    """usage(B_FALSE) outside a subcommand: the whole command table (exit 2)."""
    text = "usage: zpool command args ...\nwhere 'command' is one of the following:\n\n"
    for name in _ZPOOL_TABLE:
        text += "\n" if name is None else _ZPOOL_USAGE[name]
    return text.removesuffix("\n")


def zpool_subcommand_usage(subcommand: str) -> str:
    """usage(B_FALSE) inside a subcommand: "usage:" and its synopsis; list, get and
    set add the property table (exit 2)."""
    text = "usage:\n" + _ZPOOL_USAGE[subcommand]
    if subcommand in ("list", "get", "set"):
        text += _pool_property_table()
    return text.removesuffix("\n")


def zpool_missing_command() -> str:
    """main(): "missing command" then the full usage (exit 2)."""
    return "missing command\n" + zpool_usage()


def zpool_unrecognized_command(name: str) -> str:
    """main(): "unrecognized command 'foo'" then the full usage (exit 2)."""
    return f"unrecognized command '{name}'\n" + zpool_usage()


def zpool_invalid_option(opt: str) -> str:
    """getopt '?': "invalid option 'x'" (then the subcommand usage, exit 2)."""
    return f"invalid option '{opt.lstrip('-')}'"


def zpool_missing_argument(opt: str) -> str:
    """getopt ':': "missing argument for 'o' option" (then usage, exit 2)."""
    return f"missing argument for '{opt.lstrip('-')}' option"


# ---------------------------------------------------------------------------
# zpool create / add / destroy / list / status / get
# ---------------------------------------------------------------------------


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


def device_too_small(action: str, pool: str) -> str:
    """EOVERFLOW from the kernel (a vdev below SPA_MINDEVSIZE, 64M).
    zpool_create(): "cannot create 'tank': one or more devices is less than the
    minimum size (64M)"; zpool_add(): "cannot add to 'tank': device is less than
    the minimum size (64M)" (lib/libzfs/libzfs_pool.c; exit 1)."""
    if action == "add":
        return f"cannot add to '{pool}': device is less than the minimum size " \
               f"({SPA_MINDEVSIZE_TEXT})"
    return f"cannot create '{pool}': one or more devices is less than the minimum size " \
           f"({SPA_MINDEVSIZE_TEXT})"


def same_device_twice(action: str, pool: str) -> str:
    """EBUSY: the same device given twice.  zpool_create() on Linux adds the md/lvm
    hint; zpool_add() does not (lib/libzfs/libzfs_pool.c; exit 1)."""
    if action == "add":
        return f"cannot add to '{pool}': one or more vdevs refer to the same device"
    return (f"cannot create '{pool}': one or more vdevs refer to the same device, or one of\n"
            "the devices is part of an active md or lvm device")


def cannot_open_path(path: str) -> str:
    """make_leaf_vdev() (cmd/zpool/zpool_vdev.c): an absolute path that does not
    exist fails realpath(): "cannot resolve path '/x'" (exit 1)."""
    return f"cannot resolve path '{path}'"


def not_a_device(word: str) -> str:
    """make_leaf_vdev(): a relative name that is not under /dev:
    "cannot open 'disk1.img': no such device in /dev" +
    "must be a full path or shorthand device name" (exit 1)."""
    return (f"cannot open '{word}': no such device in {DISK_ROOT}\n"
            "must be a full path or shorthand device name")


def cannot_use_directory(path: str) -> str:
    """make_leaf_vdev(): neither a block device nor a regular file:
    "cannot use '/tmp': must be a block device or regular file" (exit 1)."""
    return f"cannot use '{path}': must be a block device or regular file"


def _vdev_error(lines: Sequence[str], force: bool = False) -> str:
    # vdev_error() (cmd/zpool/zpool_vdev.c): header printed before the first error
    head = "invalid vdev specification\n"
    head += ("the following errors must be manually repaired:\n" if force
             else "use '-f' to override the following errors:\n")
    return head + "\n".join(lines)


def device_in_active_pool(path: str, pool: str, force: bool = False) -> str:
    """check_file_generic(): "<path> is part of active pool '<pool>'" under the
    vdev_error() header; -f does not override it for an active pool (exit 1)."""
    return _vdev_error([f"{path} is part of active pool '{pool}'"], force)


def devices_in_active_pools(in_use: Sequence[tuple[str, str]]) -> str:
    """check_in_use() walks the whole specification, so every device of an active pool
    gets its own line under one header (real 2.1.11: five lines for five files)."""
    return _vdev_error([f"{path} is part of active pool '{pool}'" for path, pool in in_use])


def device_in_exported_pool(path: str, pool: str) -> str:
    """check_file_generic(): a label of an exported pool; -f overrides it."""
    return _vdev_error([f"{path} is part of exported pool '{pool}'"])


def mismatched_replication(pool_type: str, new_type: str) -> str:
    """check_replication() for zpool add without -f, e.g. a file added to a pool of
    mirrors: "mismatched replication level: pool uses mirror and new vdev is file"."""
    return _vdev_error([pool_replication_type_differs(pool_type, new_type)])


def mirror_sizes_differ(kind: str = "mirror") -> str:
    """get_replication(): "mirror contains devices of different sizes" (or
    "raidz contains ...") unless -f is given."""
    return _vdev_error([group_sizes_differ(kind)])


def invalid_vdev_specification(lines: Sequence[str], force: bool = False) -> str:
    """One or more replication problems under vdev_error()'s header (zpool_vdev.c), as
    get_replication() / check_replication() report them, exit 1."""
    return _vdev_error(lines, force)


def group_too_small(keyword: str, mindev: int) -> str:
    """construct_spec() (cmd/zpool/zpool_vdev.c): a group with fewer devices than
    is_grouping() allows, named as typed: "invalid vdev specification: mirror requires
    at least 2 devices"; raidzN needs N + 1 (exit 1)."""
    return f"invalid vdev specification: {keyword} requires at least {mindev} devices"


def missing_device() -> str:
    """zpool_do_remove(): "missing device" (usage, 2)."""
    return "missing device"


def device_unavailable(pool: str) -> str:
    """zpool_add() for a log vdev the kernel will not open: real 2.1.11 says this of
    a 32 MiB file added as a log (below SPA_MINDEVSIZE), where a data vdev gets the
    "minimum size" text (exit 1)."""
    return f"cannot add to '{pool}': one or more devices is currently unavailable"


def log_specified_twice() -> str:
    """construct_spec(): a second "log" keyword in one specification (exit 1)."""
    return "invalid vdev specification: 'log' can be specified only once"


def log_without_devices() -> str:
    """construct_spec(): "log" with nothing after it (exit 1)."""
    return "invalid vdev specification: log requires at least 1 device"


def unsupported_log_device(kind: str) -> str:
    """construct_spec(): a log vdev may be a device or a mirror, not RAID-Z (exit 1)."""
    return f"invalid vdev specification: unsupported 'log' device: {kind}"


def no_such_device_in_pool(device: str) -> str:
    """zpool_vdev_remove() (lib/libzfs/libzfs_pool.c): EZFS_NODEVICE (exit 1)."""
    return f"cannot remove {device}: no such device in pool"


# The lines get_replication() (cmd/zpool/zpool_vdev.c) prints when the top-level vdevs
# of one specification disagree. ``kind`` is the vdev type as the kernel names it:
# "file", "disk", "mirror" or "raidz" (parity is not part of it). Read in a stored
# zpool_vdev.c newer than 2.1 whose get_replication() is the 2.1 one (raidz/mirror
# equivalence from OpenZFS PR #5915, 2017; dRAID from 2.1.0); unverified in 2.1.11.

def replication_types_differ(first: str, second: str) -> str:
    """"mismatched replication level: both file and mirror vdevs are present"."""
    return f"mismatched replication level: both {first} and {second} vdevs are present"


def replication_parity_differs(first: int, second: int, kind: str) -> str:
    """"mismatched replication level: both 1 and 2 device parity raidz vdevs are present"."""
    return (f"mismatched replication level: both {first} and {second} device parity "
            f"{kind} vdevs are present")


def replication_widths_differ(first: int, second: int, kind: str) -> str:
    """"mismatched replication level: both 2-way and 3-way mirror vdevs are present"."""
    return (f"mismatched replication level: both {first}-way and {second}-way {kind} "
            "vdevs are present")


def replication_redundancy_differs(raidz: str, mirror: str, parity: int, ways: int) -> str:
    """RAID-Z next to a mirror is accepted only when both survive as many failures
    (parity == ways - 1); otherwise: "mismatched replication level: raidz and mirror
    vdevs with different redundancy, 2 vs. 1 (2-way) are present"."""
    return (f"mismatched replication level: {raidz} and {mirror} vdevs with different "
            f"redundancy, {parity} vs. {ways - 1} ({ways}-way) are present")


def replication_raidz_redundancy_differs(first: str, second: str, first_parity: int,
                                         second_parity: int) -> str:
    """Two RAID-Z (or dRAID) vdevs of different parity (is_raidz_draid() in 2.1):
    "mismatched replication level: raidz and raidz vdevs with different redundancy,
    1 vs. 2 are present"."""
    return (f"mismatched replication level: {first} and {second} vdevs with different "
            f"redundancy, {first_parity} vs. {second_parity} are present")


def group_sizes_differ(kind: str) -> str:
    """Two neighbouring members of one group differ by more than ZPOOL_FUZZ (16 MiB):
    "mirror contains devices of different sizes" / "raidz contains ..."."""
    return f"{kind} contains devices of different sizes"


# check_replication() (cmd/zpool/zpool_vdev.c): zpool add, new vdevs against the pool.

def pool_replication_type_differs(pool_type: str, new_type: str) -> str:
    """"mismatched replication level: pool uses mirror and new vdev is file"."""
    return f"mismatched replication level: pool uses {pool_type} and new vdev is {new_type}"


def pool_replication_parity_differs(pool_parity: int, new_parity: int) -> str:
    """"mismatched replication level: pool uses 1 device parity and new vdev uses 2"."""
    return (f"mismatched replication level: pool uses {pool_parity} device parity and "
            f"new vdev uses {new_parity}")


def pool_replication_width_differs(pool_ways: int, pool_type: str, new_ways: int,
                                   new_type: str) -> str:
    """"mismatched replication level: pool uses 2-way mirror and new vdev uses 3-way
    mirror"."""
    return (f"mismatched replication level: pool uses {pool_ways}-way {pool_type} and new "
            f"vdev uses {new_ways}-way {new_type}")


def pool_replication_redundancy_differs(raidz: str, mirror: str, parity: int,
                                        ways: int) -> str:
    """"mismatched replication level: pool and new vdev with different redundancy, raidz
    and mirror vdevs, 1 vs. 2 (3-way)"."""
    return (f"mismatched replication level: pool and new vdev with different redundancy, "
            f"{raidz} and {mirror} vdevs, {parity} vs. {ways - 1} ({ways}-way)")


def bad_ashift(number: int | None) -> str:
    """make_leaf_vdev() checks -o ashift before any pool is touched
    (cmd/zpool/zpool_vdev.c): "ashift must be a number." (``number`` None: the value did
    not parse with zfs_nicestrtonum) or "invalid 'ashift=20' property: only values between
    9 and 16 are allowed." (exit 1)."""
    if number is None:
        return "ashift must be a number."
    return (f"invalid 'ashift={number}' property: only values between {ASHIFT_MIN} "
            f"and {ASHIFT_MAX} are allowed.")


def bad_pool_property(prop: str) -> str:
    """add_prop_list() for ``zpool create -o``: "property 'xyz' is not a valid pool
    property" (then the usage, exit 2)."""
    return f"property '{prop}' is not a valid pool property"


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


def would_create(pool: str, vdevs: Sequence[str | tuple[str, Sequence[str]]]) -> str:
    """``zpool create -n`` (stdout): "would create 'tank' with the following
    layout:" + a blank line + print_vdev_tree() ("\\t%*s%s\\n", two spaces per
    level).  ``vdevs`` are the top-level vdevs in order: a device path, or a (name,
    members) pair such as ("mirror", [...]) or ("raidz2", [...]).  The group is named
    without its id (zpool_vdev_name() without VDEV_NAME_TYPE_ID; unverified in 2.1.11)."""
    text = f"would create '{pool}' with the following layout:\n\n\t{pool}\n"
    for vdev in vdevs:
        if isinstance(vdev, str):
            text += f"\t  {vdev}\n"
        else:
            kind, members = vdev
            text += f"\t  {kind}\n" + "".join(f"\t    {m}\n" for m in members)
    return text.removesuffix("\n")


def zpool_version(version: str, release: str = "1") -> str:
    """``zpool version`` (stdout): userland then kernel module,
    "zfs-2.1.11-1" / "zfs-kmod-2.1.11-1" (Debian's package release is "-1")."""
    version = version.removeprefix("zfs-")
    return f"zfs-{version}-{release}\nzfs-kmod-{version}-{release}"


def status_no_pools() -> str:
    """zpool status with no pools: "no pools available" on stderr, exit 0."""
    return "no pools available"


# ---------------------------------------------------------------------------
# zfs (cmd/zfs/zfs_main.c, lib/libzfs/libzfs_dataset.c)
# ---------------------------------------------------------------------------

# get_usage(), 2.1 (unverified where 2.2 added options: create -u, set -u)
_ZFS_USAGE = {
    "version": "\tversion\n",
    "create": ("\tcreate [-Pnpv] [-o property=value] ... <filesystem>\n"
               "\tcreate [-Pnpsv] [-b blocksize] [-o property=value] ... "
               "-V <size> <volume>\n"),
    "destroy": ("\tdestroy [-fnpRrv] <filesystem|volume>\n"
                "\tdestroy [-dnpRrv] <filesystem|volume>@<snap>[%<snap>][,...]\n"
                "\tdestroy <filesystem|volume>#<bookmark>\n"),
    "snapshot": "\tsnapshot [-r] [-o property=value] ... <filesystem|volume>@<snap> ...\n",
    "rollback": "\trollback [-rRf] <snapshot>\n",
    "clone": "\tclone [-p] [-o property=value] ... <snapshot> <filesystem|volume>\n",
    "promote": "\tpromote <clone-filesystem>\n",
    "rename": ("\trename [-f] <filesystem|volume|snapshot> <filesystem|volume|snapshot>\n"
               "\trename -p [-f] <filesystem|volume> <filesystem|volume>\n"
               "\trename -u [-f] <filesystem> <filesystem>\n"
               "\trename -r <snapshot> <snapshot>\n"),
    "list": ("\tlist [-Hp] [-r|-d max] [-o property[,...]] [-s property]...\n"
             "\t    [-S property]... [-t type[,...]] [filesystem|volume|snapshot] ...\n"),
    "set": "\tset <property=value> ... <filesystem|volume|snapshot> ...\n",
    "get": ("\tget [-rHp] [-d max] [-o \"all\" | field[,...]]\n"
            "\t    [-t type[,...]] [-s source[,...]]\n"
            "\t    <\"all\" | property[,...]> [filesystem|volume|snapshot|bookmark] ...\n"),
    "inherit": "\tinherit [-rS] <property> <filesystem|volume|snapshot> ...\n",
    "mount": "\tmount\n\tmount [-flvO] [-o opts] <-a | filesystem>\n",
    "unmount": "\tunmount [-fu] <-a | filesystem|mountpoint>\n",
}


def zfs_subcommand_usage(subcommand: str) -> str:
    """usage(B_FALSE) inside a zfs subcommand: "usage:" and the synopsis (exit 2).

    Known gap: for set/get/list/inherit the real usage goes on with the whole
    dataset property table ("The following properties are supported: ..."),
    which is not reproduced."""
    return ("usage:\n" + _ZFS_USAGE[subcommand]).removesuffix("\n")


def zfs_usage() -> str:
    """usage(B_FALSE) outside a subcommand, abridged to the commands labsim knows
    (unverified: the real table lists every zfs subcommand)."""
    text = "usage: zfs command args ...\nwhere 'command' is one of the following:\n\n"
    order: tuple[str | None, ...] = (
        "version", None, "create", "destroy", None, "snapshot", "rollback", "clone",
        "promote", "rename", None, "list", None, "set", "get", "inherit", None, "mount",
        "unmount")
    for name in order:
        text += "\n" if name is None else _ZFS_USAGE[name]
    text += ("\nEach dataset is of the form: pool/[dataset/]*dataset[@name]\n"
             "\nFor the property list, run: zfs set|get\n"
             "\nFor the delegated permission list, run: zfs allow|unallow\n")
    return text.removesuffix("\n")


def zfs_missing_command() -> str:
    return "missing command\n" + zfs_usage()


def zfs_unrecognized_command(name: str) -> str:
    """main(): "unrecognized command 'foo'" then the full usage (exit 2)."""
    return f"unrecognized command '{name}'\n" + zfs_usage()


def zfs_invalid_option(opt: str) -> str:
    return f"invalid option '{opt.lstrip('-')}'"


def zfs_missing_argument(opt: str) -> str:
    return f"missing argument for '{opt.lstrip('-')}' option"


def dataset_does_not_exist(name: str) -> str:
    """zfs_open() EZFS_NOENT: "cannot open 'x': dataset does not exist" (exit 1)."""
    return f"cannot open '{name}': dataset does not exist"


def zfs_bad_property(prop: str) -> str:
    """zprop_get_list() for zfs list -o / zfs get: "bad property list: invalid
    property 'xyz'" (then the usage, exit 2)."""
    return f"bad property list: invalid property '{prop}'"


def subcommand_not_simulated(tool: str, sub: str, release: str) -> str:
    """A subcommand real OpenZFS ``release`` has and labsim does not simulate (exit 1)."""
    return (f"labsim: {tool} {sub} exists in OpenZFS {release} but is not simulated here; "
            f"try it on real OpenZFS in the lab VM (see vagrant/README.md)")


def property_not_simulated(command: str, prop: str, release: str) -> str:
    """A property real OpenZFS ``release`` has and labsim does not simulate: said as such,
    never as the real tools' refusal of a property that does not exist (exit 1)."""
    what = (f"user properties such as '{prop}' are" if ":" in prop
            else f"the property '{prop}' exists in OpenZFS {release} but is")
    return (f"labsim: {command}: {what} not simulated here; try it on real OpenZFS in the "
            f"lab VM (see vagrant/README.md)")


def option_not_simulated(command: str, option: str, what: str, release: str) -> str:
    """An option real OpenZFS ``release`` has whose effect labsim does not model (exit 1)."""
    return (f"labsim: {command} {option} ({what}) exists in OpenZFS {release} but is not "
            f"simulated here; try it on real OpenZFS in the lab VM (see vagrant/README.md)")


def not_simulated(command: str, what: str, release: str) -> str:
    """Something real OpenZFS ``release`` does that labsim does not model (exit 1): ``what``
    names it ("setting a property of a snapshot")."""
    return (f"labsim: {command}: {what} exists in OpenZFS {release} but is not simulated "
            f"here; try it on real OpenZFS in the lab VM (see vagrant/README.md)")


def asks_json(args: list[str], version) -> bool:
    """Whether a command line asks for JSON output (-j, --json, --json-int...), which
    zfs and zpool have since 2.3.0 (an older release refuses -j as an invalid option)."""
    major, minor = (int(part) for part in version.release.split(".")[:2])
    if (major, minor) < (2, 3):
        return False
    return any(arg.startswith("--json") or (arg.startswith("-") and not arg.startswith("--")
                                            and "j" in arg[1:])
               for arg in args if arg != "--")


def get_all_partial(release: str) -> str:
    """After `zfs get all`: the properties labsim simulates, not all of OpenZFS's."""
    return (f"labsim: zfs get all: the other properties of OpenZFS {release} are not "
            "simulated here; try it on real OpenZFS in the lab VM (see vagrant/README.md)")


def zfs_set_invalid_property(dataset: str, prop: str) -> str:
    """zfs_valid_proplist() for zfs set: "cannot set property for 'tank': invalid
    property 'xyz'" (exit 1, no usage)."""
    return f"cannot set property for '{dataset}': invalid property '{prop}'"


def no_datasets_available() -> str:
    """zfs list with nothing to list: "no datasets available" on *stderr*, exit 0
    (zfs_do_list)."""
    return "no datasets available"


def zfs_missing_property_argument() -> str:
    """zfs_do_get(): "missing property argument" (usage, exit 2)."""
    return "missing property argument"


def zfs_missing_dataset(subcommand: str = "set") -> str:
    """The missing-operand line of each subcommand (usage follows, exit 2):
    set "missing dataset name(s)", create "missing filesystem argument",
    destroy "missing dataset argument"."""
    return {"set": "missing dataset name(s)", "create": "missing filesystem argument",
            "destroy": "missing dataset argument"}.get(subcommand, "missing dataset argument")


def zfs_missing_assignment() -> str:
    """zfs_do_set() with only a dataset: "missing property=value argument(s)"."""
    return "missing property=value argument(s)"


def zfs_missing_equals(assignment: str = "") -> str:
    """parseprop(): "missing '=' for property=value argument" (usage, exit 2)."""
    return "missing '=' for property=value argument"


def zfs_readonly_property(dataset: str, prop: str) -> str:
    """zfs_valid_proplist(): "cannot set property for 'tank': 'used' is readonly"."""
    return f"cannot set property for '{dataset}': '{prop}' is readonly"


_COMPRESSION_VALUES = ("on | off | lzjb | gzip | gzip-[1-9] | zle | lz4 | zstd | zstd-[1-19] "
                       "| zstd-fast | zstd-fast-[1-10,20,30,40,50,60,70,80,90,100,500,1000]")
_INDEX_VALUES = {
    "compression": _COMPRESSION_VALUES,
    "checksum": "on | off | fletcher2 | fletcher4 | sha256 | sha512 | skein | edonr",
    "dedup": ("on | off | verify | sha256[,verify] | sha512[,verify] | skein[,verify] | "
              "edonr,verify"),
    "atime": "on | off", "relatime": "on | off", "readonly": "on | off",
    "canmount": "on | off | noauto", "copies": "1 | 2 | 3",
    "sync": "standard | always | disabled", "xattr": "on | off | dir | sa",
    "logbias": "latency | throughput",
}


def _set_action(action: str, dataset: str) -> str:
    # zfs_prop_set_list(): "cannot set property for '%s'"; zfs_create: "cannot create '%s'"
    return f"cannot create '{dataset}'" if action == "create" \
        else f"cannot set property for '{dataset}'"


def zfs_bad_index_value(dataset: str, prop: str, action: str = "set") -> str:
    """zprop_parse_value() for index properties: "'compression' must be one of
    '<values>'" with the value list registered in module/zcommon/zfs_prop.c."""
    return f"{_set_action(action, dataset)}: '{prop}' must be one of '{_INDEX_VALUES[prop]}'"


def zfs_bad_compression(dataset: str, action: str = "set") -> str:
    """"cannot set property for 'tank': 'compression' must be one of 'on | off |
    lzjb | gzip | gzip-[1-9] | zle | lz4 | zstd | zstd-[1-19] | zstd-fast |
    zstd-fast-[1-10,20,30,40,50,60,70,80,90,100,500,1000]'" (exit 1)."""
    return zfs_bad_index_value(dataset, "compression", action)


def zfs_bad_numeric_value(dataset: str, prop: str, value: str, action: str = "set") -> str:
    """zfs_nicestrtonum() (lib/libzfs/libzfs_util.c): "bad numeric value 'abc'"
    for a value not starting with a digit, "invalid numeric suffix 'X'" for a
    bad unit (exit 1).  ``prop`` is not part of the text."""
    text = value.strip()
    if not text or not (text[0].isdigit() or text[0] == "."):
        reason = f"bad numeric value '{value}'"
    else:
        i = 0
        while i < len(text) and (text[i].isdigit() or text[i] == "."):
            i += 1
        reason = f"invalid numeric suffix '{text[i:].lstrip()}'"
    return f"{_set_action(action, dataset)}: {reason}"


def zfs_bad_recordsize(dataset: str, action: str = "set", max_text: str = "1M") -> str:
    """zfs_valid_proplist() ZFS_PROP_RECORDSIZE: "'recordsize' must be power of 2
    from 512B to 1M" -- the maximum is the pool's maxblocksize, 1M with the 2.1
    default zfs_max_recordsize (exit 1)."""
    return f"{_set_action(action, dataset)}: 'recordsize' must be power of 2 from 512B to " \
           f"{max_text}"


def zfs_create_missing_pool(name: str) -> str:
    """check_parents() with no '/': "cannot create 'tank': missing dataset name"."""
    return f"cannot create '{name}': missing dataset name"


def zfs_create_no_such_pool(name: str) -> str:
    """check_parents(): "cannot create 'x/fs': no such pool 'x'"."""
    return f"cannot create '{name}': no such pool '{name.split('/')[0]}'"


def zfs_create_missing_parent(name: str) -> str:
    """check_parents(): "cannot create 'tank/a/b': parent does not exist"."""
    return f"cannot create '{name}': parent does not exist"


def zfs_dataset_exists(name: str) -> str:
    """zfs_create() EEXIST: "cannot create 'tank/fs': dataset already exists"."""
    return f"cannot create '{name}': dataset already exists"


def zfs_destroy_root(pool: str) -> str:
    """zfs_do_destroy() on a pool's root dataset (three lines, exit 1)."""
    return (f"cannot destroy '{pool}': operation does not apply to pools\n"
            f"use 'zfs destroy -r {pool}' to destroy all datasets in the pool\n"
            f"use 'zpool destroy {pool}' to destroy the pool itself")



# ---------------------------------------------------------------------------
# zpool scrub / clear / offline / online / attach / detach / replace, status -x
# (cmd/zpool/zpool_main.c for the argument checks; lib/libzfs/libzfs_pool.c for
# the failures, composed by zfs_error() as "<action>: <reason>"; the reasons are
# libzfs_error_description() in lib/libzfs/libzfs_util.c)
# ---------------------------------------------------------------------------

# libzfs_error_description(): EZFS_NODEVICE, EZFS_NOREPLICAS
_NO_SUCH_DEVICE = "no such device in pool"
_NO_VALID_REPLICAS = "no valid replicas"


def pool_is_healthy(pool: str) -> str:
    """status_callback() with -x for a pool whose status is OK (stdout):
    "pool 'tank' is healthy"."""
    return f"pool '{pool}' is healthy"


def all_pools_healthy() -> str:
    """zpool_do_status() with -x and no pool named, none of them unhealthy (stdout)."""
    return "all pools are healthy"


def missing_device_name() -> str:
    """zpool_do_online()/zpool_do_offline(): "missing device name" (usage, exit 2)."""
    return "missing device name"


def missing_pool_name_short() -> str:
    """zpool_do_online()/zpool_do_offline()/zpool_do_clear(): "missing pool name"
    (usage, exit 2)."""
    return "missing pool name"


def missing_device_spec() -> str:
    """zpool_do_attach_or_replace()/zpool_do_detach(): "missing <device> specification"
    (usage, exit 2)."""
    return "missing <device> specification"


def missing_new_device_spec() -> str:
    """zpool_do_attach_or_replace() for attach: "missing <new_device> specification"."""
    return "missing <new_device> specification"


def too_many_arguments() -> str:
    """"too many arguments" (usage, exit 2), e.g. zpool_do_clear() with three operands."""
    return "too many arguments"


def no_such_device(verb: str, path: str) -> str:
    """zpool_find_vdev() found nothing: "cannot offline /x: no such device in pool"
    (zpool_vdev_offline/online/detach/clear; exit 1)."""
    return f"cannot {verb} {path}: {_NO_SUCH_DEVICE}"


def no_valid_replicas(verb: str, path: str) -> str:
    """EBUSY from the kernel, EZFS_NOREPLICAS: "cannot offline /x: no valid replicas"
    (zpool_vdev_offline(), zpool_vdev_detach(); exit 1)."""
    return f"cannot {verb} {path}: {_NO_VALID_REPLICAS}"


def detach_not_mirror(path: str) -> str:
    """zpool_vdev_detach(), ENOTSUP: the device's parent is not a mirror (or a
    replacing vdev): "cannot detach /x: only applicable to mirror and replacing vdevs"."""
    return f"cannot detach {path}: only applicable to mirror and replacing vdevs"


def attach_failed(existing: str, new: str, reason: str, replacing: bool = False) -> str:
    """zpool_vdev_attach(): "cannot attach NEW to OLD: <reason>" or, for replace,
    "cannot replace OLD with NEW: <reason>"."""
    if replacing:
        return f"cannot replace {existing} with {new}: {reason}"
    return f"cannot attach {new} to {existing}: {reason}"


def attach_not_mirror(existing: str, new: str) -> str:
    """zpool_vdev_attach(), ENOTSUP on attach: the target is inside a RAID-Z (OpenZFS 2.1
    cannot widen RAID-Z): "cannot attach NEW to OLD: can only attach to mirrors and
    top-level disks"."""
    return attach_failed(existing, new, "can only attach to mirrors and top-level disks")


def attach_no_such_device(existing: str, new: str, replacing: bool = False) -> str:
    """zpool_vdev_attach(): the existing device is not in the pool (EZFS_NODEVICE)."""
    return attach_failed(existing, new, _NO_SUCH_DEVICE, replacing)


def attach_too_small(existing: str, new: str, replacing: bool = False) -> str:
    """zpool_vdev_attach(), EOVERFLOW: "... device is too small"."""
    return attach_failed(existing, new, "device is too small", replacing)
