"""What the zpool subcommands (labsim.shell.commands.zpool) share: zpool's getopt, the
options a later release added or labsim does not reproduce, and finding the pools named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell.base import UsageError, parse_options
from labsim.zfs.pool import Pool
from labsim.zfs.versions import (
    ZfsVersion,
    release_at_least,
)

if TYPE_CHECKING:
    from labsim.shell.session import Session


def zpool_getopt(args: list[str], optstring: str, subcommand: str, version: ZfsVersion):
    return parse_options(args, optstring, missing_argument=msg.zpool_missing_argument,
                         invalid_option=msg.zpool_invalid_option,
                         usage=msg.zpool_subcommand_usage(subcommand, version))


# Options later releases added to subcommands labsim simulates, read in the getopt strings
# of cmd/zpool/zpool_main.c at zfs-2.2.0 and zfs-2.3.9: (release, what it does). In those
# releases they get the notice; an older release refuses them as invalid options.
ADDED_OPTIONS = {
    "status": {"d": ((2, 3), "Direct I/O checksum errors"),
               "e": ((2, 3), "only unhealthy vdevs")},
    "scrub": {"e": ((2, 2), "error scrub"),
              "C": ((2, 3), "continuing from the last scrubbed txg")},
}


# Options of subcommands labsim simulates that change what the real tool prints in ways
# labsim does not reproduce (zpool-status.8, zpool-list.8, zpool-iostat.8 at 2.3.9): the
# notice, rather than the plain output as if they were not given.
UNSIMULATED_OPTIONS = {
    "status": {"-D": "the dedup table histogram", "-i": "initialization status",
               "-g": "vdev guids for names", "-p": "exact numbers", "-s": "slow I/O counts",
               "-t": "TRIM status", "-c": "script columns", "-T": "a timestamp"},
    "list": {"-g": "vdev guids for names", "-T": "a timestamp"},
    "iostat": {"-c": "script columns", "-g": "vdev guids for names", "-T": "a timestamp",
               "-y": "leaving out the report since import", "-l": "latency columns",
               "-q": "queue columns", "-r": "request size histograms",
               "-w": "latency histograms"},
}


def refuse_unsimulated_options(subcommand: str, opts: list[tuple[str, str]],
                                version: ZfsVersion) -> None:
    for flag, _ in opts:
        what = UNSIMULATED_OPTIONS[subcommand].get(flag)
        if what is not None:
            raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", flag, what,
                                                      version.release), 1)


def added_options(subcommand: str, version: ZfsVersion) -> str:
    return "".join(letter for letter, ((major, minor), _) in ADDED_OPTIONS[subcommand].items()
                   if release_at_least(version, major, minor))


def refuse_added_options(subcommand: str, opts: list[tuple[str, str]],
                          version: ZfsVersion) -> None:
    for flag, _ in opts:
        added = ADDED_OPTIONS[subcommand].get(flag.lstrip("-"))
        if added is not None:
            raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", flag, added[1],
                                                      version.release), 1)


def pool_named(session: Session, name: str) -> Pool:
    pool = session.pools.get(name)
    if pool is None:
        raise UsageError(msg.no_such_pool(name), 1)
    return pool


def selected_pools(session: Session, names: list[str]) -> list[Pool]:
    missing = [n for n in names if n not in session.pools]
    if missing:
        raise UsageError(msg.no_such_pool(missing[0]), 1)
    return [session.pools[n] for n in names] if names else list(session.pools.values())
