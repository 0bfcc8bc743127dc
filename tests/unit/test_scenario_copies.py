"""Lesson 8's widget: garbage over part of one disk, files lost with copies=1, copies=2
and a mirror, against the published 0.1 % / 1 % / 10 % results."""

import json

from labsim.scenarios import copies, get_scenario


def test_registered_and_described():
    assert get_scenario("copies") is copies
    described = copies.describe()
    assert set(described["defaults"]) == {c["name"] for c in copies.CONTROLS}


def _lost(result: dict) -> dict[str, list[str]]:
    return {t["name"].split(" (")[0]: t["text"] for t in result["figure"]["data"]
            if t["type"] == "bar"}


def test_defaults_give_strict_json_and_the_published_shape():
    result = copies.run(copies.describe()["defaults"])
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
    a = copies.run({"permille": 20, "seed": 3})
    b = copies.run({"permille": 20, "seed": 3})
    assert a["summary"] == b["summary"]
    assert a["figure"]["data"][0]["x"] == ["0.1 %", "1 %", "2 %", "10 %"]


def test_a_bad_parameter_falls_back_with_a_note():
    result = copies.run({"permille": "lots"})
    assert "not one of its options" in result["summary"]
