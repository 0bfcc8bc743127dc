"""``zpool status`` output, as OpenZFS 2.1 prints it (LANG=C, no colour).

Follows cmd/zpool/zpool_main.c: ``status_callback()`` (the pool:/state:/status:/
action:/see: header, ``config:``, the NAME STATE READ WRITE CKSUM table and the
``errors:`` line), ``print_status_config()`` (one row per vdev),
``print_class_vdevs()``, ``print_l2cache()``, ``print_spares()``, ``max_width()``
(the NAME column) and ``print_scan_status()`` (the ``scan:`` line, which is printed
only once a scrub or resilver has run).

Layout, byte for byte::

    "  pool: tank\\n"
    " state: ONLINE\\n"
    "config:\\n\\n"
    "\\tNAME        STATE     READ WRITE CKSUM\\n"     # "\\t%-*s  %-8s %5s %5s %5s"
    "\\ttank        ONLINE       0     0     0\\n"     # "\\t%*s%-*s  %-8s" + " %5s %5s %5s"
    "\\t  mirror-0  ONLINE       0     0     0\\n"
    "\\n"
    "errors: No known data errors\\n"

The NAME column is as wide as the widest indented vdev name, and at least 10.  The
pool's own name does not count (``max_width()`` measures the root vdev, "root-0"),
so a pool name longer than that pushes its row out of line, as on a real system.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from labsim.format import numbers as num

__all__ = [
    "PoolStatus",
    "VdevStatus",
    "REASONS",
    "expand_finished",
    "expand_in_progress",
    "format_zpool_status",
    "scan_resilver_finished",
    "scan_scrub_finished",
    "scan_scrub_in_progress",
    "status_namewidth",
]


def _tuple(value: Sequence[VdevStatus] | None) -> tuple[VdevStatus, ...]:
    return tuple(value or ())


@dataclass(frozen=True)
class VdevStatus:
    """One row of the config table.  ``note`` is what follows the counters, e.g.
    "was /var/tmp/d.img" or "cannot open" (print_status_config's vs_aux texts),
    printed after two spaces."""

    name: str
    state: str = "ONLINE"
    read: int = 0
    write: int = 0
    cksum: int = 0
    children: tuple[VdevStatus, ...] = ()
    note: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", _tuple(self.children))


@dataclass(frozen=True)
class PoolStatus:
    """Everything ``status_callback()`` prints for one pool.

    ``status``/``action`` are the texts after "status: " / "action: " (use
    :data:`REASONS`), ``see`` a message id such as "ZFS-8000-9P", ``scan`` the text
    after "  scan: " including its final newline (see :func:`scan_scrub_finished`);
    leave it None until a scrub or resilver has happened.  ``read``/``write``/
    ``cksum`` are the pool (root vdev) counters.  ``errors`` is the persistent
    error count of the pool.
    """

    name: str
    state: str = "ONLINE"
    vdevs: tuple[VdevStatus, ...] = ()
    status: str | None = None
    action: str | None = None
    see: str | None = None
    scan: str | None = None
    read: int = 0
    write: int = 0
    cksum: int = 0
    errors: int = 0
    dedup_vdevs: tuple[VdevStatus, ...] = ()
    special: tuple[VdevStatus, ...] = ()
    logs: tuple[VdevStatus, ...] = ()
    cache: tuple[VdevStatus, ...] = ()
    spares: tuple[VdevStatus, ...] = ()
    # With -v: the paths print_error_log() lists for the pool's error log (None without
    # -v, when only the count is printed).
    error_files: tuple[str, ...] | None = None
    # The text after "expand: " (print_raidz_expand_status(), OpenZFS 2.3), including its
    # final newline: see expand_in_progress() and expand_finished(); None without one.
    expand: str | None = None

    def __post_init__(self) -> None:
        for name in ("vdevs", "dedup_vdevs", "special", "logs", "cache", "spares"):
            object.__setattr__(self, name, _tuple(getattr(self, name)))


# status_callback(): (status, action, see) for the reasons a lesson can produce.
# "\n\t" is how the C strings continue a paragraph.
REASONS: dict[str, tuple[str, str, str | None]] = {
    "missing_dev_r": (
        "One or more devices could not be opened.  Sufficient replicas exist for\n"
        "\tthe pool to continue functioning in a degraded state.",
        "Attach the missing device and online it using 'zpool online'.",
        "ZFS-8000-2Q",
    ),
    # ZPOOL_STATUS_CORRUPT_LABEL_R: a device found at import without a good label.
    "corrupt_label_r": (
        "One or more devices could not be used because the label is missing or\n"
        "\tinvalid.  Sufficient replicas exist for the pool to continue\n"
        "\tfunctioning in a degraded state.",
        "Replace the device using 'zpool replace'.",
        "ZFS-8000-4J",
    ),
    "offline_dev": (
        "One or more devices has been taken offline by the administrator.\n"
        "\tSufficient replicas exist for the pool to continue functioning in a\n"
        "\tdegraded state.",
        "Online the device using 'zpool online' or replace the device with\n"
        "\t'zpool replace'.",
        None,
    ),
    "resilvering": (
        "One or more devices is currently being resilvered.  The pool will\n"
        "\tcontinue to function, possibly in a degraded state.",
        "Wait for the resilver to complete.",
        None,
    ),
    "faulted_dev_r": (
        "One or more devices are faulted in response to persistent errors.\n"
        "\tSufficient replicas exist for the pool to continue functioning in a\n"
        "\tdegraded state.",
        "Replace the faulted device, or use 'zpool clear' to mark the device\n"
        "\trepaired.",
        None,
    ),
    # ZPOOL_STATUS_CORRUPT_DATA: blocks no copy of which could be read.
    "corrupt_data": (
        "One or more devices has experienced an error resulting in data\n"
        "\tcorruption.  Applications may be affected.",
        "Restore the file in question if possible.  Otherwise restore the\n"
        "\tentire pool from backup.",
        "ZFS-8000-8A",
    ),
    "failing_dev": (
        "One or more devices has experienced an unrecoverable error.  An\n"
        "\tattempt was made to correct the error.  Applications are unaffected.",
        "Determine if the device needs to be replaced, and clear the errors\n"
        "\tusing 'zpool clear' or replace the device with 'zpool replace'.",
        "ZFS-8000-9P",
    ),
}


def _ctime(when: float) -> str:
    # ctime(3) in UTC: "Tue Nov 22 03:50:00 2022\n" (day of month space-padded)
    t = time.gmtime(when)
    return time.strftime("%a %b ", t) + f"{t.tm_mday:2d}" + time.strftime(" %H:%M:%S %Y\n", t)


def scan_scrub_finished(repaired: int, seconds: int, errors: int, end: float) -> str:
    """``print_scan_status()`` for a finished scrub: the text after "  scan: ",
    "scrub repaired 0B in 00:00:01 with 0 errors on Tue Nov 22 03:50:00 2022\\n"."""
    return (f"scrub repaired {num.nicebytes(repaired)} in {num.secs_to_dhms(seconds)} "
            f"with {errors} errors on {_ctime(end)}")


def scan_resilver_finished(resilvered: int, seconds: int, errors: int, end: float) -> str:
    """``print_scan_status()`` for a finished resilver: "resilvered 1.50M in
    00:00:01 with 0 errors on ...\\n"."""
    return (f"resilvered {num.nicebytes(resilvered)} in {num.secs_to_dhms(seconds)} "
            f"with {errors} errors on {_ctime(end)}")


def scan_scrub_in_progress(start: float, examined: int, to_examine: int, issued: int,
                           skipped: int, repaired: int, scan_rate: int = 0,
                           issue_rate: int = 0) -> str:
    """``print_scan_scrub_resilver_status()`` (OpenZFS 2.2 and later) for a scrub in
    progress, not paused: three lines, the text after "  scan: ". A rate of 0 is left
    out, as zpool does (the pass counters are reset when a sorted scrub's walk ends)."""
    total_i = to_examine - skipped
    line = f"\t{num.nicebytes(examined)} / {num.nicebytes(to_examine)} scanned"
    if scan_rate > 0:
        line += f" at {num.nicebytes(scan_rate)}/s"
    line += f", {num.nicebytes(issued)} / {num.nicebytes(total_i)} issued"
    if issue_rate > 0:
        line += f" at {num.nicebytes(issue_rate)}/s"
    done = 100 * issued / total_i if total_i else 0.0
    # An estimate needs an issue rate of at least 10M/s and something issued already.
    if total_i >= issued and issue_rate >= 10 << 20 and issued > 0:
        eta = f", {num.secs_to_dhms((total_i - issued) // issue_rate)} to go\n"
    else:
        eta = ", no estimated completion time\n"
    return (f"scrub in progress since {_ctime(start)}{line}\n"
            f"\t{num.nicebytes(repaired)} repaired, {done:.2f}% done{eta}")


def expand_in_progress(vdev: str, start: float, reflowed: int, to_reflow: int,
                       now: float, waiting_for_resilver: bool = False) -> str:
    """``print_raidz_expand_status()`` (cmd/zpool/zpool_main.c, OpenZFS 2.3) while a
    RAID-Z expansion runs: the text after "expand: ", "expansion of raidz1-0 in progress
    since <date>" and the progress line. Nothing copied yet counts as 1 byte, and the
    rate is at least 1/s, as zpool computes them; no estimate past 30 days."""
    copied = reflowed if reflowed > 0 else 1
    elapsed = max(int(now - start), 1)
    rate = copied // elapsed or 1
    secs_left = (to_reflow - copied) // rate
    line = (f"\t{num.nicenum(copied)} / {num.nicenum(to_reflow)} copied at "
            f"{num.nicenum(rate)}/s, {100 * copied / to_reflow:.2f}% done")
    if waiting_for_resilver:
        line += ", paused for resilver or clear\n"
    elif secs_left < 30 * 24 * 3600:
        line += f", {num.secs_to_dhms(secs_left)} to go\n"
    else:
        line += ", (copy is slow, no estimated time)\n"
    return f"expansion of {vdev} in progress since {_ctime(start)}{line}"


def expand_finished(vdev: str, reflowed: int, start: float, end: float) -> str:
    """``print_raidz_expand_status()`` once done: "expanded raidz1-0 copied 59.8M in
    00:00:03, on <date>" (zfs_nicenum, without a "B")."""
    return (f"expanded {vdev} copied {num.nicenum(reflowed)} in "
            f"{num.secs_to_dhms(int(end - start))}, on {_ctime(end)}")


def _max_width(vdev: VdevStatus, depth: int) -> int:
    return max([len(vdev.name) + depth, *(_max_width(c, depth + 2) for c in vdev.children)])


def status_namewidth(pool: PoolStatus) -> int:
    """``max_width(zhp, nvroot, 0, 0, flags | VDEV_NAME_TYPE_ID)``, at least 10.

    The root vdev is named "root-0" (6 characters), not after the pool."""
    width = len("root-0")
    for group in (pool.vdevs, pool.dedup_vdevs, pool.special, pool.logs, pool.cache,
                  pool.spares):
        for vdev in group:
            width = max(width, _max_width(vdev, 2))
    return max(width, 10)  # "if (cbp->cb_namewidth < 10) cbp->cb_namewidth = 10"


def _counter(value: int, parsable: bool) -> str:
    # zfs_nicenum() into a 6-byte buffer, or "%5llu" with -p; both " %5s"
    return f" {value:5d}" if parsable else f" {num.nicenum(value):>5}"


def _row(name: str, state: str, depth: int, width: int, counters: tuple[int, int, int] | None,
         note: str | None, parsable: bool) -> str:
    # print_status_config(): "\t%*s%-*s  %-8s", then " %5s %5s %5s" unless a spare
    line = "\t" + " " * depth + name.ljust(width - depth) + "  " + state.ljust(8)
    if counters is not None:
        line += "".join(_counter(v, parsable) for v in counters)
    if note:
        line += "  " + note
    return line + "\n"


def _tree(vdev: VdevStatus, depth: int, width: int, parsable: bool, spare: bool = False) -> str:
    counters = None if spare else (vdev.read, vdev.write, vdev.cksum)
    text = _row(vdev.name, vdev.state, depth, width, counters, vdev.note, parsable)
    for child in vdev.children:
        text += _tree(child, depth + 2, width, parsable)
    return text


def _one(pool: PoolStatus, parsable: bool) -> str:
    text = f"  pool: {pool.name}\n state: {pool.state}\n"
    if pool.status is not None:
        text += f"status: {pool.status}\n"
    if pool.action is not None:
        text += f"action: {pool.action}\n"
    if pool.see is not None:
        text += f"   see: https://openzfs.github.io/openzfs-docs/msg/{pool.see}\n"
    if pool.scan is not None:
        text += f"  scan: {pool.scan}"
    # print_raidz_expand_status(), after the scan, removal and checkpoint lines;
    # printf_color(ANSI_BOLD, "expand: ") has no leading spaces.
    if pool.expand is not None:
        text += f"expand: {pool.expand}"
    width = status_namewidth(pool)
    text += "config:\n\n"
    text += f"\t{'NAME'.ljust(width)}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}\n"
    text += _row(pool.name, pool.state, 0, width, (pool.read, pool.write, pool.cksum), None,
                 parsable)
    for vdev in pool.vdevs:
        text += _tree(vdev, 2, width, parsable)
    # print_class_vdevs(): heading "\t%s\t\n" (note the trailing tab), members at
    # depth 2; cache and spares headings below have no trailing tab.
    for heading, group in (("dedup", pool.dedup_vdevs), ("special", pool.special),
                           ("logs", pool.logs)):
        if group:
            text += f"\t{heading}\t\n"
            for vdev in group:
                text += _tree(vdev, 2, width, parsable)
    if pool.cache:
        text += "\tcache\n"  # print_l2cache()
        for vdev in pool.cache:
            text += _tree(vdev, 2, width, parsable)
    if pool.spares:
        text += "\tspares\n"  # print_spares(): no counters for spares
        for vdev in pool.spares:
            text += _tree(vdev, 2, width, parsable, spare=True)
    text += "\n"
    if pool.errors == 0:
        text += "errors: No known data errors\n"
    elif pool.error_files is not None:
        # print_error_log(): a heading, a blank line, then "%7s %s\n" per file
        text += "errors: Permanent errors have been detected in the following files:\n\n"
        text += "".join(f"{'':7} {path}\n" for path in pool.error_files)
    else:
        text += f"errors: {pool.errors} data errors, use '-v' for a list\n"
    return text


def format_zpool_status(pools: PoolStatus | Sequence[PoolStatus], *,
                        parsable: bool = False) -> str:
    """What ``zpool status [-p] [pool ...]`` prints on stdout for healthy (or
    described) pools.  Several pools are separated by one empty line.  With no
    pools the caller prints ``no pools available`` on stderr instead
    (:func:`labsim.shell.messages.status_no_pools`)."""
    if isinstance(pools, PoolStatus):
        pools = [pools]
    return "\n".join(_one(pool, parsable) for pool in pools)
