"""df for paths in ZFS datasets: what statfs(2) reports for a dataset (OpenZFS 2.3.9
module/os/linux/zfs/zfs_vfsops.c, zfs_statvfs) in GNU df's columns (coreutils 9.1 df.c).

zfs_statvfs counts in blocks of the dataset's recordsize (z_max_blksz): f_blocks is the
referenced bytes rounded up to a block plus the available bytes, f_bfree and f_bavail the
available bytes, both shifted down to blocks. df shows total, used (f_blocks - f_bfree) and
available in 1K blocks (or human-readable, rounding up), and Use% as used / (used +
available) rounded up. The host's own file systems are not modelled.
"""

from __future__ import annotations

import getopt
from typing import TYPE_CHECKING

from labsim.format import numbers as num
from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.gnu_options import option_error
from labsim.shell.registry import command
from labsim.zfs.pool import Dataset, Pool, property_value
from labsim.zfs.space import dataset_available, dataset_referenced

if TYPE_CHECKING:
    from labsim.shell.session import Session

# df.c's field table: header, minimum width, alignment (left or right).
_COLUMNS = {"source": ("Filesystem", 14, "<"), "fstype": ("Type", 4, "<"),
            "size": ("1K-blocks", 5, ">"), "used": ("Used", 5, ">"),
            "avail": ("Available", 5, ">"), "pcent": ("Use%", 4, ">"),
            "target": ("Mounted on", 0, "<")}
_HUMAN = num.HUMAN_AUTOSCALE | num.HUMAN_SI | num.HUMAN_BASE_1024


def _usage(message: str) -> UsageError:
    return UsageError(f"df: {message}\nTry 'df --help' for more information.", 1)


def statfs(pool: Pool, dataset: Dataset) -> tuple[int, int, int, int]:
    """(f_bsize, f_blocks, f_bfree, f_bavail) as zfs_statvfs() fills them."""
    bsize = int(str(property_value(pool, dataset, "recordsize")[0]))
    shift = bsize.bit_length() - 1
    referenced = -(-dataset_referenced(pool, dataset) // bsize) * bsize
    available = dataset_available(pool, dataset)
    return bsize, (referenced + available) >> shift, available >> shift, available >> shift


def _percent(used: int, available: int) -> str:
    total = used + available
    if not total:
        return "-"
    return f"{used * 100 // total + (used * 100 % total != 0)}%"


@command("df")
def df(session: Session, argv: list[str]) -> CommandResult:
    """df [-h|-k] [-T] [FILE]...: one line per operand, for files in datasets."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "hkT", ["human-readable", "print-type"])
    except getopt.GetoptError as err:
        raise option_error("df", err) from None
    flags = {k for k, _ in opts}
    human = bool(flags & {"-h", "--human-readable"})
    if not names:
        return CommandResult.fail(msg.tool_not_simulated(
            "df", "df without a file (the host's own file systems)")
            + "; or try df on a dataset's mountpoint (df -h /POOL)", 1)
    columns = ["source", *(["fstype"] if flags & {"-T", "--print-type"} else []),
               "size", "used", "avail", "pcent", "target"]
    headers = {name: _COLUMNS[name][0] for name in columns}
    if human:
        headers.update(size="Size", avail="Avail")
    rows: list[dict[str, str]] = []
    errors: list[str] = []
    for name in names:
        path = session.absolute(name)
        if not fs.exists(session, path):
            errors.append(f"df: {name}: No such file or directory\n")
            continue
        hit = fs.mounted_dataset(session, path)
        if hit is None:
            errors.append(msg.tool_not_simulated(
                "df", f"{name}, on the host's own file system,") + "\n")
            continue
        bsize, blocks, free, avail = statfs(hit.pool, hit.dataset)
        used = blocks - free

        def shown(count: int, bsize: int = bsize) -> str:
            if human:
                return num.human_readable(count, _HUMAN, bsize, 1)
            return num.human_readable(count, num.HUMAN_CEILING, bsize, 1024)

        rows.append({"source": hit.dataset.name, "fstype": "zfs", "size": shown(blocks),
                     "used": shown(used), "avail": shown(avail),
                     "pcent": _percent(used, avail), "target": "/" + hit.dataset.name})
    if not rows:
        return CommandResult(stderr="".join(errors), status=1)
    widths = {c: max(_COLUMNS[c][1], len(headers[c]), *(len(r[c]) for r in rows))
              for c in columns}
    lines = []
    for row in [headers, *rows]:
        cells = [row[c] if c == "target" else f"{row[c]:{_COLUMNS[c][2]}{widths[c]}}"
                 for c in columns]
        lines.append(" ".join(cells).rstrip() + "\n")
    return CommandResult(stdout="".join(lines), stderr="".join(errors),
                         status=1 if errors else 0)
