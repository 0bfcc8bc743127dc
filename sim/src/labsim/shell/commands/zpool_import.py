"""zpool export and zpool import: a pool leaves the machine and comes back.

Export writes everything out (every metaslab's space map flushed, labsim.zfs.spacemaps)
and marks the pool's labels exported; the pool is then gone from zpool list but its
files remain, each carrying its labels (labsim.shell.vdev_labels). Import scans the
entries of directories (-d DIR, several allowed; without -d the default /dev paths,
where labsim has no devices), reads the labels of what it finds and assembles each
pool's config from them (labsim.zfs.discovery): a vdev file renamed or moved to another
searched directory is found by its label, and the pool's leaves take the new paths.
The kernel then opens the pool from that config (labsim.zfs.import_config): a mirror or
RAID-Z group missing members it can do without imports DEGRADED (a member found again at
a later import comes back stale, and is resilvered once the pool has synced a txg:
labsim.zfs.dtl_resilver); a top-level vdev that cannot work
leaves the pool UNAVAIL.

Messages (cmd/zpool/zpool_main.c): export of an unknown pool fails in zpool_open_canfail()
with "cannot open 'X': no such pool"; import of a name that no exported pool in the
searched directories has is "cannot import 'X': no such pool available" (zpool_do_import()).
An imported pool is not importable: get_configs() skips pools that are active on this
system (pool_active() in lib/libzutil/zutil_import.c), so importing it again gives the
same "no such pool available".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.format import zpool_import as fmt
from labsim.shell import messages as msg
from labsim.shell import vdev_labels
from labsim.shell.base import CommandResult, UsageError, parse_options
from labsim.shell.zil_writes import close_logs
from labsim.zfs import health, import_config, vdev_size
from labsim.zfs.discovery import FoundPool, find_pools
from labsim.zfs.import_config import ImportView
from labsim.zfs.labels import POOL_STATE_ACTIVE, POOL_STATE_DESTROYED, POOL_STATE_EXPORTED
from labsim.zfs.layouts import SINGLE
from labsim.zfs.lifecycle import export_pool, import_pool
from labsim.zfs.objset import logs_claimed
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import Leaf, TopVdev

if TYPE_CHECKING:
    from labsim.shell.session import Session
    from labsim.zfs.versions import ZfsVersion

# zpool_do_import()'s search path without -d (lib/libzutil/os/linux/zutil_import_os.c).
DEFAULT_IMPORT_DIRS = ("/dev/disk/by-vdev", "/dev/mapper", "/dev/disk/by-partlabel",
                       "/dev/disk/by-partuuid", "/dev/disk/by-label", "/dev/disk/by-uuid",
                       "/dev/disk/by-id", "/dev/disk/by-path", "/dev")


def _getopt(args: list[str], optstring: str, subcommand: str, version: ZfsVersion):
    return parse_options(args, optstring, missing_argument=msg.zpool_missing_argument,
                         invalid_option=msg.zpool_invalid_option,
                         usage=msg.zpool_subcommand_usage(subcommand, version))


def export(session: Session, args: list[str]) -> CommandResult:
    """zpool export [-af] pool ...: each named pool (or all, with -a) is exported."""
    opts, names = _getopt(args, "afF", "export", session.version)
    if ("-F", "") in opts:
        raise _not_simulated("zpool export -F (a hard force that leaves the labels as "
                             "they were)")
    if "-a" in {k for k, _ in opts}:
        names = sorted(session.pools)
    elif not names:
        raise UsageError(msg.missing_pool_argument() + "\n"
                         + msg.zpool_subcommand_usage("export", session.version), 2)
    for name in names:
        pool = session.pools.get(name)
        if pool is None:
            raise UsageError(msg.no_such_pool(name), 1)
        close_logs(session, pool)
        del session.pools[name]
        on_disk = export_pool(pool)
        # spa_export_common(): every label is dirtied with the new state and synced.
        vdev_labels.write_labels(session, on_disk, POOL_STATE_EXPORTED)
        session.exported_pools[on_disk.guid] = on_disk
    return CommandResult()


def destroy_labels(session: Session, pool: Pool) -> None:
    """spa_destroy(): spa_export_common() with POOL_STATE_DESTROYED, so the labels stay,
    saying destroyed (zpool import -D would list the pool)."""
    vdev_labels.write_labels(session, pool, POOL_STATE_DESTROYED)


def _not_simulated(what: str) -> UsageError:
    return UsageError(msg.notice(what, where=msg.REAL_OPENZFS), 1)


def discover(session: Session, directories: list[str]) -> list[tuple[FoundPool, Pool | None]]:
    """zpool_find_import() over ``directories``, less the pools active here
    (pool_active(): an imported pool of that name and guid) and, as zpool_do_import()
    skips them without -D, destroyed ones. Each found pool comes with what its devices
    hold (the exported Pool), or None where labsim has nothing for it (labels copied
    from a pool that was never exported here)."""
    found = find_pools(vdev_labels.scan_directories(session, directories))
    active = {(p.name, p.guid) for p in session.pools.values()}
    return [(f, session.exported_pools.get(f.guid)) for f in found
            if (f.name, f.guid) not in active and f.state != POOL_STATE_DESTROYED]


def try_import(session: Session, found: FoundPool, pool: Pool | None) -> ImportView:
    if pool is None:
        raise _not_simulated(f"importing pool '{found.name}' (id {found.guid}), whose "
                             "labels were copied or left behind without the pool's data,")
    view = import_config.try_import(pool, found,
                                    lambda path: vdev_labels.read_device(session, path))
    if any(view.leaves[leaf.guid].aux is not None for vdev in pool.logs
           for leaf in vdev.leaves):
        raise _not_simulated("a pool whose log device is missing at import (zpool import -m)")
    return view


def _listed_vdev(view: ImportView, vdev: TopVdev) -> fmt.ImportVdev:
    """print_import_config() for one top-level vdev of the MOS tree, leaves by the path
    they were found at (or tried)."""
    state = view.vdev_state(vdev)
    if vdev.kind == SINGLE:
        leaf = vdev.leaves[0]
        return fmt.ImportVdev(view.leaves[leaf.guid].path, state,
                              view.leaves[leaf.guid].aux)
    children = [fmt.ImportVdev(view.leaves[leaf.guid].path, view.leaf_state(leaf),
                               view.leaves[leaf.guid].aux) for leaf in vdev.leaves]
    aux = import_config.NO_REPLICAS if state == health.UNAVAIL else None
    return fmt.ImportVdev(vdev.name, state, aux, tuple(children))


def import_listing(view: ImportView) -> fmt.ImportPool:
    """show_import() for one pool found by the search: its state, the reason
    zpool_import_status() gives and the action for it."""
    state, reason = view.state, view.reason
    if state == health.ONLINE:
        action = "ok"
    elif state == health.DEGRADED:
        action = "degraded"
    else:
        action = "missing" if reason == import_config.MISSING_DEV_NR else "damaged"
    return fmt.ImportPool(
        name=view.found.name, guid=view.found.guid, state=state,
        root_aux=import_config.NO_REPLICAS if state == health.UNAVAIL else None,
        status=reason, action=action,
        see=import_config.MESSAGE_IDS.get(reason) if reason else None,
        vdevs=tuple(_listed_vdev(view, v) for v in view.pool.vdevs),
        logs=tuple(_listed_vdev(view, v) for v in view.pool.logs))


UNSIMULATED_IMPORT_OPTIONS = {
    "-o": "properties and mount options", "-R": "an alternate root", "-c": "a cache file",
    "-F": "rewinding to an earlier txg", "-X": "an extreme rewind", "-T": "a txg to rewind to",
    "-m": "a pool missing its log device", "-n": "a dry run of -F", "-t": "a temporary name",
    "-s": "a sequential scan", "-l": "loading encryption keys", "-C": "the cache's config",
    "-E": "a pool in use elsewhere", "-V": "a pool with faulted devices",
}


def import_(session: Session, args: list[str]) -> CommandResult:
    """zpool import [-d dir]... [-f] [-N] [pool | id [newpool]]: without a pool, list
    what the search finds (show_import()); with one, import it, by name or numeric id."""
    if "--rewind-to-checkpoint" in args:  # long_options[] of zpool_do_import()
        raise _not_simulated("zpool import --rewind-to-checkpoint (checkpoints)")
    opts, operands = _getopt(args, "aCc:d:DEfFlmnNo:R:stT:VX", "import", session.version)
    flags = {k for k, _ in opts}
    if "-D" in flags:
        raise _not_simulated("zpool import -D (destroyed pools)")
    # What these change is not modelled (properties and mount options, an altroot, a cache
    # file, rewinding to an earlier txg, a missing log, a temporary name, a scrub's scan,
    # keys): rather than import as if they were not given, labsim says so. -d, -f, -N and
    # -a (below) are simulated or answered elsewhere.
    for flag, what in UNSIMULATED_IMPORT_OPTIONS.items():
        if flag in flags:
            raise _not_simulated(f"zpool import {flag} ({what})")
    dirs = [session.absolute(v) for k, v in opts if k == "-d"] or list(DEFAULT_IMPORT_DIRS)
    found = discover(session, dirs)
    if not operands:
        if "-a" in flags:
            raise _not_simulated("zpool import -a")
        if not found:
            return CommandResult(stderr=msg.no_pools_to_import() + "\n", status=1)
        listings = [import_listing(try_import(session, f, p)) for f, p in found]
        return CommandResult(stdout=fmt.format_import_listing(
            listings, session.version.import_headings_as_status))
    if len(operands) > 2:
        raise UsageError(msg.too_many_arguments() + "\n"
                         + msg.zpool_subcommand_usage("import", session.version), 2)
    wanted = operands[0]
    # zpool_do_import(): a number is a pool guid, anything else a name.
    matches = [(f, p) for f, p in found
               if (str(f.guid) == wanted if wanted.isdigit() else f.name == wanted)]
    if len(matches) > 1:
        raise UsageError(f"cannot import '{wanted}': more than one matching pool\n"
                         "import by numeric ID instead", 1)
    if not matches:
        raise UsageError(msg.no_such_pool_available(wanted), 1)
    view = try_import(session, *matches[0])
    pool = view.pool
    if view.state == health.UNAVAIL:
        # zpool_import_props() as 2.1.11 and 2.3.9 print it for a pool missing a
        # top-level vdev (recorded); 0.6 said "one or more devices is currently
        # unavailable"
        raise UsageError(f"cannot import '{wanted}': no such pool or dataset\n"
                         "\tDestroy and re-create the pool from\n\ta backup source.", 1)
    name = view.found.name
    new_name = operands[1] if len(operands) == 2 else name
    if new_name in session.pools:
        raise UsageError(msg.import_pool_exists(name), 1)
    def found_size(leaf: Leaf) -> int | None:
        outcome = view.leaves[leaf.guid]
        return (None if outcome.aux is not None
                else vdev_labels.file_size(session, outcome.path))

    if any(vdev_size.too_small(vdev, found_size) for vdev in [*pool.vdevs, *pool.logs]):
        raise _not_simulated("a pool with a device whose file was made smaller than its "
                             "vdev uses")
    del session.exported_pools[pool.guid]
    if new_name != pool.name:
        old = pool.name
        pool.name = new_name
        pool.datasets = {new_name + key[len(old):]: ds for key, ds in pool.datasets.items()}
        for key, ds in pool.datasets.items():
            ds.name = key
    import_config.apply_import(view, session.now())
    for vdev in [*pool.vdevs, *pool.logs]:  # the tree opened anew (labsim.zfs.vdev_size)
        vdev_size.imported(vdev, lambda path: vdev_labels.file_size(session, path))
    replayed = {record.dataset for record in pool.replay_log}
    import_pool(pool)
    logs_claimed(pool, replayed)
    pool.imported_at = session.clock
    for vdev in [*pool.vdevs, *pool.logs]:  # vdev statistics start again at import
        vdev.write_ops = vdev.write_bytes = 0
    session.pools[new_name] = pool
    vdev_labels.write_labels(session, pool, POOL_STATE_ACTIVE)
    return CommandResult()
