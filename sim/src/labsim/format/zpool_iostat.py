"""What ``zpool iostat [-v] [-p] [-H]`` prints: one report of a pool's capacity and its
average operations and bandwidth per second since the pool was imported
(print_iostat_header(), print_vdev_stats() and print_one_stat() in
cmd/zpool/zpool_main.c, OpenZFS 2.1).

Layout: a two-line header with the group titles "capacity", "operations" and
"bandwidth" centred over their columns, a dashed rule, the pool's line, with -v each
vdev indented two spaces per level and log vdevs under a "logs" line whose figures are
all "-", and a closing rule. Columns are 5 wide with 2 spaces between them; numbers go
through zfs_nicenum() (labsim.format.numbers) or, with -p, print exactly. -H drops the
header and rules and separates fields with tabs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.format.numbers import nicenum

COLUMN = 5


@dataclass(frozen=True)
class IostatRow:
    name: str
    alloc: int | None
    free: int | None
    read_ops: float
    write_ops: float
    read_bytes: float
    write_bytes: float
    children: list[IostatRow] = field(default_factory=list)
    logs: list[IostatRow] = field(default_factory=list)


def _number(value: float | None, parsable: bool) -> str:
    if value is None:
        return "-"
    value = int(value)
    return str(value) if parsable else nicenum(value)


def _lines(row: IostatRow, depth: int) -> list[tuple[str, IostatRow | None]]:
    out: list[tuple[str, IostatRow | None]] = [(" " * depth + row.name, row)]
    for child in row.children:
        out.extend(_lines(child, depth + 2))
    if row.logs:
        out.append(("logs", None))
        for log in row.logs:
            out.extend(_lines(log, depth + 2))
    return out


def _labels(width: int, column: int) -> str:
    """print_iostat_labels(): each group title placed over its two columns, starting
    rw/2 - len/2 spaces in (integer division), padded to the groups' full width."""
    text = " " * width
    group = 2 * column + 2
    for title in ("capacity", "operations", "bandwidth"):
        start = max(0, group // 2 - len(title) // 2)
        text += "  " + " " * start + title + " " * max(0, group - start - len(title))
    return text + "\n"


def format_zpool_iostat(rows: list[IostatRow], *, verbose: bool = False,
                        parsable: bool = False, scripted: bool = False) -> str:
    lines: list[tuple[str, IostatRow | None]] = []
    for row in rows:
        lines.extend(_lines(row, 0) if verbose else [(row.name, row)])
    # The name column fits the longest name, indentation included; -p widens every
    # number column to 15 (default_column_width()).
    width = max([len("pool")] + [len(name) for name, _ in lines])
    column = 15 if parsable else COLUMN
    rule = "-" * width + "".join("  " + "-" * column for _ in range(6))

    def fields(row: IostatRow | None) -> list[str]:
        if row is None:
            return ["-"] * 6
        return [_number(row.alloc, parsable), _number(row.free, parsable),
                _number(row.read_ops, parsable), _number(row.write_ops, parsable),
                _number(row.read_bytes, parsable), _number(row.write_bytes, parsable)]

    text = ""
    if not scripted:
        text += _labels(width, column)
        text += "pool".ljust(width) + "".join(
            "  " + h.rjust(column) for h in ("alloc", "free", "read", "write", "read",
                                             "write")) + "\n"
        text += rule + "\n"
    for name, line_row in lines:
        values = fields(line_row)
        if scripted:
            text += "\t".join([name.strip(), *values]) + "\n"
        else:
            text += name.ljust(width) + "".join("  " + v.rjust(column) for v in values) + "\n"
    if not scripted and verbose:
        text += rule + "\n"
    return text
