"""The output of GNU ``seq FIRST INCREMENT LAST`` for integers, by byte offset.

seq prints each number in plain decimal followed by a newline (for integer operands
coreutils' seq prints them exactly, with no exponent). The numbers fall into bands of
equal printed width (1-9, 10-99, ..., and likewise below zero), so the text is a short
list of segments of fixed-width lines, and the bytes of any range come from the few
numbers that fall in it."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class SeqText:
    """``seq first step last`` (step != 0): every first + k * step up to last, each line
    ``prefix``, the number, ``suffix`` (``seq -f 'PREFIX%gSUFFIX'``)."""

    first: int
    step: int
    last: int
    prefix: str = ""
    suffix: str = ""

    @property
    def count(self) -> int:
        span = (self.last - self.first) // self.step
        return max(0, span + 1)


@dataclass(frozen=True)
class _Segment:
    index: int  # k of its first number
    count: int
    width: int  # bytes per line, newline included
    offset: int  # byte offset of its first line


def _band(n: int) -> tuple[int, int]:
    """The numbers printed as wide as ``n`` on the same side of zero: [lo, hi]."""
    digits = len(str(abs(n)))
    top = 10 ** digits - 1
    bottom = 0 if digits == 1 else 10 ** (digits - 1)
    return (bottom, top) if n >= 0 else (-top, -max(bottom, 1))


@lru_cache(maxsize=256)
def segments(seq: SeqText) -> tuple[_Segment, ...]:
    out = []
    k, offset, total = 0, 0, seq.count
    while k < total:
        n = seq.first + k * seq.step
        lo, hi = _band(n)
        bound = hi if seq.step > 0 else lo
        # the last j >= k with first + j * step still inside the band
        j = min(total - 1, k + (bound - n) // seq.step)
        width = len(str(n)) + 1 + len(seq.prefix.encode()) + len(seq.suffix.encode())
        out.append(_Segment(k, j - k + 1, width, offset))
        offset += (j - k + 1) * width
        k = j + 1
    return tuple(out)


def size(seq: SeqText) -> int:
    segs = segments(seq)
    return segs[-1].offset + segs[-1].count * segs[-1].width if segs else 0


def read(seq: SeqText, start: int, length: int) -> bytes:
    """The bytes [start, start + length) of seq's output (short at its end)."""
    segs = segments(seq)
    starts = [s.offset for s in segs]
    out = []
    pos, end = start, min(start + length, size(seq))
    i = max(0, bisect_right(starts, pos) - 1)
    while pos < end and i < len(segs):
        seg = segs[i]
        seg_end = seg.offset + seg.count * seg.width
        if pos >= seg_end:
            i += 1
            continue
        first_line = (pos - seg.offset) // seg.width
        last_line = min(seg.count, -(-(min(end, seg_end) - seg.offset) // seg.width))
        a = seq.first + (seg.index + first_line) * seq.step
        b = seq.first + (seg.index + last_line) * seq.step
        if seq.prefix or seq.suffix:
            text = "".join(f"{seq.prefix}{n}{seq.suffix}\n"
                           for n in range(a, b, seq.step)).encode()
        else:
            text = ("\n".join(map(str, range(a, b, seq.step))) + "\n").encode()
        skip = pos - (seg.offset + first_line * seg.width)
        piece = text[skip:skip + (min(end, seg_end) - pos)]
        out.append(piece)
        pos += len(piece)
        i += 1
    return b"".join(out)
