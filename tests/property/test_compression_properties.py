"""Properties of the compression model: what a block is stored as never exceeds the
block, rounds to whole sectors, saves at least 1/8 when it saves anything, and more
compressible data never takes more room."""

from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.zfs.compression import DataPattern, block_psize, record_runs
from labsim.zfs.records import file_space

KiB = 1 << 10
recordsizes = st.sampled_from([4 * KiB, 8 * KiB, 16 * KiB, 64 * KiB, 128 * KiB, 1024 * KiB])
ashifts = st.sampled_from([9, 12, 13])
percents = st.integers(min_value=0, max_value=100)
chunks = st.sampled_from([512, 4 * KiB, 8 * KiB])


@settings(max_examples=60, deadline=None)
@given(recordsizes, ashifts, percents, chunks)
def test_psize_is_at_most_the_block_and_whole_sectors(recordsize, ashift, percent, chunk):
    runs = record_runs(DataPattern("fio", percent, chunk), 0, recordsize, recordsize)
    psize = block_psize(runs, "lz4", ashift)
    assert 0 <= psize <= recordsize
    if 0 < psize < recordsize:
        assert psize % (1 << ashift) == 0
        assert psize <= recordsize - recordsize // 8


@settings(max_examples=40, deadline=None)
@given(recordsizes, ashifts, st.integers(min_value=0, max_value=99), chunks)
def test_more_compressible_never_takes_more(recordsize, ashift, percent, chunk):
    def psize(p: int) -> int:
        runs = record_runs(DataPattern("fio", p, chunk), 0, recordsize, recordsize)
        return block_psize(runs, "lz4", ashift)

    assert psize(percent + 1) <= psize(percent)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=64 << 20), recordsizes, ashifts, percents)
def test_ratio_at_least_one_and_physical_within_logical(size, recordsize, ashift, percent):
    pattern = DataPattern("fio", percent, 4 * KiB)
    logical, physical, allocated = file_space(size, recordsize, pattern, "lz4", ashift)
    off_logical, off_physical, _ = file_space(size, recordsize, pattern, "off", ashift)
    assert physical <= logical
    assert physical <= off_physical
    assert allocated >= physical
    if physical:
        assert logical / physical >= 1
