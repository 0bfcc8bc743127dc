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

from labsim.shell import messages as msg
from labsim.shell.session import CommandResult, Session, UsageError, parse_options
from labsim.shell.zil_writes import close_logs
from labsim.zfs.pool import Pool, export_pool, import_pool

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


def import_(session: Session, args: list[str]) -> CommandResult:
    """zpool import [-d dir]... [-f] [-N] pool [newpool]."""
    opts, operands = _getopt(args, "aCc:d:DEfFlmnNo:R:st:TVX", "import")
    dirs = [session.absolute(v) for k, v in opts if k == "-d"] or list(DEFAULT_IMPORT_DIRS)
    found = [p for p in session.exported_pools.values() if importable(session, p, dirs)]
    if not operands:
        if not found:
            return CommandResult(stderr=msg.no_pools_to_import() + "\n", status=1)
        raise UsageError("labsim: zpool import lists pools only by name here; "
                         f"try: zpool import -d DIR {found[0].name}", 1)
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
