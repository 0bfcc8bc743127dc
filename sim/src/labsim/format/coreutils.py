"""What GNU coreutils 9.1 prints for dd, ls, truncate and rm (LANG=C).

In the C locale ``quote()``/``quoteaf()`` (gnulib lib/quotearg.c) wrap a file name
in ASCII apostrophes: 'disk1.img'.  Names that need shell escaping (spaces,
quotes) are not handled; the lessons do not use them.

Sources:

* dd: src/dd.c ``print_stats()`` ("N+M records in/out") and
  ``print_xfer_stats()`` (bytes, the two human sizes, "%g s", the rate); write
  errors come from ``write_output()`` via ``die(..., _("error writing %s"), ...)``.
* ls: src/ls.c ``print_long_format()``, ``print_many_per_line()``/``indent()``
  (``-C`` columns, tab stops every 8) and the six-month rule for dates.
* truncate: src/truncate.c; its size parser is ``xdectoimax(..., _("Invalid
  number"))`` so a bad size reads "truncate: Invalid number: '5X'".
* rm: src/remove.c "cannot remove %s".
* getopt: glibc posix/getopt.c messages.

Unlike :mod:`labsim.shell.messages`, the error texts here end with their newline
(dd prints its error and then its summary; several errors are concatenated), except
``getopt_message()``, which is a fragment.
"""

from __future__ import annotations

import getopt
import time
from collections.abc import Sequence
from dataclasses import dataclass

from labsim.format import numbers as num

__all__ = [
    "LsEntry",
    "dd_bytes_line",
    "dd_records",
    "dd_summary",
    "dd_write_error",
    "getopt_message",
    "ls_block_count",
    "ls_cannot_access",
    "ls_date",
    "ls_lines",
    "ls_long",
    "ls_size",
    "open_for_writing_failed",
    "rm_cannot_remove",
    "truncate_invalid_number",
]

ENOSPC = "No space left on device"
ENOENT = "No such file or directory"


# ---------------------------------------------------------------------------
# dd
# ---------------------------------------------------------------------------

def dd_records(in_full: int, in_partial: int, out_full: int, out_partial: int,
               truncated: int = 0) -> str:
    """print_stats(): "%jd+%jd records in\\n%jd+%jd records out\\n" and, when
    conv=sync/block cut records, "%jd truncated record(s)\\n"."""
    text = f"{in_full}+{in_partial} records in\n{out_full}+{out_partial} records out\n"
    if truncated:
        text += f"{truncated} truncated record{'' if truncated == 1 else 's'}\n"
    return text


def _lacks_prefix(human: str) -> bool:
    # dd.c abbreviation_lacks_prefix(): "512 B" has no SI/IEC prefix
    return human[-2] == " "


def dd_bytes_line(n_bytes: int, elapsed: float) -> str:
    """print_xfer_stats(): the final line of dd's summary.

    ``elapsed`` is in seconds (converted to whole nanoseconds, dd's xtime_t).
    Three shapes, chosen by whether the sizes carry a prefix::

        512 bytes copied, 0.00054 s, 948 kB/s
        1000 bytes (1.0 kB) copied, 0.000123 s, 8.1 MB/s
        67108864 bytes (67 MB, 64 MiB) copied, 0.0745 s, 901 MB/s

    The seconds use "%g" (six significant digits); the rate is
    human_readable(bytes, ..., 10**9, nanoseconds) + "/s".
    """
    elapsed_ns = max(0, round(elapsed * 1e9))
    si = num.human_si_bytes(n_bytes)
    iec = num.human_iec_bytes(n_bytes)
    rate = num.dd_rate(n_bytes, elapsed_ns)
    seconds = f"{elapsed_ns / 1e9:g} s"
    if _lacks_prefix(si):
        noun = "byte" if n_bytes == 1 else "bytes"  # ngettext(select_plural(w_bytes))
        return f"{n_bytes} {noun} copied, {seconds}, {rate}\n"
    if _lacks_prefix(iec):
        return f"{n_bytes} bytes ({si}) copied, {seconds}, {rate}\n"
    return f"{n_bytes} bytes ({si}, {iec}) copied, {seconds}, {rate}\n"


def dd_summary(in_full: int, in_partial: int, out_full: int, out_partial: int,
               n_bytes: int, elapsed: float) -> str:
    """The whole status report dd writes to stderr when it finishes (or dies)."""
    return dd_records(in_full, in_partial, out_full, out_partial) + dd_bytes_line(n_bytes,
                                                                                elapsed)


def dd_write_error(target: str, reason: str = ENOSPC) -> str:
    """"dd: error writing 'FILE': No space left on device" -- printed before the
    summary; dd then exits 1."""
    return f"dd: error writing '{target}': {reason}\n"


# ---------------------------------------------------------------------------
# ls
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class LsEntry:
    """What ``ls -l`` needs from stat(2).  ``allocated`` is the space actually
    used (st_blocks * 512); a fresh ``truncate -s`` file has 0; None where labsim does not
    know it (the caller says so, and shows 0)."""

    name: str
    size: int
    allocated: int | None = 0
    mtime: float = 0.0
    mode: str = "-rw-r--r--"
    nlink: int = 1
    owner: str = "root"
    group: str = "root"

    @property
    def blocks(self) -> int:
        return -(-(self.allocated or 0) // 512)  # st_blocks, 512-byte units


# What `ls` is given about each entry: an LsEntry, or (name, size, allocated, mtime).
LsItem = LsEntry | tuple[str, int, int, float]


def _entry(item: LsItem) -> LsEntry:
    if isinstance(item, LsEntry):
        return item
    name, size, allocated, mtime = item
    return LsEntry(str(name), int(size), int(allocated), float(mtime))


# A Gregorian year has 31556952 seconds; "recent" means the last six months.
_SIX_MONTHS = 31556952 // 2


def ls_date(mtime: float, now: float) -> str:
    """"Nov 22 03:50" for files modified in the last six months (and not in the
    future), else "Nov 22  2021": long_time_format[] "%b %e %H:%M" / "%b %e  %Y",
    here in UTC."""
    t = time.gmtime(mtime)
    day = f"{t.tm_mday:2d}"
    if now - _SIX_MONTHS < mtime <= now:
        return time.strftime("%b ", t) + day + time.strftime(" %H:%M", t)
    return time.strftime("%b ", t) + day + time.strftime("  %Y", t)


# ls -h: human_autoscale | human_SI | human_base_1024, rounding up
_LS_HUMAN = num.HUMAN_AUTOSCALE | num.HUMAN_SI | num.HUMAN_BASE_1024


def ls_size(size: int, human: bool = False) -> str:
    """The size column: bytes, or "1.0G"/"64M"/"512" with -h (rounded up)."""
    return num.human_readable(size, _LS_HUMAN) if human else str(size)


def ls_total(entries: Sequence[LsEntry], human: bool = False) -> str:
    """"total N": the st_blocks of the listed files in 1024-byte units, rounded up
    (or human-readable bytes with -h)."""
    blocks = sum(e.blocks for e in entries)
    if human:
        return "total " + num.human_readable(blocks, _LS_HUMAN, 512, 1) + "\n"
    return "total " + num.human_readable(blocks, num.HUMAN_CEILING, 512, 1024) + "\n"


def ls_long(entries: Sequence[LsItem], *, now: float,
            human: bool = False) -> str:
    """``ls -l`` lines: "%s %*s %-*s %-*s %*s %s %s" -- mode, links, owner, group,
    size, date, name -- with each column as wide as its widest entry."""
    items = [_entry(e) for e in entries]
    if not items:
        return ""
    sizes = [ls_size(e.size, human) for e in items]
    w_link = max(len(str(e.nlink)) for e in items)
    w_owner = max(len(e.owner) for e in items)
    w_group = max(len(e.group) for e in items)
    w_size = max(len(s) for s in sizes)
    return "".join(
        f"{e.mode} {e.nlink:>{w_link}} {e.owner:<{w_owner}} {e.group:<{w_group}} "
        f"{s:>{w_size}} {ls_date(e.mtime, now)} {e.name}\n"
        for e, s in zip(items, sizes, strict=True))


def _indent(start: int, stop: int, tabsize: int = 8) -> str:
    # ls.c indent(): tabs to each tab stop that fits, then spaces
    out = []
    while start < stop:
        if tabsize and stop // tabsize > (start + 1) // tabsize:
            out.append("\t")
            start += tabsize - start % tabsize
        else:
            out.append(" ")
            start += 1
    return "".join(out)


_MIN_COLUMN_WIDTH = 3  # ls.c: "only 1 character for the file name and 2 separators"
LS_WIDTH = 80  # the terminal's columns
ONE_PER_LINE = 0  # ls_lines(width=ONE_PER_LINE): ls -1, and ls into a pipe or a file


def ls_columns(names: Sequence[str], width: int = 80) -> str:
    """``ls -C`` (the default on a terminal), as ls.c ``calculate_columns(true)``
    and ``print_many_per_line()`` lay it out: names run down the columns; every
    column is as wide as its longest name plus 2 (the last possible column
    without the 2, each at least 3), the widest layout whose line stays shorter
    than ``width`` wins, and ``indent()`` pads with tabs (stops every 8) and
    spaces."""
    n = len(names)
    if n == 0:
        return ""
    max_idx = max(1, width // _MIN_COLUMN_WIDTH)
    max_cols = max_idx if 0 < max_idx < n else n
    layouts = []
    for i in range(max_cols):
        cols = [_MIN_COLUMN_WIDTH] * (i + 1)
        line_len = (i + 1) * _MIN_COLUMN_WIDTH
        valid = True
        per_col = (n + i) // (i + 1)
        for filesno, name in enumerate(names):
            if not valid:
                break
            idx = filesno // per_col
            real = len(name) + (0 if idx == i else 2)
            if cols[idx] < real:
                line_len += real - cols[idx]
                cols[idx] = real
                valid = line_len < width
        layouts.append((valid, cols))
    ncols = max_cols
    while ncols > 1 and not layouts[ncols - 1][0]:
        ncols -= 1
    col_width = layouts[ncols - 1][1]
    rows = n // ncols + (n % ncols != 0)
    out = []
    for row in range(rows):
        filesno, col, pos = row, 0, 0
        while True:
            name = names[filesno]
            max_len = col_width[col]
            col += 1
            out.append(name)
            filesno += rows
            if filesno >= n:
                break
            out.append(_indent(pos + len(name), pos + max_len))
            pos += max_len
        out.append("\n")
    return "".join(out)


def ls_block_count(entry: LsEntry, human: bool = False) -> str:
    """The ``-s`` column: st_blocks in 1024-byte units, rounded up (ls's default
    output_block_size), or human-readable bytes with -h."""
    if human:
        return num.human_readable(entry.blocks, _LS_HUMAN, 512, 1)
    return num.human_readable(entry.blocks, num.HUMAN_CEILING, 512, 1024)


def ls_lines(entries: Sequence[LsItem], *, long: bool = False,
             human: bool = False, now: float = 0.0, total: bool = False,
             width: int = 80, blocks: bool = False) -> str:
    """``ls`` output for one directory listing or for the file operands.

    ``total`` prints the "total N" line ``ls -l`` (or ``-s``) shows for a directory.
    ``blocks`` (``-s``) puts each entry's allocated size first, right-aligned to the
    widest in the listing ("%*s ", print_long_format() / print_file_name_and_frills()).
    Without ``long`` the names are laid out in columns ``width`` wide as on a terminal,
    or one a line with ``width=ONE_PER_LINE``."""
    items = [_entry(e) for e in entries]
    head = ls_total(items, human) if total else ""
    counts = [ls_block_count(e, human) for e in items]
    w_blocks = max((len(c) for c in counts), default=0)
    if long:
        lines = ls_long(items, now=now, human=human).splitlines(keepends=True)
        if blocks:
            lines = [f"{c:>{w_blocks}} {line}" for c, line in zip(counts, lines, strict=True)]
        return head + "".join(lines)
    names = [f"{c:>{w_blocks}} {e.name}" for c, e in zip(counts, items, strict=True)] \
        if blocks else [e.name for e in items]
    if width == ONE_PER_LINE:
        return head + "".join(f"{name}\n" for name in names)
    return head + ls_columns(names, width)


def ls_cannot_access(name: str, reason: str = ENOENT) -> str:
    """"ls: cannot access 'x': No such file or directory" (exit status 2)."""
    return f"ls: cannot access '{name}': {reason}\n"


# ---------------------------------------------------------------------------
# truncate, rm, getopt
# ---------------------------------------------------------------------------

def truncate_invalid_number(size_arg: str, overflow: bool = False) -> str:
    """xdectoimax() failure in truncate -s: "truncate: Invalid number: '5X'"
    (capital I: the message is truncate's own), with ": Value too large for
    defined data type" appended on overflow.  Exit status 1."""
    tail = ": Value too large for defined data type" if overflow else ""
    return f"truncate: Invalid number: '{size_arg}'{tail}\n"


def open_for_writing_failed(tool: str, name: str, reason: str = ENOENT) -> str:
    """"truncate: cannot open 'x' for writing: No such file or directory"."""
    return f"{tool}: cannot open '{name}' for writing: {reason}\n"


def rm_cannot_remove(name: str, reason: str = ENOENT) -> str:
    """"rm: cannot remove 'x': No such file or directory" (exit status 1); with
    reason "Is a directory" for a directory without -r."""
    return f"rm: cannot remove '{name}': {reason}\n"


def getopt_message(err: getopt.GetoptError) -> str:
    """glibc getopt's complaint for a Python ``getopt.GetoptError`` (without the
    "prog: " prefix and without "Try 'prog --help'...")::

        invalid option -- 'x'
        unrecognized option '--foo'
        option requires an argument -- 's'
        option '--size' requires an argument
        option '--force' doesn't allow an argument
    """
    opt = err.opt or ""
    long = len(opt) > 1
    if "requires argument" in err.msg:
        return f"option '--{opt}' requires an argument" if long \
            else f"option requires an argument -- '{opt}'"
    if "must not have an argument" in err.msg:
        return f"option '--{opt}' doesn't allow an argument"
    if "not a unique prefix" in err.msg:
        return f"option '--{opt}' is ambiguous"
    return f"unrecognized option '--{opt}'" if long else f"invalid option -- '{opt}'"

