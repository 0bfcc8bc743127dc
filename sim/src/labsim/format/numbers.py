"""Human-readable numbers as OpenZFS and GNU coreutils print them.

Two unrelated families live here:

* OpenZFS: ``zfs_nicenum_format()`` (lib/libzutil/zutil_nicenum.c in 2.1; it lived in
  lib/libzfs/libzfs_util.c before 2.0) and the percent/ratio formats of
  ``zpool_get_prop()`` (lib/libzfs/libzfs_pool.c), ``print_one_column()``
  (cmd/zpool/zpool_main.c) and ``zfs_prop_get()`` (lib/libzfs/libzfs_dataset.c).
* GNU coreutils: gnulib's ``human_readable()`` (lib/human.c), used by dd for
  "(2.1 GB, 2.0 GiB)" and "129 MB/s" and by ``ls -h`` for "1.0G".

Every function is pure: ints (or floats) in, ``str`` out.
"""

from __future__ import annotations

import math

__all__ = [
    "HUMAN_AUTOSCALE",
    "HUMAN_B",
    "HUMAN_BASE_1024",
    "HUMAN_CEILING",
    "HUMAN_FLOOR",
    "HUMAN_ROUND_TO_NEAREST",
    "HUMAN_SI",
    "HUMAN_SPACE_BEFORE_UNIT",
    "HUMAN_SUPPRESS_POINT_ZERO",
    "NICENUM_1024",
    "NICENUM_BYTES",
    "NICENUM_RAW",
    "NICENUM_RAWTIME",
    "NICENUM_TIME",
    "dd_rate",
    "dedup_ratio",
    "fragmentation",
    "human_iec_bytes",
    "human_readable",
    "human_si_bytes",
    "nicebytes",
    "nicenum",
    "nicenum_format",
    "nicenum_percent",
    "ratio_hundredths",
    "secs_to_dhms",
    "vdev_capacity",
]

# enum zfs_nicenum_format (include/libzutil.h)
NICENUM_1024 = "1024"
NICENUM_BYTES = "bytes"
NICENUM_TIME = "time"
NICENUM_RAW = "raw"
NICENUM_RAWTIME = "rawtime"

# zutil_nicenum.c: units[3][7], units_len[], k_unit[]
_UNITS = {
    NICENUM_1024: ("", "K", "M", "G", "T", "P", "E"),
    NICENUM_BYTES: ("B", "K", "M", "G", "T", "P", "E"),
    NICENUM_TIME: ("ns", "us", "ms", "s", "?", "?", "?"),
}
_UNITS_LEN = {NICENUM_1024: 6, NICENUM_BYTES: 6, NICENUM_TIME: 4}
_K_UNIT = {NICENUM_1024: 1024, NICENUM_BYTES: 1024, NICENUM_TIME: 1000}


def nicenum_format(num: int, fmt: str = NICENUM_1024) -> str:
    """``zfs_nicenum_format()`` (lib/libzutil/zutil_nicenum.c), line for line.

    >>> nicenum_format(12784239493, NICENUM_1024)
    '11.9G'
    """
    if num < 0:
        raise ValueError("zfs_nicenum_format takes an unsigned (uint64_t) value")
    if fmt == NICENUM_RAW:
        return str(num)  # snprintf("%llu")
    if fmt == NICENUM_RAWTIME:
        return str(num) if num > 0 else "-"
    k = _K_UNIT[fmt]
    n = num
    index = 0
    while n >= k and index < _UNITS_LEN[fmt]:
        n //= k
        index += 1
    u = _UNITS[fmt][index]
    if fmt == NICENUM_TIME and num == 0:
        return "-"  # "Don't print zero latencies since they're invalid"
    divisor = k**index  # (uint64_t)powl(k_unit[format], index)
    if index == 0 or num % divisor == 0:
        # "If this is an even multiple of the base, always display without any
        # decimal precision."  snprintf("%llu%s", n, u)
        return f"{n}{u}"
    # "try each combination in turn": %.2f, %.1f, %.0f until it fits in 5 chars.
    text = ""
    for precision in (2, 1, 0):
        val = float(num) / float(divisor)  # (double)num / (uint64_t)powl(...)
        # snprintf("%d%s") for time, "%.*f%s" otherwise; C and Python both round
        # the binary value exactly (round-half-even on the decimal expansion).
        text = f"{math.floor(val)}{u}" if fmt == NICENUM_TIME else f"{val:.{precision}f}{u}"
        if len(text) <= 5:
            break
    return text


def nicenum(num: int) -> str:
    """``zfs_nicenum()``: 1024-based, no unit for bytes ("0", "512", "11.9G")."""
    return nicenum_format(num, NICENUM_1024)


def nicebytes(num: int) -> str:
    """``zfs_nicebytes()``: 1024-based with a "B" below 1K ("0B", "512B", "128K")."""
    return nicenum_format(num, NICENUM_BYTES)


def nicenum_percent(value: int, *, parsable: bool = False) -> str:
    """Whole percent: zpool CAP of a pool, "%llu%%" (lib/libzfs/libzfs_pool.c
    zpool_get_prop, ZPOOL_PROP_CAPACITY); "%llu" with -p."""
    return str(value) if parsable else f"{value}%"


def fragmentation(value: int | None, *, parsable: bool = False) -> str:
    """FRAG column: "-" when the pool/vdev has no valid fragmentation metric
    (UINT64_MAX / ZFS_FRAG_INVALID), "%llu%%", or "%llu" with -p
    (libzfs_pool.c zpool_get_prop; zpool_main.c print_one_column)."""
    if value is None:
        return "-"
    return str(value) if parsable else f"{value}%"


def vdev_capacity(permyriad: int, *, parsable: bool = False) -> str:
    """CAP of a vdev row in ``zpool list -v``: print_one_column(ZPOOL_PROP_CAPACITY)
    in cmd/zpool/zpool_main.c.  The value is parts per 10,000
    (``vs_alloc * 10000 / vs_space``); printed with "%1.2f%%" below 10%,
    "%2.1f%%" below 100% and "%3.0f%%" otherwise, or ``value / 100`` with -p.

    >>> vdev_capacity(8)
    '0.08%'
    """
    if parsable:
        return str(permyriad // 100)
    value = permyriad / 100.0
    if permyriad < 1000:
        return f"{value:1.2f}%"
    if permyriad < 10000:
        return f"{value:2.1f}%"
    return f"{value:3.0f}%"


def ratio_hundredths(ratio: float | int) -> int:
    """A ratio such as 1.0 or 1.37 as the integer hundredths the kernel reports
    (dedupratio and compressratio are stored as value * 100)."""
    return int(round(ratio * 100))


def dedup_ratio(ratio: float | int, *, parsable: bool = False) -> str:
    """DEDUP / RATIO columns: "%llu.%02llux", or "%llu.%02llu" with -p
    (libzfs_pool.c zpool_get_prop ZPOOL_PROP_DEDUPRATIO; libzfs_dataset.c
    zfs_prop_get ZFS_PROP_COMPRESSRATIO).

    >>> dedup_ratio(1.0)
    '1.00x'
    """
    hundredths = ratio_hundredths(ratio)
    text = f"{hundredths // 100}.{hundredths % 100:02d}"
    return text if parsable else text + "x"


def secs_to_dhms(total: int) -> str:
    """``secs_to_dhms()`` (cmd/zpool/zpool_main.c): "00:01:30" or "1 days 02:03:04",
    used by the ``scan:`` line of zpool status."""
    days, rem = divmod(total, 86400)
    hours, rem = divmod(rem, 3600)
    mins, secs = divmod(rem, 60)
    if days > 0:
        return f"{days} days {hours:02d}:{mins:02d}:{secs:02d}"
    return f"{hours:02d}:{mins:02d}:{secs:02d}"


# ---------------------------------------------------------------------------
# gnulib lib/human.c, human_readable()
# ---------------------------------------------------------------------------

# enum in gnulib lib/human.h
HUMAN_CEILING = 0
HUMAN_ROUND_TO_NEAREST = 1
HUMAN_FLOOR = 2
HUMAN_GROUP_DIGITS = 4
HUMAN_SUPPRESS_POINT_ZERO = 8
HUMAN_AUTOSCALE = 16
HUMAN_BASE_1024 = 32
HUMAN_SPACE_BEFORE_UNIT = 64
HUMAN_SI = 128
HUMAN_B = 256

_POWER_LETTER = ("", "K", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q")
_INEXACT = HUMAN_ROUND_TO_NEAREST | HUMAN_FLOOR  # ceiling is 0


def _adjust_value(style: int, value: float) -> float:
    # human.c adjust_value(): floor/ceil unless rounding to nearest.
    if style != HUMAN_ROUND_TO_NEAREST:
        value = math.floor(value) if style == HUMAN_FLOOR else math.ceil(value)
    return value


def human_readable(n: int, opts: int, from_block_size: int = 1, to_block_size: int = 1) -> str:
    """gnulib ``human_readable()`` for the C locale (no digit grouping).

    ``n`` counts units of ``from_block_size`` bytes; the result is expressed in
    units of ``to_block_size`` (dd passes 10**9 and the elapsed nanoseconds to get
    a rate).  The integer paths are exact; the floating-point fallback uses a C
    double where gnulib uses long double, which can only matter on exact ties.
    """
    style = opts & _INEXACT
    base = 1024 if opts & HUMAN_BASE_1024 else 1000
    exponent = -1
    exponent_max = len(_POWER_LETTER) - 1
    digits = ""

    use_int = False
    amt = tenths = rounding = 0
    if to_block_size <= from_block_size:
        if from_block_size % to_block_size == 0:
            amt = n * (from_block_size // to_block_size)
            tenths = rounding = 0
            use_int = True
    elif from_block_size != 0 and to_block_size % from_block_size == 0:
        divisor = to_block_size // from_block_size
        r10 = (n % divisor) * 10
        r2 = (r10 % divisor) * 2
        amt = n // divisor
        tenths = r10 // divisor
        rounding = (r2 > 0) if r2 < divisor else 2 + (r2 > divisor)
        use_int = True

    if not use_int:
        damt = n * (from_block_size / to_block_size)
        if not opts & HUMAN_AUTOSCALE:
            digits = f"{_adjust_value(style, damt):.0f}"
        else:
            e = 1.0
            exponent = 0
            while True:
                e *= base
                exponent += 1
                if not (e * base <= damt and exponent < exponent_max):
                    break
            damt /= e
            digits = f"{_adjust_value(style, damt):.1f}"
            nonintegerlen = 2  # decimal_pointlen + 1
            if (1 + nonintegerlen + (0 if opts & HUMAN_BASE_1024 else 1) < len(digits)
                    or (opts & HUMAN_SUPPRESS_POINT_ZERO and digits[-1] == "0")):
                digits = f"{_adjust_value(style, damt * 10) / 10:.0f}"
    else:
        fraction = ""
        if opts & HUMAN_AUTOSCALE:
            exponent = 0
            if base <= amt:
                while True:
                    r10 = (amt % base) * 10 + tenths
                    r2 = (r10 % base) * 2 + (rounding >> 1)
                    amt //= base
                    tenths = r10 // base
                    rounding = ((r2 + rounding) != 0 if r2 < base
                                else 2 + (base < r2 + rounding))
                    exponent += 1
                    if not (base <= amt and exponent < exponent_max):
                        break
                if amt < 10:
                    if (rounding + (tenths & 1) > 2 if style == HUMAN_ROUND_TO_NEAREST
                            else style == HUMAN_CEILING and rounding > 0):
                        tenths += 1
                        rounding = 0
                        if tenths == 10:
                            amt += 1
                            tenths = 0
                    if amt < 10 and (tenths or not opts & HUMAN_SUPPRESS_POINT_ZERO):
                        fraction = "." + str(tenths)
                        tenths = rounding = 0
        if (tenths + (rounding + (amt & 1) > 0) > 5 if style == HUMAN_ROUND_TO_NEAREST
                else style == HUMAN_CEILING and tenths + rounding > 0):
            amt += 1
            if opts & HUMAN_AUTOSCALE and amt == base and exponent < exponent_max:
                exponent += 1
                if not opts & HUMAN_SUPPRESS_POINT_ZERO:
                    fraction = ".0"
                amt = 1
        digits = str(amt) + fraction

    suffix = ""
    if opts & HUMAN_SI:
        if exponent < 0:
            exponent = 0
            power = 1
            while power < to_block_size:
                exponent += 1
                if exponent == exponent_max:
                    break
                power *= base
        if (exponent or opts & HUMAN_B) and opts & HUMAN_SPACE_BEFORE_UNIT:
            suffix += " "
        if exponent:
            suffix += "k" if (not opts & HUMAN_BASE_1024 and exponent == 1) \
                else _POWER_LETTER[exponent]
        if opts & HUMAN_B:
            if opts & HUMAN_BASE_1024 and exponent:
                suffix += "i"
            suffix += "B"
    return digits + suffix


# coreutils src/dd.c print_xfer_stats(): human_opts
_DD_OPTS = (HUMAN_AUTOSCALE | HUMAN_ROUND_TO_NEAREST | HUMAN_SPACE_BEFORE_UNIT
            | HUMAN_SI | HUMAN_B)


def human_si_bytes(n: int) -> str:
    """dd's first size, powers of 1000: "2.1 GB", "1.0 MB", "512 B"."""
    return human_readable(n, _DD_OPTS, 1, 1)


def human_iec_bytes(n: int) -> str:
    """dd's second size, powers of 1024: "2.0 GiB", "1.0 MiB", "512 B"."""
    return human_readable(n, _DD_OPTS | HUMAN_BASE_1024, 1, 1)


def dd_rate(n_bytes: int, elapsed_ns: int) -> str:
    """dd's throughput, "129 MB/s": human_readable(w_bytes, opts, XTIME_PRECISION,
    delta_xtime) + "/s"; "Infinity B/s" when no time has passed (src/dd.c)."""
    if elapsed_ns <= 0:
        return "Infinity B/s"
    return human_readable(n_bytes, _DD_OPTS, 10**9, elapsed_ns) + "/s"
