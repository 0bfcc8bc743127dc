"""Size arguments as each tool parses them.

GNU coreutils (truncate, dd) use xstrtoumax with a suffix table; ZFS uses
zfs_nicestrtonum (lib/libzfs/libzfs_util.c). They accept different spellings, and a
learner who types one tool's spelling into another gets that tool's error.
"""

from __future__ import annotations

import re

_POWERS = "KMGTPEZY"
_COREUTILS = re.compile(r"^(\d+)([KMGTPEZYkmgt]?)(iB|B)?$")
_DD = re.compile(r"^(\d+)(c|w|b|kB|[KMGTPEZY]B|[KMGTPEZYk]|[KMGTPEZY]iB)?$")
_ZFS = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)\s*([KMGTPEZ]?)(B|iB)?$", re.IGNORECASE)


def parse_coreutils_size(text: str) -> int | None:
    """truncate -s: 10G, 512M, 1GiB (1024-based), 1GB (1000-based). None if invalid."""
    match = _COREUTILS.match(text)
    if not match:
        return None
    number, unit, suffix = int(match.group(1)), match.group(2).upper(), match.group(3)
    if not unit:
        return number if suffix is None else None
    base = 1000 if suffix == "B" else 1024
    return number * base ** (_POWERS.index(unit) + 1)


def parse_dd_number(text: str) -> int | None:
    """dd bs=/count=: c w b kB K M MB G GB ... as GNU dd documents them."""
    match = _DD.match(text)
    if not match:
        return None
    number, unit = int(match.group(1)), match.group(2)
    if unit is None:
        return number
    fixed = {"c": 1, "w": 2, "b": 512, "k": 1024, "kB": 1000}
    if unit in fixed:
        return number * fixed[unit]
    power = _POWERS.index(unit[0]) + 1
    if unit.endswith("iB") or len(unit) == 1:
        return number * 1024**power
    return number * 1000**power


def parse_zfs_number(text: str) -> int | None:
    """zfs_nicestrtonum: "128K", "1M", "1.5G", "131072"; 1024-based, case-insensitive."""
    match = _ZFS.match(text.strip())
    if not match:
        return None
    value = float(match.group(1))
    unit = match.group(2).upper()
    if unit:
        value *= 1024 ** (_POWERS.index(unit) + 1)
    elif "." in match.group(1):
        return None  # zfs rejects a fractional byte count
    return int(value)
