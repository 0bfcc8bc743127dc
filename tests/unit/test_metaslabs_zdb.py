"""Metaslabs for lesson 3: sizing, histograms, fragmentation, the segment weight and the
allocators (module/zfs/metaslab.c, vdev.c, space_map.c, zio.c), and zdb -m's format
(cmd/zdb/zdb.c), checked against lines of the 2.1.11 recording."""

import random
from pathlib import Path

import pytest

from labsim.format import zdb as fmt
from labsim.format.numbers import nicenum
from labsim.zfs.labels import leaf_asize
from labsim.zfs.metaslab import (
    SPA_ALLOCATORS,
    Metaslab,
    allocator_for,
    cityhash4,
    histogram_fragmentation,
    metaslab_count,
    metaslab_shift,
    segment_weight,
    segments_fragmentation,
)
from labsim.zfs.metaslab_group import GroupAllocators, activation_order, group_allocate
from labsim.zfs.versions import (
    FRAG_TABLE_TO_16M,
    FRAG_TABLE_TO_512M,
    ZFS_2_1,
    GiB,
    KiB,
    MiB,
    get_version,
)

RECORDING = (Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real" / "2.1.11"
             / "03-metaslabs.txt").read_text()


@pytest.mark.parametrize(
    ("size", "count", "ms_size"),
    [
        # vdev files as the lab makes them: 4.5 MiB of labels come off first.
        (leaf_asize(1 * GiB), 15, 64 * MiB),
        (leaf_asize(4 * GiB), 15, 256 * MiB),
        # allocatable sizes (reference notes, part C2)
        (100 * GiB, 200, 512 * MiB),
        (1000 * GiB, 125, 8 * GiB),
        (4000 * GiB, 250, 16 * GiB),
        (18000 * GiB, 1125, 16 * GiB),
    ],
)
def test_metaslab_count_and_size(size, count, ms_size):
    assert metaslab_count(size, ZFS_2_1) == count
    assert 1 << metaslab_shift(size, ZFS_2_1) == ms_size


def test_histogram_buckets_are_powers_of_two_from_ashift():
    ms = Metaslab.empty(0, 64 * MiB)
    ms.allocate(64 * MiB - 32 * MiB - 12 * KiB)  # leaves 32 MiB + 12 KiB at the end
    ms.release(0, 4 * KiB)
    ms.release(8 * KiB, 8 * KiB)
    hist = ms.histogram(12)
    assert hist[0] == 1  # 4K: bucket 12 - 12
    assert hist[1] == 1  # 8K
    assert hist[25 - 12] == 1  # 32 MiB + 12 KiB
    assert sum(hist) == 3


def test_fragmentation_from_the_recorded_histograms():
    # zdb -mm in the recording: metaslab 2 of vdev 0, "fragmentation 1"
    hist = [0] * 32
    hist[0], hist[1], hist[3], hist[21 - 12], hist[25 - 12] = 4, 1, 1, 1, 1
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_16M) == 1
    # metaslab 0: "fragmentation 0"
    hist = [0] * 32
    hist[0], hist[1], hist[2], hist[13] = 7, 1, 1, 1
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_16M) == 0


def test_fragmentation_of_only_small_holes_is_high():
    hist = [0] * 32
    hist[0] = 100  # 100 holes of 4 KiB: zfs_frag_table says 95
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_16M) == 95
    hist[4] = 100  # as many of 64 KiB (60): space-weighted
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_16M) == (
        (100 * 4 * 95 + 100 * 64 * 60) // (100 * 68))


def test_2_3_1_counts_runs_up_to_512m_as_fragmented():
    # zfs_frag_table from zfs-2.3.1: one free run of 32-64 MiB weighs 12 (at ashift 12,
    # bucket 25 - 12); the table up to 2.3.0 weighs it 0.
    hist = [0] * 32
    hist[25 - 12] = 1
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_16M) == 0
    assert histogram_fragmentation(hist, 12, FRAG_TABLE_TO_512M) == 12


@pytest.mark.parametrize("ashift", [9, 12, 13])
@pytest.mark.parametrize("frag_table", [FRAG_TABLE_TO_16M, FRAG_TABLE_TO_512M])
def test_fragmentation_segment_by_segment_is_the_histograms(ashift, frag_table):
    # Metaslab.fragmentation() sums the free segments one by one; the histogram's buckets
    # (runs beyond the last counted there as several) must give the same percent.
    rng = random.Random(ashift)
    for _ in range(2000):
        lengths = [rng.choice([rng.randrange(1, 1 << rng.randrange(1, 50)),
                               (1 << rng.randrange(9, 50)) * rng.randrange(1, 4)])
                   for _ in range(rng.randrange(0, 12))]
        ms = Metaslab(0, 1 << 50, [0] * len(lengths), lengths)
        assert segments_fragmentation(lengths, ashift, frag_table) == \
            histogram_fragmentation(ms.histogram(ashift), ashift, frag_table), lengths


def test_a_metaslab_never_written_is_not_fragmented():
    assert Metaslab.empty(0, 64 * MiB).fragmentation(12, FRAG_TABLE_TO_512M) == 0


def test_segment_weight_prefers_never_written_metaslabs():
    fresh = segment_weight(64 * MiB, 64 * MiB, [64 * MiB], 12)
    used = segment_weight(64 * MiB, 64 * MiB - 4 * KiB, [64 * MiB - 4 * KiB], 12)
    assert fresh == (26, 1)
    assert used == (25, 1)
    assert fresh > used


def test_activation_order_is_by_weight_then_lowest_offset():
    metaslabs = [Metaslab.empty(i << 26, 1 << 26) for i in range(4)]
    metaslabs[0].allocate(4 * KiB)
    assert activation_order(metaslabs, 12) == [1, 2, 3, 0]


def test_cityhash4_spreads_objects_over_four_allocators():
    assert cityhash4(0, 0, 0, 0) == cityhash4(0, 0, 0, 0)
    chosen = {allocator_for(54, obj, 0, 0) for obj in range(2, 40)}
    assert chosen == set(range(SPA_ALLOCATORS))
    # one region of 2^20 blocks: every block of a 96 MiB file uses one allocator
    assert len({allocator_for(54, 2, 0, blkid) for blkid in range(768)}) == 1


def test_each_allocator_fills_its_own_metaslab():
    metaslabs = [Metaslab.empty(i << 26, 1 << 26) for i in range(15)]
    group = GroupAllocators()
    group_allocate(metaslabs, group, 0, 4 * MiB, 128 * KiB, 12)
    group_allocate(metaslabs, group, 1, 4 * MiB, 128 * KiB, 12)
    assert [ms.alloc for ms in metaslabs[:3]] == [4 * MiB, 4 * MiB, 0]


def test_a_fresh_metaslab_is_given_up_at_about_half_full():
    metaslabs = [Metaslab.empty(i << 26, 1 << 26) for i in range(4)]
    group = GroupAllocators()
    group_allocate(metaslabs, group, 0, 40 * MiB, 128 * KiB, 12)
    # 64 MiB activated at bucket 26; given up below 2^25 free (bucket 24)
    assert 32 * MiB < metaslabs[0].alloc <= 36 * MiB
    assert metaslabs[0].alloc + metaslabs[1].alloc == 40 * MiB


def test_blocks_are_never_split_over_holes():
    ms = Metaslab.empty(0, 64 * MiB)
    ms.allocate(64 * MiB)
    ms.release(0, 4 * KiB)
    ms.release(1 * MiB, 256 * KiB)
    pieces = ms.allocate(128 * KiB, 128 * KiB)
    assert pieces == [(1 * MiB, 128 * KiB)]


# ---------------------------------------------------------------- zdb format


def test_free_column_64M_versus_64_0M():
    # zfs_nicenum(): an exact multiple prints without decimals; 64 MiB less 40 KiB
    # needs one decimal to fit in five characters.
    assert nicenum(64 * MiB) == "64M"
    assert nicenum(64 * MiB - 0xA000) == "64.0M"
    assert nicenum(64 * MiB - 0x1EAA000) == "33.3M"


def _recorded(line_start: str) -> str:
    return next(line for line in RECORDING.splitlines() if line.startswith(line_start))


def test_metaslab_line_as_recorded():
    ms = fmt.ZdbMetaslab(id=8, start=0x20000000, size=64 * MiB, sm_object=12,
                         sm_alloc=0x1EAA000, sm_length=0x40, unflushed_txg=40)
    first = fmt.metaslab_lines(ms, False).splitlines()[0]
    assert first == _recorded("\tmetaslab      8   offset     20000000   spacemap     12")
    never = fmt.ZdbMetaslab(id=13, start=0x34000000, size=64 * MiB, sm_object=0,
                            sm_alloc=0, sm_length=0, unflushed_txg=0)
    assert fmt.metaslab_lines(never, False) == (
        "\tmetaslab     13   offset     34000000   spacemap      0   free      64M\n"
        "\tFlush data:\n\tunflushed txg=0\n\n")


def test_vdev_header_as_recorded():
    vdev = fmt.ZdbVdev(0, 77, [None] * 15)
    lines = fmt.vdev_header(vdev).splitlines()
    recorded = RECORDING.splitlines()
    start = recorded.index("\tvdev          0      ms_unflushed_phys object 77")
    assert lines == recorded[start:start + 3]


def test_histogram_as_recorded():
    hist = [0] * 32
    hist[0], hist[1], hist[2], hist[13] = 7, 1, 1, 1
    text = fmt.histogram_lines(hist, 12)
    recorded = RECORDING.split("\tOn-disk histogram:\t\tfragmentation 0\n", 1)[1]
    assert recorded.startswith(text)
    assert text.splitlines()[3] == "\t\t\t 15:      0 "


def test_negative_smp_alloc_prints_as_twos_complement():
    assert "smp_alloc = 0xffffffffffffa000" in fmt.space_map_lines(138, 0x7E8, -0x6000)


def test_log_space_map_sections_as_recorded():
    pool = fmt.ZdbPool([], [fmt.ZdbLogSpaceMap(88, 19, 0x5A0, 0x6000, 66, 66)])
    text = fmt.format_zdb_metaslabs(pool)
    block = RECORDING.split("\n\nLog Space Maps in Pool:\n", 1)[1].split("$ ", 1)[0]
    assert text.endswith("\nLog Space Maps in Pool:\n" + block)


def test_cannot_open_as_recorded():
    assert fmt.cannot_open("lab3") == "zdb: can't open 'lab3': No such file or directory"


# ---------------------------------------------------------------- the lesson's widget


def test_widget_gives_strict_json_at_defaults_and_extremes():
    import json

    from labsim.scenarios import get_scenario

    scenario = get_scenario("metaslabs")
    for params in ({}, {"vdev_gib": 16384, "pattern": "small", "fill_percent": 95}):
        result = scenario.run(scenario.read(params))
        json.dumps(result.as_json(), allow_nan=False)
        assert result.figure["data"] and result.summary and result.transcript


def test_widget_explains_the_sizing_rule():
    from labsim.scenarios.metaslabs import sizing_rule
    from labsim.zfs.versions import DEFAULT_VERSION as v

    assert "about 16" in sizing_rule(leaf_asize(1 * GiB), v)
    assert "16 to 200" in sizing_rule(100 * GiB, v)
    assert "capped at 16 GiB" in sizing_rule(leaf_asize(16384 * GiB), v)


def test_vdev_header_of_2_3_names_the_metaslab_shift():
    """zdb of 2.3.6 and later (print_vdev_metaslab_header(), 411249498e) names each
    vdev's metaslab shift; labsim's 2.3 prints the lines lab 3's 2.3.9 recording holds."""
    real = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real"
    recorded = (real / "2.3.9" / "03-metaslabs.txt").read_text().splitlines()
    start = recorded.index("\tvdev          0\t  metaslab shift   26"
                           "   ms_unflushed_phys object 142")
    count = int(recorded[start + 1].split()[1])
    vdev = fmt.ZdbVdev(0, 142, [None] * count, ms_shift=26)
    assert fmt.vdev_header(vdev, prints_ms_shift=True).splitlines() == recorded[start:start + 3]
    assert get_version("2.3").zdb_prints_metaslab_shift
    assert not get_version("2.2").zdb_prints_metaslab_shift
    assert not ZFS_2_1.zdb_prints_metaslab_shift
