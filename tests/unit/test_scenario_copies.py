"""Lesson 8's widget: garbage over part of one disk, files lost with copies=1, copies=2
and a mirror, against the published 0.1 % / 1 % / 10 % results."""

import json
import pickle
import random

import pytest

from labsim.scenarios import copies, get_scenario
from labsim.scenarios.base import description, simulate


def test_registered_and_described():
    assert get_scenario("copies") is copies.SCENARIO
    described = description(copies.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in copies.CONTROLS}


def _lost(result: dict) -> dict[str, list[str]]:
    return {t["name"].split(" (")[0]: t["text"] for t in result["figure"]["data"]
            if t["type"] == "bar"}


def test_defaults_give_strict_json_and_the_published_shape():
    result = simulate(copies.SCENARIO, description(copies.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert result["figure"]["data"][0]["x"] == ["0.1 %", "1 %", "10 %"]
    lost = {k: [int(t.split("/")[0]) for t in v] for k, v in _lost(result).items()}
    # the mirror loses nothing; copies=2 loses few at 0.1 %, some at 1 %, nearly all at 10 %
    assert lost["mirror"] == [0, 0, 0]
    low, mid, high = lost["copies=2"]
    assert low <= 10 and 30 <= mid <= 120 and high >= 360
    # copies=1 loses far more at every level (the post: 93 of 800 at 0.1 %)
    one = lost["copies=1"]
    assert 60 <= one[0] <= 130 and one[2] == 800
    assert all(a / 800 >= b / 400 for a, b in zip(one, lost["copies=2"], strict=True))
    assert one[0] / 800 > 10 * lost["copies=2"][0] / 400
    assert "zpool status test" in result["transcript"]
    assert "ZFS-8000-8A" in result["transcript"]


def test_the_same_seed_gives_the_same_answer_and_another_level_is_added():
    a = simulate(copies.SCENARIO, {"permille": 20, "seed": 3})
    b = simulate(copies.SCENARIO, {"permille": 20, "seed": 3})
    assert a["summary"] == b["summary"]
    assert a["figure"]["data"][0]["x"] == ["0.1 %", "1 %", "2 %", "10 %"]


def test_a_bad_parameter_falls_back_with_a_note():
    result = simulate(copies.SCENARIO, {"permille": "lots"})
    assert "not one of its options" in result["summary"]


def test_fewer_picks_are_a_prefix_of_more_and_are_randranges_numbers():
    more = copies.garbage_picks(5000, 11)
    assert copies.garbage_picks(1310, 11) == more[:1310]
    rng = random.Random(11)
    assert more == [rng.randrange(copies.DISK_BLOCKS - 100) for _ in range(5000)]


@pytest.mark.parametrize("layout", copies.LAYOUTS)
def test_files_lost_from_first_hits_are_what_a_full_scrub_loses(layout):
    # the chart's shortcut against scan.scrub() on the pool itself, block by block
    levels = [0.1, 1.0, 10.0]
    counts = [copies.garbage_count(level) for level in levels]
    for seed in (7, 23):
        picks = copies.garbage_picks(max(counts), seed)
        fast = copies.files_lost(layout, copies.first_hits(picks), counts)
        for count, expected in zip(counts, fast, strict=True):
            session, _ = pickle.loads(copies.layout(layout).pickled)  # noqa: S301
            lost, _ = copies.damage_and_scrub(session, copies.garbage_ranges(picks[:count]))
            assert lost == expected, (layout, seed, count)


def test_a_run_leaves_the_built_pools_as_they_were():
    before = copies.layout("copies=2").pickled
    first = simulate(copies.SCENARIO, {"permille": 50, "seed": 9})
    assert copies.layout("copies=2").pickled is before
    again = simulate(copies.SCENARIO, {"permille": 50, "seed": 9})
    assert first["transcript"] == again["transcript"]
    assert "garbage over 6553 random 8K blocks" in first["transcript"]


def test_the_scrubbed_pool_is_put_back_as_built_after_every_run():
    # copies.scrubbed_pool() is unpickled once and reused: each run must leave it exactly
    # as a fresh copy of the built pool is, whatever the damage and the scrub changed
    fresh, _ = pickle.loads(copies.layout("copies=2").pickled)  # noqa: S301
    expected = pickle.dumps(fresh)
    for permille, seed in ((1, 7), (200, 7), (20, 23), (100, 50)):
        simulate(copies.SCENARIO, {"permille": permille, "seed": seed})
        assert pickle.dumps(copies.scrubbed_pool().session) == expected, (permille, seed)


def test_the_reused_pool_prints_what_a_fresh_copy_prints():
    picks = copies.garbage_picks(copies.garbage_count(5.0), 11)
    ranges = copies.garbage_ranges(picks)
    session, pairs = pickle.loads(copies.layout("copies=2").pickled)  # noqa: S301
    copies.damage_and_scrub(session, ranges)
    status = session.run("zpool status test")
    for _ in range(2):  # the second time from the pool put back
        shown_pairs, shown_status = copies.scrub_transcript(ranges)
        assert shown_status == status
        assert shown_pairs == pairs
    assert "errors: " in status.stdout and "0 data errors" not in status.stdout
