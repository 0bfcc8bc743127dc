"""zdb: the pool debugger, as far as lesson 3 uses it: -m and -mm (metaslabs), on an
imported pool or, with -e [-p dir], on an exported one.

zdb reads the pool from its disks, not from the kernel. On an imported pool it sees the
space maps as last written, which in OpenZFS 2.x lag behind the log space maps
(labsim.zfs.spacemaps); on an exported pool everything has been flushed. Without -e,
zdb opens the pools named in /etc/zfs/zpool.cache, which lists imported pools only: an
exported or unknown pool is ENOENT, "No such file or directory" (main() in
cmd/zdb/zdb.c). With -e it searches the -p directory for the pool's labels instead.
"""

from __future__ import annotations

import getopt
from typing import TYPE_CHECKING

from labsim.format import zdb as fmt
from labsim.format.coreutils import getopt_message
from labsim.shell import messages as msg
from labsim.shell import vdev_labels
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.registry import command
from labsim.zfs import import_config
from labsim.zfs.discovery import find_pools
from labsim.zfs.pool import Pool
from labsim.zfs.versions import release_at_least

if TYPE_CHECKING:
    from labsim.shell.session import Session

# zdb's getopt string (cmd/zdb/zdb.c main()) in 2.1.11; 2.2.0 added -B (backup), -K
# (key) and -T (brt-stats) and long names for every option (getopt_long(), the same at
# zfs-2.2.9 and zfs-2.3.9).
ZDB_OPTIONS = "AbcCdDeEFGhiI:klLmMNo:Op:PqrRsSt:uU:vVx:XYyZ"
ZDB_OPTIONS_2_2 = "AbBcCdDeEFGhiI:kK:lLmMNo:Op:PqrRsSt:TuU:vVx:XYyZ"
ZDB_LONG_OPTIONS_2_2 = (
    "ignore-assertions", "block-stats", "backup", "checksum", "config", "datasets",
    "dedup-stats", "exported", "embedded-block-pointer", "automatic-rewind",
    "dump-debug-msg", "history", "intent-logs", "inflight=", "checkpointed-state", "key=",
    "label", "disable-leak-tracking", "metaslabs", "metaslab-groups", "numeric", "option=",
    "object-lookups", "path=", "parseable", "skip-label", "copy-object", "read-block",
    "io-stats", "simulate-dedup", "txg=", "brt-stats", "uberblock", "cachefile=", "verbose",
    "verbatim", "dump-blocks=", "extreme-rewind", "all-reconstruction", "livelist",
    "zstd-headers")
ZDB_LONG_OPTIONS_2_3 = (*ZDB_LONG_OPTIONS_2_2, "allocated-map")  # a long option alone
# The long names labsim models, as the short options they stand for.
_LONG_MODELLED = {"--exported": "-e", "--path": "-p", "--metaslabs": "-m"}
MODELLED = {"-e", "-p", "-m"}


@command("zdb")
def main(session: Session, argv: list[str]) -> CommandResult:
    newer = release_at_least(session.version, 2, 2)
    long = (ZDB_LONG_OPTIONS_2_3 if release_at_least(session.version, 2, 3)
            else ZDB_LONG_OPTIONS_2_2 if newer else ())
    try:
        # glibc's getopt permutes: options may follow the pool's name.
        opts, operands = getopt.gnu_getopt(argv[1:], ZDB_OPTIONS_2_2 if newer else ZDB_OPTIONS,
                                           list(long))
    except getopt.GetoptError as err:
        raise UsageError(f"zdb: {getopt_message(err)}", 1) from None
    opts = [(_LONG_MODELLED.get(k, k), v) for k, v in opts]
    flags = [k for k, _ in opts]
    unsupported = sorted({k for k in flags if k not in MODELLED})
    if unsupported or "-m" not in flags:
        raise UsageError(msg.command_line_not_simulated("zdb", argv)
                         + " (labsim has zdb -m and -mm, with -e and -p)", 1)
    if len(operands) != 1:
        raise UsageError(msg.command_line_not_simulated("zdb", argv)
                         + " (labsim's zdb -m takes one pool name)", 1)
    name = operands[0]
    level = flags.count("-m")
    pool = _find(session, name, exported="-e" in flags,
                 directories=[v for k, v in opts if k == "-p"])
    if pool is None:
        return CommandResult.fail(fmt.cannot_open(name))
    return CommandResult(stdout=fmt.format_zdb_metaslabs(zdb_view(pool), level))


def _find(session: Session, name: str, exported: bool, directories: list[str]) -> Pool | None:
    if not exported:
        return session.pools.get(name)
    # zpool_find_config() on the -p directories (default /dev): the pool is found by the
    # labels of the files there, active pools too (zdb's can_be_active); labsim reads it
    # when every leaf was found.
    dirs = [session.absolute(d) for d in directories or ["/dev"]]
    for found in find_pools(vdev_labels.scan_directories(session, dirs)):
        if found.name != name:
            continue
        pool = session.exported_pools.get(found.guid) or next(
            (p for p in session.pools.values() if p.guid == found.guid), None)
        if pool is None:
            continue
        view = import_config.try_import(pool, found,
                                        lambda path: vdev_labels.read_device(session, path))
        if all(outcome.aux is None for outcome in view.leaves.values()):
            return pool
    return None


def zdb_view(pool: Pool) -> fmt.ZdbPool:
    """What zdb reads from the pool's disks, in the formatter's terms."""
    vdevs = []
    for vdev in pool.vdevs:
        metaslabs = [
            fmt.ZdbMetaslab(
                id=i, start=ms.start, size=ms.size, sm_object=ms.sm_object,
                sm_alloc=ms.sm_alloc, sm_length=ms.sm_entries * 8,
                unflushed_txg=ms.unflushed_txg,
                fragmentation=ms.fragmentation(vdev.ashift, vdev.rules.frag_table),
                histogram=tuple(ms.histogram(vdev.ashift)), sm_shift=vdev.ashift)
            for i, ms in enumerate(vdev.metaslabs)
        ]
        vdevs.append(fmt.ZdbVdev(vdev.id, pool.space_maps.unflushed_phys.get(vdev.id, 0),
                                 metaslabs, vdev.ms_shift))
    logs = [fmt.ZdbLogSpaceMap(log.object, log.txg, log.entries * 16, log.alloc,
                               log.entries, log.entries) for log in pool.space_maps.logs]
    return fmt.ZdbPool(vdevs, logs, pool.version.zdb_prints_metaslab_shift)
