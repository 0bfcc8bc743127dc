"""zpool: create, add, list, status, iostat, get, destroy, sync, version, freeze, wait; and
the device commands scrub, clear, offline, online, attach (RAID-Z expansion from 2.3
included), detach, replace and remove (of log vdevs).

Option parsing follows zpool's getopt strings (GNU getopt, so options may follow
operands). This module reads the subcommand and hands the rest to it: create, add, remove,
destroy and freeze are in zpool_create, list, status, iostat and get in zpool_reports, the
device commands in zpool_devices, export and import in zpool_import, set in
zpool_properties; what they share is zpool_common.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import history_log
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zpool_import
from labsim.shell.commands import zpool_properties as pool_props
from labsim.shell.commands.zpool_common import (
    selected_pools,
    zpool_getopt,
)
from labsim.shell.commands.zpool_create import add, create, destroy, freeze, remove
from labsim.shell.commands.zpool_devices import (
    attach,
    clear,
    detach,
    offline,
    online,
    replace,
    scrub,
    wait,
)
from labsim.shell.commands.zpool_reports import get, iostat, list_pools, status
from labsim.shell.registry import command
from labsim.zfs.held_metadata import sync_held_metadata
from labsim.zfs.objset import txg_synced
from labsim.zfs.pool import TXG_DEFER_SIZE
from labsim.zfs.txg import advance_txg
from labsim.zfs.versions import (
    release_at_least,
    zpool_subcommands,
)

if TYPE_CHECKING:
    from labsim.shell.session import Session


@command("zpool")
def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zpool_missing_command(session.version), 2)
    sub = SUBCOMMANDS.get(argv[1])
    if sub is None and "=" in argv[1]:
        # main() (cmd/zpool/zpool_main.c): a first word with "=" is `zpool set` shorthand
        return pool_props.set_(session, argv[1:])
    if sub is None and argv[1] in zpool_subcommands(session.version):
        raise UsageError(msg.subcommand_not_simulated("zpool", argv[1],
                                                      session.version.release), 1)
    if sub is None:
        raise UsageError(msg.zpool_unrecognized_command(argv[1], session.version), 2)
    if argv[1] in JSON_SUBCOMMANDS and msg.asks_json(argv[2:], session.version):
        raise UsageError(msg.not_simulated(f"zpool {argv[1]}", "JSON output (-j)",
                                           session.version.release), 1)
    if argv[1] in POWER_SUBCOMMANDS and release_at_least(session.version, 2, 2) \
            and any(len(arg) > 3 and "--power".startswith(arg) for arg in argv[2:]):
        raise UsageError(msg.option_not_simulated(f"zpool {argv[1]}", "--power",
                                                  "enclosure slot power",
                                                  session.version.release), 1)
    exported = history_log.exported_pool(session, argv[1], argv[2:])
    result = sub(session, argv[2:])
    if result.status == 0:
        history_log.after_zpool(session, argv[1], argv[2:], exported)
    return result


# The zpool subcommands that print JSON with -j since 2.3.0 (cmd/zpool/zpool_main.c at
# zfs-2.3.9: zpool_do_list(), zpool_do_status(), zpool_do_get(), zpool_do_version()).
JSON_SUBCOMMANDS = ("list", "status", "get", "version")

# The subcommands with --power since 2.2.0 (getopt_long() in zpool_do_status(),
# zpool_do_online(), zpool_do_offline() and zpool_do_clear() at zfs-2.2.9 and zfs-2.3.9):
# the power of a device's enclosure slot, which labsim's file vdevs do not have.
POWER_SUBCOMMANDS = ("status", "online", "offline", "clear")


def sync(session: Session, args: list[str]) -> CommandResult:
    """zpool sync [-f]: each pool named (or every pool) syncs its open transaction group
    and the TXG_DEFER_SIZE after it (zfs_ioc_pool_sync() calls txg_wait_synced(dp, 0),
    which waits for tx_open_txg + TXG_DEFER_SIZE, module/zfs/txg.c in 2.1.11 and 2.3.9),
    so the frees of the open txg are back in the free space, and the metadata
    snapshots keep is allocated (labsim.zfs.held_metadata) (-f forces a txg when
    nothing is dirty, as labsim always does)."""
    _, names = zpool_getopt(args, "f", "sync", session.version)
    for pool in selected_pools(session, names):
        sync_held_metadata(pool)
        for _ in range(1 + TXG_DEFER_SIZE):
            advance_txg(pool)
        txg_synced(pool)
    return CommandResult()


def version(session: Session, args: list[str]) -> CommandResult:
    return CommandResult(stdout=msg.zpool_version(session.version.release,
                                                  session.version.package_release) + "\n")


# The subcommands labsim simulates (labsim.limits lists the others real zpool has).
SUBCOMMANDS = {
    "create": create, "add": add, "list": list_pools, "status": status,
    "destroy": destroy, "get": get, "sync": sync, "version": version,
    "scrub": scrub, "clear": clear, "offline": offline, "online": online,
    "attach": attach, "detach": detach, "replace": replace,
    "export": zpool_import.export, "import": zpool_import.import_,
    "remove": remove, "iostat": iostat, "freeze": freeze, "wait": wait,
    "set": pool_props.set_,
}
