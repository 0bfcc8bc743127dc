"""Resuming ZFS's LZ4 from a saved sequence boundary gives the sizes of compressing the
whole input (labsim.zfs.lz4_zfs.lz4_size_resumed), for inputs that grow at their end as a
micro ZAP does when it gains entries, and for inputs whose tail changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.zfs.lz4_zfs import LZ4_64KLIMIT, lz4_size, lz4_size_resumed

# Chunks from a small alphabet, so that matches are common, and runs of zeros, as a
# directory's entries and padding are.
chunk = st.one_of(st.binary(min_size=1, max_size=80),
                  st.builds(lambda n: bytes(n), st.integers(1, 300)),
                  st.sampled_from([b"file-", b"\x80\x00\x00", b"abcdabcd", bytes(64)]))


@settings(max_examples=300, deadline=None)
@given(st.lists(chunk, min_size=1, max_size=40), st.integers(0, 600))
def test_resumed_equals_whole_for_growing_inputs(chunks, tail):
    state = None
    data = b""
    for piece in chunks:
        keep = len(data)  # bytes from here on may differ next time
        block = data + piece + bytes(tail)
        size, state = lz4_size_resumed(block, len(block), state, keep + len(piece))
        assert size == lz4_size(block, len(block))
        data += piece


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=2000), st.binary(min_size=0, max_size=400),
       st.binary(min_size=0, max_size=400))
def test_a_state_is_only_used_for_the_bytes_it_read(prefix, tail_a, tail_b):
    first = prefix + tail_a
    _, state = lz4_size_resumed(first, len(first), None, len(prefix))
    second = prefix + tail_b
    size, _ = lz4_size_resumed(second, len(second), state, len(second))
    assert size == lz4_size(second, len(second))


def test_a_state_for_small_blocks_is_not_used_past_64k():
    entry = bytes(range(64))
    small = entry * 1000
    _, state = lz4_size_resumed(small, len(small), None, len(small))
    assert state is not None and state.small
    large = small + bytes(LZ4_64KLIMIT)
    size, _ = lz4_size_resumed(large, len(large), state, len(large))
    assert size == lz4_size(large, len(large))


def test_a_too_small_output_limit_gives_zero_either_way():
    noise = bytes((i * 7919 + (i >> 3) * 104729) % 251 for i in range(4000))
    _, state = lz4_size_resumed(noise[:3000], 10_000, None, 3000)
    assert lz4_size_resumed(noise, 100, state, 4000)[0] == lz4_size(noise, 100) == 0
