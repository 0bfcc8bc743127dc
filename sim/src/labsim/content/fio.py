"""fio's write buffers as runs of random bytes and zeros.

fio (lib/rand.c __fill_random_buf_percentage(), io_u.c fill_io_buffer()) with
buffer_compress_percentage=P and buffer_compress_chunk=C fills every C bytes of a buffer by a
separate call: ``C * (100 - P) // 100`` bytes of fresh random data, then zeros to the chunk's
end. P = 100 is all zeros; P = 0 is plain random data.
"""

from __future__ import annotations

RANDOM = "random"
ZERO = "zero"


def fio_runs(percent: int, chunk: int, start: int, length: int) -> list[tuple[str, int, int]]:
    """(kind, offset, length) runs of fio's buffers over [start, start + length)."""
    if length <= 0:
        return []
    if percent >= 100:
        return [(ZERO, start, length)]
    if percent <= 0:
        return [(RANDOM, start, length)]
    random_len = chunk * (100 - percent) // 100
    out = []
    pos, end = start, start + length
    while pos < end:
        within = pos % chunk
        if within < random_len:
            kind, stop = RANDOM, pos - within + random_len
        else:
            kind, stop = ZERO, pos - within + chunk
        stop = min(stop, end)
        out.append((kind, pos, stop - pos))
        pos = stop
    return out
