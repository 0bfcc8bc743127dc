"""Lesson 6's widget: snapshots of a dataset, a clone, and what destroying a range frees."""

import json

from labsim.scenarios import get_scenario, snapshots
from labsim.scenarios.base import description, simulate


def test_registered_and_described():
    assert get_scenario("snapshots") is snapshots.SCENARIO
    described = description(snapshots.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in snapshots.CONTROLS}


def groups(result: dict) -> dict[str, int]:
    return {t["name"]: sum(x is not None for x in t["x"]) for t in result["figure"]["data"]}


def test_defaults_give_strict_json_with_every_group_in_the_legend():
    result = simulate(snapshots.SCENARIO, description(snapshots.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert [t["name"] for t in result["figure"]["data"]] == [g for g, _ in snapshots.GROUPS]
    assert "zfs clone tank/data@tue tank/work" in result["transcript"]
    assert "would reclaim" in result["summary"]
    ticks = result["figure"]["layout"]["xaxis"]["ticktext"]
    assert ticks == ["@mon", "@tue", "@wed", "@thu", "head", "clone"]


def test_without_changes_snapshots_hold_nothing_of_their_own():
    result = simulate(snapshots.SCENARIO, {"rewrite_mib": 0, "new_mib": 0, "delete_mib": 0,
                            "clone_of": "none"})
    counts = groups(result)
    assert counts["still in the head"] == 4  # the four files, held all along
    assert counts["only in one snapshot (its USED)"] == 0
    assert "would reclaim 0B" in result["summary"] or "reclaim 0" in result["summary"]


def test_a_range_holding_the_clone_origin_is_refused():
    result = simulate(snapshots.SCENARIO,
                      {"clone_of": "tue", "range_from": "mon", "range_to": "wed"})
    assert "refused" in result["summary"]
    assert "snapshot has dependent clones" in result["transcript"]


def test_rewrites_after_each_snapshot_leave_each_one_unique_data():
    result = simulate(snapshots.SCENARIO, {"rewrite_mib": 4, "new_mib": 0, "clone_of": "none",
                            "range_from": "mon", "range_to": "mon"})
    assert groups(result)["freed by destroying the range"] == 4  # @mon's four old files
    assert "@mon 4.09M" in result["summary"]  # four 1 MiB files and their metadata


def test_out_of_range_choices_fall_back_with_a_note():
    result = simulate(snapshots.SCENARIO, {"days": 2, "clone_of": "sat", "range_from": "fri"})
    assert "no clone" in result["summary"] and "@fri is not taken" in result["summary"]
