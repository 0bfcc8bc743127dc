"""A file's bytes as a list of pieces of generated streams.

Each source is an endless (or, for seq and literal text, finite) stream of bytes that a
command makes: /dev/zero, /dev/urandom, fio's write buffers, ``yes``, ``seq``, text
from ``echo`` or ``printf``. A file is a sequence of pieces, each a window
[start, start + length) of one source; writing a range of a file (dd conv=notrunc,
appending) replaces or adds pieces, so the file is never held. ``read`` gives the bytes
of any range, the same every time: random streams come from a seed, 4 KiB at a time.

``runs`` describes a range as runs of zeros and random bytes when that is all it holds
(labsim.zfs.compression computes what LZ4 makes of such data without the bytes)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from labsim.content import seq as seq_text
from labsim.content.fio import RANDOM, ZERO, fio_runs
from labsim.content.seq import SeqText

RANDOM_BLOCK = 4096  # random streams are generated this many bytes at a time


@dataclass(frozen=True)
class Zeros:
    """/dev/zero, and the holes of a sparse file."""


@dataclass(frozen=True)
class RandomBytes:
    """/dev/urandom: bytes that never repeat and never compress, from a seed."""

    seed: int = 0


@dataclass(frozen=True)
class FioBuffers:
    """fio's buffers with buffer_compress_percentage=``percent`` (lib/rand.c
    __fill_random_buf_percentage()): every ``chunk`` bytes are ``chunk * (100 -
    percent) // 100`` random bytes, then zeros to the chunk's end."""

    percent: int
    chunk: int
    seed: int = 0


@dataclass(frozen=True)
class Repeat:
    """``unit`` again and again: ``yes STRING`` prints "STRING\\n" forever."""

    unit: bytes


@dataclass(frozen=True)
class Literal:
    """Bytes given in full: the text of echo and printf."""

    data: bytes


Source = Zeros | RandomBytes | FioBuffers | Repeat | Literal | SeqText


def source_size(source: Source) -> int | None:
    """Bytes a finite source holds; None for an endless one."""
    if isinstance(source, Literal):
        return len(source.data)
    if isinstance(source, SeqText):
        return seq_text.size(source)
    return None


def _random_bytes(seed: int, start: int, length: int) -> bytes:
    first, last = start // RANDOM_BLOCK, (start + length - 1) // RANDOM_BLOCK
    data = b"".join(random.Random(seed * 1_000_003 + block).randbytes(RANDOM_BLOCK)
                    for block in range(first, last + 1))
    skip = start - first * RANDOM_BLOCK
    return data[skip:skip + length]


def _repeat(unit: bytes, start: int, length: int) -> bytes:
    phase = start % len(unit)
    times = -(-(phase + length) // len(unit))
    return (unit * times)[phase:phase + length]


def source_bytes(source: Source, start: int, length: int) -> bytes:
    """Bytes [start, start + length) of a source (fewer at the end of a finite one)."""
    if length <= 0:
        return b""
    if isinstance(source, Zeros):
        return bytes(length)
    if isinstance(source, RandomBytes):
        return _random_bytes(source.seed, start, length)
    if isinstance(source, Repeat):
        return _repeat(source.unit, start, length)
    if isinstance(source, Literal):
        return source.data[start:start + length]
    if isinstance(source, SeqText):
        return seq_text.read(source, start, length)
    return _fio_bytes(source, start, length)


def _fio_bytes(source: FioBuffers, start: int, length: int) -> bytes:
    data = bytearray(_random_bytes(source.seed, start, length))
    for kind, offset, n in _fio_runs(source, start, length):
        if kind == ZERO:
            data[offset - start:offset - start + n] = bytes(n)
    return bytes(data)


def _fio_runs(source: FioBuffers, start: int, length: int) -> list[tuple[str, int, int]]:
    """(kind, offset, length) runs of fio's buffers over [start, start + length)."""
    return fio_runs(source.percent, source.chunk, start, length)


@dataclass(frozen=True)
class Piece:
    """Bytes [start, start + length) of ``source``."""

    source: Source
    start: int
    length: int


@dataclass(frozen=True)
class Content:
    """A file's bytes: its pieces, in order."""

    pieces: tuple[Piece, ...] = ()

    @property
    def size(self) -> int:
        return sum(p.length for p in self.pieces)


def of_source(source: Source, length: int | None = None) -> Content:
    """The first ``length`` bytes of a source (all of a finite one by default)."""
    if length is None:
        length = source_size(source)
        if length is None:
            raise ValueError("an endless source needs a length")
    return Content((Piece(source, 0, length),)) if length > 0 else Content()


def zeros(length: int) -> Content:
    return of_source(Zeros(), length)


def _cut(content: Content, offset: int, length: int) -> list[Piece]:
    out, pos, end = [], 0, offset + length
    for piece in content.pieces:
        p_end = pos + piece.length
        lo, hi = max(pos, offset), min(p_end, end)
        if lo < hi:
            out.append(Piece(piece.source, piece.start + lo - pos, hi - lo))
        pos = p_end
        if pos >= end:
            break
    return out


def _joined(pieces: list[Piece]) -> Content:
    """Pieces with neighbours that continue each other merged."""
    out: list[Piece] = []
    for piece in pieces:
        if piece.length <= 0:
            continue
        if out:
            prev = out[-1]
            continues = prev.source == piece.source and (
                isinstance(piece.source, Zeros) or prev.start + prev.length == piece.start)
            if continues:
                out[-1] = Piece(prev.source, prev.start, prev.length + piece.length)
                continue
        out.append(piece)
    return Content(tuple(out))


def window(content: Content, offset: int, length: int) -> Content:
    """Bytes [offset, offset + length) of a file, as content of their own."""
    return _joined(_cut(content, offset, length))


def write_at(content: Content, offset: int, data: Content) -> Content:
    """The file after ``data`` is written at ``offset`` (a gap reads as zeros)."""
    size = content.size
    head = _cut(content, 0, min(offset, size))
    gap = [Piece(Zeros(), 0, offset - size)] if offset > size else []
    tail = _cut(content, offset + data.size, max(0, size - offset - data.size))
    return _joined([*head, *gap, *data.pieces, *tail])


def concat(*parts: Content) -> Content:
    return _joined([p for part in parts for p in part.pieces])


def resize(content: Content, size: int) -> Content:
    """truncate -s: cut, or extended with zeros."""
    if size <= content.size:
        return window(content, 0, size)
    return concat(content, zeros(size - content.size))


def read(content: Content, offset: int, length: int) -> bytes:
    """Bytes [offset, offset + length) of the file (fewer past its end)."""
    return b"".join(source_bytes(p.source, p.start, p.length)
                    for p in _cut(content, offset, length))


def runs(content: Content, offset: int, length: int) -> tuple[tuple[str, int], ...] | None:
    """The range as (kind, length) runs of "zero" and "random" bytes, or None when it
    holds anything else (text, seq, ...)."""
    out: list[tuple[str, int]] = []
    for piece in _cut(content, offset, length):
        src = piece.source
        if isinstance(src, Zeros):
            parts = [(ZERO, piece.length)]
        elif isinstance(src, RandomBytes):
            parts = [(RANDOM, piece.length)]
        elif isinstance(src, FioBuffers):
            parts = [(kind, n) for kind, _, n in _fio_runs(src, piece.start, piece.length)]
        else:
            return None
        for kind, n in parts:
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + n)
            elif n > 0:
                out.append((kind, n))
    return tuple(out)


def is_random(content: Content, offset: int, length: int) -> bool:
    """Whether every byte of the range comes from a random stream."""
    shape = runs(content, offset, length)
    return shape is not None and all(kind == RANDOM for kind, _ in shape)


def record_key(content: Content, offset: int, length: int) -> tuple:
    """What the bytes of a range depend on, offsets made relative where a source repeats:
    two ranges with the same key hold the same bytes (a cache key that needs no bytes)."""
    key = []
    for piece in _cut(content, offset, length):
        src, start = piece.source, piece.start
        if isinstance(src, Zeros):
            start = 0
        elif isinstance(src, Repeat):
            start %= len(src.unit)
        elif isinstance(src, FioBuffers) and src.percent >= 100:
            start = 0
        key.append((src, start, piece.length))
    return tuple(key)
