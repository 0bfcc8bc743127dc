"""zpool: create, add, list, status, get, destroy (and sync, version).

Option parsing follows zpool's getopt strings (GNU getopt, so options may follow
operands). Vdev specifications are read as in cmd/zpool/zpool_vdev.c: group keywords
(mirror, raidz1-3, log, cache, spare, special, dedup) open a group; anything else is a
device, which must be a full path (labsim has sparse files, not disks).
"""

from __future__ import annotations

import re

from labsim.format import zpool_list as list_fmt
from labsim.format import zpool_status as status_fmt
from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.session import CommandResult, Session, UsageError, parse_options
from labsim.shell.units import parse_zfs_number
from labsim.zfs.errors import DeviceTooSmall
from labsim.zfs.pool import Pool, add_vdevs, create_pool

GROUP_KEYWORDS = {"mirror", "raidz", "raidz1", "raidz2", "raidz3", "draid", "log", "cache",
                  "spare", "special", "dedup"}
POOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zpool_missing_command(), 2)
    sub = {
        "create": create, "add": add, "list": list_pools, "status": status,
        "destroy": destroy, "get": get, "sync": sync, "version": version,
    }.get(argv[1])
    if sub is None:
        raise UsageError(msg.zpool_unrecognized_command(argv[1]), 2)
    return sub(session, argv[2:])


def _getopt(args: list[str], optstring: str, subcommand: str):
    return parse_options(args, optstring, missing_argument=msg.zpool_missing_argument,
                         invalid_option=msg.zpool_invalid_option,
                         usage=msg.zpool_subcommand_usage(subcommand))


def _pool(session: Session, name: str) -> Pool:
    pool = session.pools.get(name)
    if pool is None:
        raise UsageError(msg.no_such_pool(name), 1)
    return pool


def _ashift(props: list[str]) -> int:
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


def _devices(session: Session, words: list[str], action: str, pool_name: str,
             props: list[str]) -> tuple[list[tuple[str, int]], int]:
    """Resolve a vdev specification into (path, size) pairs of plain file vdevs, and the ashift.

    The order of the checks is zpool's: each device is resolved (make_leaf_vdev, which also
    rejects a bad -o ashift), and only then is the whole set checked for devices in use.
    """
    if not words:
        raise UsageError(msg.missing_vdev_spec() + "\n" + msg.zpool_subcommand_usage(action), 2)
    groups = [w for w in words if w in GROUP_KEYWORDS]
    if groups:
        # labsim's own words, not zpool's: the group parses, but is not modelled yet.
        raise UsageError(f"labsim: '{groups[0]}' vdevs are not simulated yet; "
                         "this lesson uses plain file vdevs", 1)
    devices = []
    for word in words:
        if not word.startswith("/"):
            raise UsageError(msg.not_a_device(word), 1)
        path = session.absolute(word)
        host = session.host_files.get(path)
        if host is None:
            if fs.is_dir(session, path):
                raise UsageError(msg.cannot_use_directory(word), 1)
            raise UsageError(msg.cannot_open_path(word), 1)
        devices.append((path, host.size))
    ashift = _ashift(props)
    seen = set()
    for path, _ in devices:
        for other in session.pools.values():
            if any(leaf.path == path for v in other.vdevs for leaf in v.leaves):
                raise UsageError(msg.device_in_active_pool(path, other.name), 1)
        if path in seen:
            raise UsageError(msg.same_device_twice(action, pool_name), 1)
        seen.add(path)
    return devices, ashift


def create(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "fndR:m:o:O:t:", "create")
    props = [v for k, v in opts if k == "-o"]
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("create"), 2)
    name = operands[0]
    if not POOL_NAME.match(name) or name in GROUP_KEYWORDS:
        raise UsageError(msg.invalid_pool_name("create", name), 1)
    for prop in props:
        if prop.partition("=")[0] not in ("ashift", "autoexpand", "autotrim", "comment"):
            raise UsageError(msg.bad_pool_property(prop.partition("=")[0]), 2)
    devices, ashift = _devices(session, operands[1:], "create", name, props)
    if name in session.pools:
        raise UsageError(msg.pool_exists(name), 1)
    if ("-n",  "") in opts:
        return CommandResult(stdout=msg.would_create(name, [d for d, _ in devices]) + "\n")
    try:
        pool = create_pool(name, devices, session.version, ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("create", name), 1) from None
    session.pools[name] = pool
    return CommandResult()


def add(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "fgLnPo:", "add")
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + msg.zpool_subcommand_usage("add"), 2)
    pool = _pool(session, operands[0])
    devices, ashift = _devices(session, operands[1:], "add", pool.name,
                               [v for k, v in opts if k == "-o"])
    try:
        add_vdevs(pool, devices, ashift)
    except DeviceTooSmall:
        raise UsageError(msg.device_too_small("add", pool.name), 1) from None
    return CommandResult()


def destroy(session: Session, args: list[str]) -> CommandResult:
    _, operands = _getopt(args, "f", "destroy")
    if not operands:
        raise UsageError(msg.missing_pool_argument() + "\n"
                         + msg.zpool_subcommand_usage("destroy"), 2)
    _pool(session, operands[0])
    del session.pools[operands[0]]
    return CommandResult()


def sync(session: Session, args: list[str]) -> CommandResult:
    for name in args:
        _pool(session, name)
    return CommandResult()


def version(session: Session, args: list[str]) -> CommandResult:
    return CommandResult(stdout=msg.zpool_version(session.version.release) + "\n")


def _selected(session: Session, names: list[str]) -> list[Pool]:
    missing = [n for n in names if n not in session.pools]
    if missing:
        raise UsageError(msg.no_such_pool(missing[0]), 1)
    return [session.pools[n] for n in names] if names else list(session.pools.values())


def list_pools(session: Session, args: list[str]) -> CommandResult:
    opts, names = _getopt(args, "gHLpPvo:T:", "list")
    flags = {k for k, _ in opts}
    columns = None
    for k, v in opts:
        if k == "-o":
            columns = v.split(",")
            bad = [c for c in columns if c.lower() not in list_fmt.COLUMNS]
            if bad:
                raise UsageError(msg.pool_bad_property_list(bad[0]) + "\n"
                                 + msg.zpool_subcommand_usage("list"), 2)
    pools = _selected(session, names)
    if not pools:
        return CommandResult(stdout=msg.no_pools_available() + "\n")
    rows = [pool_row(p) for p in sorted(pools, key=lambda p: p.name)]
    text = list_fmt.format_zpool_list(rows, verbose="-v" in flags, parsable="-p" in flags,
                                      scripted="-H" in flags, columns=columns)
    return CommandResult(stdout=text)


def pool_row(pool: Pool) -> list_fmt.PoolRow:
    physical = pool.version.vdev_list_size == "physical"
    vdevs = [
        list_fmt.VdevRow(
            name=v.name, size=v.leaves[0].psize if physical else v.space, alloc=v.alloc,
            free=v.free, frag=v.fragmentation,
            cap=v.alloc * 100 / v.space if v.space else 0.0, health="ONLINE",
        )
        for v in pool.vdevs
    ]
    return list_fmt.PoolRow(
        name=pool.name, size=pool.space, alloc=pool.alloc, free=pool.free,
        frag=pool.fragmentation, cap=pool.capacity, dedup=1.0, health="ONLINE", vdevs=vdevs,
    )


def status(session: Session, args: list[str]) -> CommandResult:
    _, names = _getopt(args, "DigLpPstvxc:T:", "status")
    pools = _selected(session, names)
    if not pools:
        return CommandResult(stderr=msg.status_no_pools() + "\n")
    text = "\n".join(status_fmt.format_zpool_status(status_row(p)) for p in pools)
    return CommandResult(stdout=text)


def status_row(pool: Pool) -> status_fmt.PoolStatus:
    return status_fmt.PoolStatus(
        name=pool.name, state="ONLINE",
        vdevs=[status_fmt.VdevStatus(name=v.name, state="ONLINE") for v in pool.vdevs],
    )


POOL_PROPERTIES = ("size", "capacity", "altroot", "health", "allocated", "free",
                   "fragmentation", "ashift", "dedupratio", "freeing", "leaked", "readonly")


def get(session: Session, args: list[str]) -> CommandResult:
    opts, operands = _getopt(args, "pHo:", "get")
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError(msg.missing_property_argument() + "\n"
                         + msg.zpool_subcommand_usage("get"), 2)
    wanted = POOL_PROPERTIES if operands[0] == "all" else tuple(operands[0].split(","))
    for prop in wanted:
        if prop not in POOL_PROPERTIES:
            raise UsageError(msg.bad_pool_property(prop) + "\n"
                             + msg.zpool_subcommand_usage("get"), 2)
    rows = []
    for pool in _selected(session, operands[1:]):
        for prop in wanted:
            value, source = pool_property(pool, prop)
            rows.append((pool.name, prop, value, source))
    text = list_fmt.format_zpool_get(rows, parsable="-p" in flags, scripted="-H" in flags)
    return CommandResult(stdout=text)


def pool_property(pool: Pool, prop: str) -> tuple[object, str]:
    values = {
        "size": pool.space, "allocated": pool.alloc, "free": pool.free,
        "capacity": pool.capacity, "fragmentation": pool.fragmentation,
        "health": "ONLINE", "altroot": None, "dedupratio": 1.0, "freeing": 0, "leaked": 0,
        "readonly": "off",
    }
    if prop == "ashift":
        return pool.vdevs[0].ashift, "local"
    return values[prop], "-" if prop != "altroot" else "default"
