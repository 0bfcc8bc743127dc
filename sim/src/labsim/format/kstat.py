"""What reading a named kstat under /proc/spl/kstat prints (kstat_seq_show() and
kstat_seq_show_headers() in module/os/linux/spl/spl-kstat.c).

The first line describes the kstat: its id, type (1: named), flags, number of values,
data size and two timestamps in nanoseconds (created, last updated). Then "name type
data" and one line per value: the name left-aligned in 32 columns, the value's type
(4: a 64-bit unsigned integer) in 5, and the value.
"""

from __future__ import annotations

KSTAT_TYPE_NAMED = 1
KSTAT_DATA_UINT64 = 4
KSTAT_FLAG_VIRTUAL = 0x01
# What the header gives as the data size per value (2.1.11: 3536 bytes for the 13 values
# of the zil kstat).
KSTAT_NAMED_SIZE = 272


def format_named_kstat(kid: int, values: dict[str, int], created_ns: int,
                       updated_ns: int) -> str:
    text = (f"{kid} {KSTAT_TYPE_NAMED} 0x{KSTAT_FLAG_VIRTUAL:02x} {len(values)} "
            f"{len(values) * KSTAT_NAMED_SIZE} {created_ns} {updated_ns}\n")
    text += f"{'name':<32}{'type':<5}data\n"
    for name, value in values.items():
        text += f"{name:<32}{KSTAT_DATA_UINT64:<5}{value}\n"
    return text
