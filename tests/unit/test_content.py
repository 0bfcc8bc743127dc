"""labsim.content: the bytes of any range of a file equal the whole file's bytes sliced,
for every kind of source and after every edit (write at an offset, window, append,
resize), and equal record keys mean equal bytes."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.content import model
from labsim.content.seq import SeqText, size


def seq_output(first: int, step: int, last: int) -> bytes:
    stop = last + (1 if step > 0 else -1)
    return "".join(f"{n}\n" for n in range(first, stop, step)).encode()


@pytest.mark.parametrize("spec", [(1, 1, 10), (1, 1, 200_000), (-20, 3, 150), (150, -7, -120),
                                  (5, -2, 1), (-1000, 1, -990), (99, 1, 101), (10, 1, 9),
                                  (0, 5, 0), (-5, -1, -12)])
def test_seq_ranges_are_the_whole_output_sliced(spec):
    whole = seq_output(*spec)
    text = SeqText(*spec)
    assert size(text) == len(whole)
    content = model.of_source(text) if whole else model.Content()
    assert model.read(content, 0, content.size) == whole
    rng = random.Random(sum(spec))
    for _ in range(300):
        start = rng.randrange(len(whole) + 1)
        length = rng.randrange(3000)
        assert model.read(content, start, length) == whole[start:start + length]


def test_seq_one_to_ten_million_is_78888897_bytes_and_ends_as_seq_does():
    content = model.of_source(SeqText(1, 1, 10_000_000))
    assert content.size == 78_888_897  # seq 1 10000000 | wc -c
    assert model.read(content, content.size - 17, 100) == b"9999999\n10000000\n"


SOURCES = [model.Zeros(), model.RandomBytes(7), model.FioBuffers(50, 4096, 3),
           model.FioBuffers(75, 512), model.Repeat(b"ZFS Field Labs\n"),
           model.Literal(bytes(range(256)) * 40), SeqText(1, 1, 5000)]


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: type(s).__name__)
def test_every_source_reads_the_same_bytes_by_pieces(source):
    n = min(model.source_size(source) or 20_000, 20_000)
    whole = model.source_bytes(source, 0, n)
    assert len(whole) == n
    assert model.source_bytes(source, 0, n) == whole  # deterministic
    rng = random.Random(1)
    for _ in range(200):
        start = rng.randrange(n)
        length = min(rng.randrange(5000), n - start)
        assert model.source_bytes(source, start, length) == whole[start:start + length]


def test_fio_buffers_are_random_then_zeros_in_each_chunk():
    source = model.FioBuffers(50, 4096, 1)
    data = model.source_bytes(source, 0, 8192)
    assert data[2048:4096] == bytes(2048) and data[6144:] == bytes(2048)
    assert data[:2048].count(0) < 40  # random: about 8 zero bytes in 2048
    content = model.of_source(source, 8192)
    assert model.runs(content, 1024, 4096) == (("random", 1024), ("zero", 2048),
                                               ("random", 1024))


def test_runs_say_none_for_text():
    content = model.concat(model.of_source(model.RandomBytes(), 100),
                           model.of_source(model.Repeat(b"y\n"), 100))
    assert model.runs(content, 0, 100) == (("random", 100),)
    assert model.runs(content, 50, 100) is None
    assert model.is_random(content, 0, 100) and not model.is_random(content, 0, 101)


def _materialized(content: model.Content) -> bytes:
    return model.read(content, 0, content.size)


edits = st.lists(st.tuples(st.sampled_from(["write", "window", "concat", "resize"]),
                           st.integers(0, 9000), st.integers(0, 5000),
                           st.sampled_from(range(len(SOURCES)))), max_size=8)


@settings(max_examples=150, deadline=None)
@given(edits)
def test_edits_act_on_content_as_on_bytes(steps):
    content, expected = model.Content(), b""
    for op, offset, length, which in steps:
        src = SOURCES[which]
        limit = model.source_size(src)
        part = model.of_source(src, length if limit is None else min(length, limit))
        data = _materialized(part)
        if op == "write":
            content = model.write_at(content, offset, part)
            padded = expected + bytes(max(0, offset - len(expected)))
            expected = padded[:offset] + data + padded[offset + len(data):]
        elif op == "window":
            content = model.window(content, offset, length)
            expected = expected[offset:offset + length]
        elif op == "concat":
            content = model.concat(content, part)
            expected += data
        else:
            content = model.resize(content, offset)
            expected = expected[:offset] + bytes(max(0, offset - len(expected)))
        assert content.size == len(expected)
        assert _materialized(content) == expected
        if expected:
            start = offset % len(expected)
            assert model.read(content, start, length) == expected[start:start + length]


def test_equal_record_keys_hold_equal_bytes():
    content = model.of_source(model.Repeat(b"abc\n"), 1 << 20)
    assert model.record_key(content, 0, 4096) == model.record_key(content, 4096, 4096)
    assert model.record_key(content, 0, 4096) != model.record_key(content, 1, 4096)
    seq = model.of_source(SeqText(1, 1, 100_000))
    assert model.record_key(seq, 0, 4096) != model.record_key(seq, 4096, 4096)
    for key in (model.record_key(content, 8192, 4096), model.record_key(seq, 4096, 4096)):
        data = b"".join(model.source_bytes(s, start, n) for s, start, n in key)
        assert len(data) == 4096
    assert b"".join(model.source_bytes(s, a, n)
                    for s, a, n in model.record_key(content, 8194, 100)) == \
        model.read(content, 8194, 100)


def test_seq_with_a_format_puts_its_text_around_each_number():
    text = SeqText(95, 1, 1003, prefix="zfs pool ", suffix=" récord")
    whole = "".join(f"zfs pool {n} récord\n" for n in range(95, 1004)).encode()
    content = model.of_source(text)
    assert content.size == len(whole)
    for start in range(0, len(whole), 997):
        assert model.read(content, start, 1500) == whole[start:start + 1500]
