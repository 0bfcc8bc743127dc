"""zpool's texts about devices and vdevs: the vdev specification of create and add
(cmd/zpool/zpool_vdev.c: make_leaf_vdev(), construct_spec(), get_replication(),
check_replication(), vdev_error()) and the device commands (scrub, clear, offline, online,
attach, detach, replace, remove; lib/libzfs/libzfs_pool.c)."""

from __future__ import annotations

from collections.abc import Sequence

ASHIFT_MIN, ASHIFT_MAX = 9, 16  # include/sys/vdev_impl.h (ASHIFT_MAX 16 since 0.8)
SPA_MINDEVSIZE_TEXT = "64M"  # zfs_nicebytes(SPA_MINDEVSIZE = 64 MiB)
DISK_ROOT = "/dev"  # lib/libzutil/os/linux/zutil_device_path_os.c


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
