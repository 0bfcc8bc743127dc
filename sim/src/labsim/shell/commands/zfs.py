"""zfs: create, list, get, set, inherit, destroy, and snapshot, clone, promote, rename and
rollback (the space they move is computed in labsim.zfs.snapshots). Which properties
labsim models, stores or answers with "not simulated" is decided, and explained, in
labsim.shell.commands.zfs_properties.

This module reads the subcommand and hands the rest to it: list and get are in zfs_reports,
create and set in zfs_create, the snapshot commands in zfs_snapshots, what they share in
zfs_common.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import history_log
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zfs_properties as props
from labsim.shell.commands.zfs_common import (
    ALIASES,
    READABLE,
    SETTABLE,
)
from labsim.shell.commands.zfs_create import create, set_property
from labsim.shell.commands.zfs_reports import get, list_datasets
from labsim.shell.commands.zfs_snapshots import (
    clone,
    destroy,
    promote,
    rename,
    rollback,
    snapshot,
)
from labsim.shell.registry import command
from labsim.zfs.mos import activate_feature
from labsim.zfs.versions import zfs_subcommands

if TYPE_CHECKING:
    from labsim.shell.session import Session


@command("zfs")
def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2:
        raise UsageError(msg.zfs_missing_command(session.version), 2)
    name = ALIAS_SUBCOMMANDS.get(argv[1], argv[1])
    sub = SUBCOMMANDS.get(name)
    if sub is None and "=" in name:
        # main() (cmd/zfs/zfs_main.c): a first word with "=" is `zfs set` shorthand
        return set_property(session, argv[1:])
    if sub is None and name in zfs_subcommands(session.version):
        raise UsageError(msg.subcommand_not_simulated("zfs", name,
                                                      session.version.release), 1)
    if sub is None:
        raise UsageError(msg.zfs_unrecognized_command(argv[1], session.version), 2)
    if name in JSON_SUBCOMMANDS and msg.asks_json(argv[2:], session.version):
        raise UsageError(msg.not_simulated(f"zfs {name}", "JSON output (-j)",
                                           session.version.release), 1)
    result = sub(session, argv[2:])
    if result.status == 0:
        _activate_compression_feature(session, name, argv[2:])
        history_log.after_zfs(session, name, argv[2:])
    return result


def _activate_compression_feature(session: Session, name: str, args: list[str]) -> None:
    """compression=zstd set on a dataset (by zfs set, or zfs create -o) activates
    zstd_compress on its dsl_dataset at once (dsl_dataset_set_compression_sync(),
    module/zfs/dsl_dataset.c in 2.1.11 and 2.3.9): an entry in its ZAP
    (labsim.zfs.mos.activate_feature)."""
    if name not in ("create", "set") or not args:
        return
    if not any(w.startswith("compression=zstd") for w in args):
        return
    target = args[-1]
    pool = session.pools.get(target.split("/")[0])
    if pool is not None and (dataset := pool.datasets.get(target)) is not None:
        activate_feature(pool, dataset.active_features, "zstd_compress", dataset.ds_blocks)


# The other names of subcommands (command_table[] in cmd/zfs/zfs_main.c: "snap",
# "recv", "umount").
ALIAS_SUBCOMMANDS = {"snap": "snapshot", "recv": "receive", "umount": "unmount"}
# The zfs subcommands that print JSON with -j since 2.3.0 (cmd/zfs/zfs_main.c at zfs-2.3.9).
JSON_SUBCOMMANDS = ("list", "get", "version", "mount")


def version(session: Session, args: list[str]) -> CommandResult:
    """zfs version: the same two lines as `zpool version` (zfs_version_print() in
    lib/libzfs/libzfs_util.c, shared by both commands)."""
    return CommandResult(stdout=msg.zpool_version(session.version.release,
                                                  session.version.package_release) + "\n")


# The subcommands labsim simulates (labsim.limits lists the others real zfs has).
SUBCOMMANDS = {"list": list_datasets, "get": get, "set": set_property, "create": create,
               "destroy": destroy, "snapshot": snapshot, "snap": snapshot, "clone": clone,
               "promote": promote, "rollback": rollback, "rename": rename,
               "version": version,
               "inherit": lambda session, args: props.inherit(
                   session, args, modelled=SETTABLE, readable=READABLE, aliases=ALIASES)}
