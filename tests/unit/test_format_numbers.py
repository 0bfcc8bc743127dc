"""Exact-string tests for labsim.format.numbers (zfs_nicenum and gnulib human_readable).

Vectors are real outputs where one was found; each cites where it came from.
"GitHub corpus id N" refers to a public document found through the project's code
search (the transcript quoted in that document).
"""

from __future__ import annotations

import pytest

from labsim.format import numbers as num

GiB = 1 << 30
TiB = 1 << 40


# openzfs/zfs PR #11202 (Nov 2020, master before 2.1.0): the same pool printed by
# `zpool list -p` and `zpool list` in one session.
@pytest.mark.parametrize(("raw", "human"), [
    (489626271744, "456G"),
    (12491923456, "11.6G"),
    (477134348288, "444G"),
    (12544172032, "11.7G"),
    (477082099712, "444G"),
])
def test_nicenum_matches_zpool_list_p_pairs(raw, human):
    assert num.nicenum(raw) == human


@pytest.mark.parametrize(("value", "text"), [
    (0, "0"),          # print_one_column(): ALLOC of an empty vdev (PR #13106 sample)
    (512, "512"),      # below 1K: no unit for zfs_nicenum()
    (1024, "1K"),      # exact multiples print without decimals (zutil_nicenum.c)
    (10239, "10.0K"),  # the example in zutil_nicenum.c: "10239 ... we want 10.0K"
    (73728, "72K"),    # issue #12510 (2.1.0): mirror ALLOC "72K"
    (1216348, "1.16M"),  # issue #12510: pool ALLOC "1.16M"
    (int(5.39 * TiB), "5.39T"),  # issue #12510: mirror SIZE "5.39T"
    (326 * TiB, "326T"),  # issue #12510: pool SIZE "326T"
    (2**64 - 1, "16.0E"),
])
def test_nicenum(value, text):
    assert num.nicenum(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (0, "0B"),        # zfs list USED of a snapshot, ubuntu/zsys issue #231 (0.8): "0B"
    (98304, "96K"),   # same listing: REFER "96K"
    (64 << 20, "64M"),  # SPA_MINDEVSIZE in "minimum size (64M)"; EXPANDSZ in #13123
    (131072, "128K"),  # recordsize default in zfs get output
    (int(2.45 * GiB), "2.45G"),  # "resilvered 2.45G" (GitHub corpus id 18054797516)
])
def test_nicebytes(value, text):
    assert num.nicebytes(value) == text


def test_nicenum_raw_and_time_formats():
    assert num.nicenum_format(12544172032, num.NICENUM_RAW) == "12544172032"
    assert num.nicenum_format(0, num.NICENUM_RAWTIME) == "-"
    assert num.nicenum_format(0, num.NICENUM_TIME) == "-"
    assert num.nicenum_format(1500, num.NICENUM_TIME) == "1us"  # floor(), not round()


@pytest.mark.parametrize(("permyriad", "text"), [
    (0, "0.00%"),     # issue #12510 (2.1.0): mirror CAP "0.00%"
    (8, "0.08%"),     # PR #11899: raidz1 CAP "0.08%"
    (181, "1.81%"),   # PR #11899: ada0p3 CAP "1.81%"
    (1193, "11.9%"),  # issue #13123 (2.1.2): mirror-0 CAP "11.9%"
    (2791, "27.9%"),  # issue #13123: raidz1-1 CAP "27.9%"
    (10000, "100%"),
])
def test_vdev_capacity(permyriad, text):
    assert num.vdev_capacity(permyriad) == text


def test_vdev_capacity_parsable_is_whole_percent():
    # print_one_column(): "%llu" of value / 100 with -p; sebhildebrandt/systeminformation
    # issue #802 (2023): `zpool list -v -H -P -p` shows 39 for the mirror.
    assert num.vdev_capacity(3912, parsable=True) == "39"


def test_pool_percent_fragmentation_and_dedup():
    # PR #11202: "0%     2%  1.00x" and with -p "0      2   1.00"
    assert num.fragmentation(0) == "0%"
    assert num.fragmentation(0, parsable=True) == "0"
    assert num.fragmentation(None) == "-"
    assert num.nicenum_percent(2) == "2%"
    assert num.nicenum_percent(2, parsable=True) == "2"
    assert num.dedup_ratio(1.0) == "1.00x"
    assert num.dedup_ratio(1.0, parsable=True) == "1.00"
    # otus homework transcript (GitHub corpus id 52386377674): compressratio 1.82x, 3.66x
    assert num.dedup_ratio(1.82) == "1.82x"
    assert num.dedup_ratio(3.66) == "3.66x"


@pytest.mark.parametrize(("seconds", "text"), [
    (90, "00:01:30"),   # "scrub repaired 0B in 00:01:30" (GitHub corpus id 52823387771)
    (473, "00:07:53"),  # "resilvered 2.45G in 00:07:53" (GitHub corpus id 18054797516)
    (86400 + 3723, "1 days 01:02:03"),  # secs_to_dhms(): "%llu days %02llu:..."
])
def test_secs_to_dhms(seconds, text):
    assert num.secs_to_dhms(seconds) == text


# dd's size pair, from real `dd` transcripts (coreutils >= 8.24 output format)
@pytest.mark.parametrize(("n", "si", "iec"), [
    (1073741824, "1.1 GB", "1.0 GiB"),  # many transcripts, e.g. GitHub corpus id 29265378615
    (10485760000, "10 GB", "9.8 GiB"),  # "10485760000 bytes (10 GB, 9." (corpus id 4111821190)
    (10485760, "10 MB", "10 MiB"),
    (1048576, "1.0 MB", "1.0 MiB"),
    (1000, "1.0 kB", "1000 B"),  # SI has a prefix, IEC does not
    (512, "512 B", "512 B"),
    (0, "0 B", "0 B"),
])
def test_dd_human_sizes(n, si, iec):
    assert num.human_si_bytes(n) == si
    assert num.human_iec_bytes(n) == iec


# Rates from real transcripts of `dd ... bs=1M count=1024` (1073741824 bytes).  The
# elapsed time printed is %g of the real nanoseconds, so these use the printed value.
@pytest.mark.parametrize(("seconds", "rate"), [
    (23.5468, "45.6 MB/s"),   # GitHub corpus id 29265378615
    (45.0649, "23.8 MB/s"),   # GitHub corpus id 10116556920
    (16.6154, "64.6 MB/s"),   # GitHub corpus id 21427871176
    (13.2382, "81.1 MB/s"),   # GitHub corpus id 71142364667
    (5.34917, "201 MB/s"),    # GitHub corpus id 61028808076
    (1.1743, "914 MB/s"),     # GitHub corpus id 42956110667
    (9.65657, "111 MB/s"),    # GitHub corpus id 3343530916
    (0.0580986, "18.5 GB/s"),  # GitHub corpus id 17954289270
])
def test_dd_rate(seconds, rate):
    assert num.dd_rate(1073741824, round(seconds * 1e9)) == rate


def test_dd_rate_edges():
    assert num.dd_rate(0, 123_000) == "0.0 kB/s"  # zero bytes: autoscale still picks kB
    assert num.dd_rate(5, 0) == "Infinity B/s"


@pytest.mark.parametrize(("n", "text"), [
    (0, "0"), (512, "512"), (1025, "1.1K"),  # ls -h rounds up (human_ceiling)
    (67108864, "64M"), (1073741824, "1.0G"), (1073741825, "1.1G"),
])
def test_ls_human_sizes(n, text):
    opts = num.HUMAN_AUTOSCALE | num.HUMAN_SI | num.HUMAN_BASE_1024
    assert num.human_readable(n, opts) == text
