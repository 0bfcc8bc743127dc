"""What ping of iputils 20221126 (Debian 12's iputils-ping) prints, from ping/ping_common.c.

Round trip times are integers of microseconds, as ping keeps them, and are printed and
summed by its rules: gather_statistics() for a reply line, finish() for the statistics.
"""

from __future__ import annotations


def header(address: str) -> str:
    return f"PING {address} ({address}) 56(84) bytes of data.\n"


def _trip(us: int) -> str:
    """A reply's time= as gather_statistics() prints it."""
    if us >= 100000 - 50:
        return f"{(us + 500) // 1000}"
    if us >= 10000 - 5:
        return f"{(us + 50) // 1000}.{((us + 50) % 1000) // 100:01d}"
    if us >= 1000:
        return f"{(us + 5) // 1000}.{((us + 5) % 1000) // 10:02d}"
    return f"{us // 1000}.{us % 1000:03d}"


def reply(address: str, seq: int, ttl: int, us: int) -> str:
    return f"64 bytes from {address}: icmp_seq={seq} ttl={ttl} time={_trip(us)} ms\n"


def _isqrt(value: int) -> int:
    """llsqrt() of ping_common.c (Newton's method on integers)."""
    if value <= 0:
        return 0
    previous, x = None, value
    while previous is None or x < previous:
        previous, x = x, (x + value // x) // 2
    return previous


def unreachable(source: str, seq: int) -> str:
    """An ICMP host unreachable for packet ``seq`` (receive_error_msg() and pr_icmph())."""
    return f"From {source} icmp_seq={seq} Destination Host Unreachable\n"


def statistics(address: str, transmitted: int, trips_us: list[int], elapsed_ms: int,
               errors: int = 0) -> str:
    """finish(): the statistics block, which starts with an empty line; ``errors`` counts
    the ICMP errors received."""
    received = len(trips_us)
    loss = (transmitted - received) * 100.0 / transmitted if transmitted else 0.0
    shown_errors = f", +{errors} errors" if errors else ""
    text = (f"\n--- {address} ping statistics ---\n"
            f"{transmitted} packets transmitted, {received} received{shown_errors}, "
            f"{loss:g}% packet loss, time {elapsed_ms}ms\n")
    if received:
        total = sum(trips_us)
        squares = sum(t * t for t in trips_us)
        average = total // received
        # C division of long long truncates toward zero; the operands are never negative.
        mdev = _isqrt((squares - (total * total) // received) // received)
        low, high = min(trips_us), max(trips_us)
        text += (f"rtt min/avg/max/mdev = {low // 1000}.{low % 1000:03d}/"
                 f"{average // 1000}.{average % 1000:03d}/{high // 1000}.{high % 1000:03d}/"
                 f"{mdev // 1000}.{mdev % 1000:03d} ms")
    return text + "\n"
