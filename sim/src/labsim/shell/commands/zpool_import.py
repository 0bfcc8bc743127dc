"""zpool export and zpool import: a pool leaves the machine and comes back.

Export writes everything out (every metaslab's space map flushed, labsim.zfs.spacemaps)
and marks the pool's labels exported; the pool is then gone from zpool list but its
files remain. Import searches directories for labels (-d DIR, several allowed; without
-d the default /dev paths, where labsim has no devices) and brings the pool back.

Messages (cmd/zpool/zpool_main.c): export of an unknown pool fails in zpool_open_canfail()
with "cannot open 'X': no such pool"; import of a name that no exported pool in the
searched directories has is "cannot import 'X': no such pool available" (do_import()).
An imported pool is not importable: zpool_find_import() skips pools whose labels say
they are active on this system (pool_active() in lib/libzutil/zutil_import.c), so
importing it again gives the same "no such pool available".
"""

from __future__ import annotations

import hashlib

from labsim.shell import messages as msg
from labsim.shell.session import CommandResult, Session, UsageError, parse_options
from labsim.shell.zil_writes import close_logs
from labsim.zfs.layouts import SINGLE
from labsim.zfs.lifecycle import export_pool, import_pool
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import Leaf, TopVdev

# zpool_do_import()'s search path without -d (lib/libzutil/os/linux/zutil_import_os.c).
DEFAULT_IMPORT_DIRS = ("/dev/disk/by-vdev", "/dev/mapper", "/dev/disk/by-partlabel",
                       "/dev/disk/by-partuuid", "/dev/disk/by-label", "/dev/disk/by-uuid",
                       "/dev/disk/by-id", "/dev/disk/by-path", "/dev")


def _getopt(args: list[str], optstring: str, subcommand: str):
    return parse_options(args, optstring, missing_argument=msg.zpool_missing_argument,
                         invalid_option=msg.zpool_invalid_option,
                         usage=msg.zpool_subcommand_usage(subcommand))


def export(session: Session, args: list[str]) -> CommandResult:
    """zpool export [-af] pool ...: each named pool (or all, with -a) is exported."""
    opts, names = _getopt(args, "afF", "export")
    if "-a" in {k for k, _ in opts}:
        names = sorted(session.pools)
    elif not names:
        raise UsageError(msg.missing_pool_argument() + "\n"
                         + msg.zpool_subcommand_usage("export"), 2)
    for name in names:
        pool = session.pools.get(name)
        if pool is None:
            raise UsageError(msg.no_such_pool(name), 1)
        close_logs(session, pool)
        del session.pools[name]
        session.exported_pools[name] = export_pool(pool)
    return CommandResult()


def importable(session: Session, pool: Pool, directories: list[str]) -> bool:
    """Every leaf of the pool is a file in one of the searched directories (labsim does
    not import a pool with missing devices)."""
    dirs = [d.rstrip("/") + "/" for d in directories]
    return all(leaf.path in session.host_files
               and any(leaf.path.startswith(d) for d in dirs)
               for vdev in [*pool.vdevs, *pool.logs] for leaf in vdev.leaves)


def _present(session: Session, leaf: Leaf, dirs: list[str]) -> bool:
    return leaf.path in session.host_files and any(
        leaf.path.startswith(d.rstrip("/") + "/") for d in dirs)


def seen(session: Session, pool: Pool, dirs: list[str]) -> bool:
    """Some leaf of the pool is in a searched directory: zpool_find_import() finds its
    labels and reports the pool, importable or not."""
    return any(_present(session, leaf, dirs)
               for vdev in [*pool.vdevs, *pool.logs] for leaf in vdev.leaves)


def missing_top_vdevs(session: Session, pool: Pool, dirs: list[str]) -> list[TopVdev]:
    """Top-level vdevs none of whose leaves was found. The pool cannot be opened without
    them, whatever copies= says (spa_load() needs every top-level vdev)."""
    return [vdev for vdev in pool.vdevs
            if not any(_present(session, leaf, dirs) for leaf in vdev.leaves)]


def import_listing(session: Session, pool: Pool, dirs: list[str]) -> str:
    """show_import() (cmd/zpool/zpool_main.c) for one pool found by the search.

    The config comes from the pool's MOS, read from the devices found (spa_tryimport()),
    so a missing single-disk vdev is listed by its path as "UNAVAIL  cannot open" and the
    pool as "insufficient replicas": ZPOOL_STATUS_MISSING_DEV_NR, ZFS-8000-3C (recorded
    on 2.1.11, tests/fixtures/real/2.1.11/08-copies.txt)."""
    missing = missing_top_vdevs(session, pool, dirs)
    rows: list[tuple[int, str, str]] = []  # depth, name, state and note
    for vdev in pool.vdevs:
        state = "UNAVAIL  cannot open" if vdev in missing else "ONLINE"
        if vdev.kind == SINGLE:
            rows.append((2, vdev.leaves[0].path, state))
        else:
            rows.append((2, vdev.name, state))
            rows.extend((4, leaf.path, state) for leaf in vdev.leaves)
    # max_width(NULL, nvroot, 0, strlen(name), ...), at least 10
    width = max([len(pool.name), *(depth + len(name) for depth, name, _ in rows), 10])
    text = f"   pool: {pool.name}\n     id: {pool_guid(pool)}\n"
    if missing:
        text += ("  state: UNAVAIL\n"
                 "status: One or more devices are missing from the system.\n"
                 " action: The pool cannot be imported. Attach the missing\n"
                 "\tdevices and try again.\n"
                 "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-3C\n")
        root = "UNAVAIL  insufficient replicas"
    else:
        text += ("  state: ONLINE\n"
                 " action: The pool can be imported using its name or numeric identifier.\n")
        root = "ONLINE"
    text += " config:\n\n"
    # print_import_config(): "\t%*s%-*s", then "  %s" (state), then "  " and the aux text
    text += f"\t{pool.name.ljust(width)}  {root}\n"
    for depth, name, state in rows:
        text += "\t" + " " * depth + name.ljust(width - depth) + f"  {state}\n"
    return text


def pool_guid(pool: Pool) -> int:
    """A stand-in for the pool's random 64-bit guid (spa_generate_guid()), fixed by its
    name so that a session repeats itself."""
    return int.from_bytes(hashlib.sha256(pool.name.encode()).digest()[:8], "big") or 1


def import_(session: Session, args: list[str]) -> CommandResult:
    """zpool import [-d dir]... [-f] [-N] [pool [newpool]]: without a pool, list what
    the search finds (show_import()); with one, import it if all its top-level vdevs
    were found."""
    opts, operands = _getopt(args, "aCc:d:DEfFlmnNo:R:st:TVX", "import")
    dirs = [session.absolute(v) for k, v in opts if k == "-d"] or list(DEFAULT_IMPORT_DIRS)
    found = [p for p in session.exported_pools.values() if importable(session, p, dirs)]
    visible = [p for p in session.exported_pools.values() if seen(session, p, dirs)]
    if not operands:
        if not visible:
            return CommandResult(stderr=msg.no_pools_to_import() + "\n", status=1)
        return CommandResult(stdout="\n".join(import_listing(session, p, dirs)
                                              for p in visible))
    unavailable = next((p for p in visible if p.name == operands[0] and p not in found
                        and missing_top_vdevs(session, p, dirs)), None)
    if unavailable is not None:
        # zpool_import_props() as 2.1.11 prints it (recorded); 0.6 said "one or more
        # devices is currently unavailable"
        raise UsageError(f"cannot import '{operands[0]}': no such pool or dataset\n"
                         "\tDestroy and re-create the pool from\n\ta backup source.", 1)
    if len(operands) > 2:
        raise UsageError(msg.too_many_arguments() + "\n"
                         + msg.zpool_subcommand_usage("import"), 2)
    name = operands[0]
    pool = next((p for p in found if p.name == name), None)
    if pool is None:
        raise UsageError(msg.no_such_pool_available(name), 1)
    new_name = operands[1] if len(operands) == 2 else name
    if new_name in session.pools:
        raise UsageError(msg.import_pool_exists(name), 1)
    del session.exported_pools[name]
    if new_name != name:
        pool.name = new_name
        pool.datasets = {new_name + key[len(name):]: ds for key, ds in pool.datasets.items()}
        for key, ds in pool.datasets.items():
            ds.name = key
    import_pool(pool)
    pool.imported_at = session.clock
    for vdev in [*pool.vdevs, *pool.logs]:  # vdev statistics start again at import
        vdev.write_ops = vdev.write_bytes = 0
    session.pools[new_name] = pool
    return CommandResult()
