"""Byte ranges of a leaf as sorted, disjoint [lo, hi) pairs: joining them and cutting
some out. What a leaf's damage is made of (labsim.zfs.scan), kept apart from the scan so
that the vdevs, which clear damage as they write (TopVdev.take), need not import it."""

from __future__ import annotations

import bisect
from collections.abc import Iterable


def merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges sorted, with overlapping and touching ones joined."""
    merged: list[tuple[int, int]] = []
    ordered = sorted(ranges)
    if not ordered:
        return merged
    low, high = ordered[0]
    for lo, hi in ordered:  # (a tuple per joined range, not per range: a scrub of a
        if lo <= high:      # badly damaged disk merges tens of thousands)
            if hi > high:
                high = hi
        else:
            merged.append((low, high))
            low, high = lo, hi
    merged.append((low, high))
    return merged


def intersect(ranges: list[tuple[int, int]],
              within: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of sorted, disjoint ``ranges`` inside sorted, disjoint ``within``, in one
    pass over both."""
    out: list[tuple[int, int]] = []
    first = 0  # within[:first] end before the current range starts
    for lo, hi in ranges:
        while first < len(within) and within[first][1] <= lo:
            first += 1
        k = first
        while k < len(within) and within[k][0] < hi:
            a, b = max(lo, within[k][0]), min(hi, within[k][1])
            if a < b:
                out.append((a, b))
            k += 1
    return out


def subtract(ranges: list[tuple[int, int]],
             cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint ``ranges`` less the sorted, disjoint ``cuts``, in one pass that
    copies the untouched stretches of ``ranges`` whole."""
    out: list[tuple[int, int]] = []
    carry: tuple[int, int] | None = None  # a piece a later cut may still shorten
    i = 0  # ranges[:i] are in out, in carry, or cut away
    for lo, hi in cuts:
        if carry is not None and carry[1] <= lo:
            out.append(carry)
            carry = None
        if carry is None:
            k = bisect.bisect_left(ranges, (lo, lo), i)  # ranges[i:k] start before lo
            if k > i:
                out.extend(ranges[i:k - 1])
                carry = ranges[k - 1]
                i = k
                if carry[1] <= lo:
                    out.append(carry)
                    carry = None
        if carry is not None:  # it starts before lo (or at it) and ends after lo
            a, b = carry
            carry = None
            if a < lo:
                out.append((a, lo))
            if b > hi:
                carry = (hi, b)
                continue  # ranges[i:] start after b: the cut ends inside carry
        k = bisect.bisect_left(ranges, (hi, hi), i)  # ranges[i:k] start in [lo, hi)
        if k > i:
            end = ranges[k - 1][1]
            if end > hi:
                carry = (hi, end)
            i = k
    if carry is not None:
        out.append(carry)
    out.extend(ranges[i:])
    return out
