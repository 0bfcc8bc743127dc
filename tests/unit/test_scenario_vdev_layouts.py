"""Lesson 2's widget, the vdev-layouts scenario: its controls, its choice of layouts,
what it reports, and that a run stays fast enough to follow a slider."""

import json

from labsim.scenarios import get_scenario, vdev_layouts
from labsim.scenarios.base import description, simulate
from labsim.scenarios.vdev_layouts import auto_raidz_width, layouts_for


def test_registered_under_its_lesson_name():
    assert get_scenario("vdev-layouts") is vdev_layouts.SCENARIO
    described = description(vdev_layouts.SCENARIO)
    assert described["defaults"] == {c["name"]: c["default"] for c in described["controls"]}
    for control in described["controls"]:
        assert control["kind"] in {"range", "number", "checkbox", "select"}
        if control["kind"] == "select":
            values = [o[0] if isinstance(o, list) else o for o in control["options"]]
            assert control["default"] in values


def test_default_run():
    result = simulate(vdev_layouts.SCENARIO, description(vdev_layouts.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    labels = ["stripe 12×1", "mirror 6×2", "mirror 4×3", "raidz1 2×6", "raidz2 2×6",
              "raidz3 2×6"]
    assert result["figure"]["data"][0]["x"] == [x.replace(" ", "<br>") for x in labels]
    lines = result["summary"].splitlines()
    assert [line.split(":")[0] for line in lines[1:]] == labels
    assert "survives 2 failed disks: 10/11 = 90.91%" in lines[2]  # 6 two-way mirrors
    assert "survives 2 failed disks: 6/11 = 54.55%" in lines[4]  # 2 raidz1 of 6
    assert "random read 2,400 and write 1,200 IOPS" in lines[2]
    assert "resilver 2.8 h, reading 10.0 TB" in lines[5]
    assert "no resilver possible" in lines[1]
    assert "<" not in result["summary"] and "&" not in result["summary"]
    transcript = result["transcript"].splitlines()
    assert ("$ zpool create -o ashift=12 tank raidz2 sda sdb sdc sdd sde sdf "
            "raidz2 sdg sdh sdi sdj sdk sdl") in transcript


def test_auto_raidz_width():
    assert [auto_raidz_width(12, p) for p in (1, 2, 3)] == [6, 6, 6]
    assert [auto_raidz_width(8, p) for p in (1, 2, 3)] == [8, 8, 8]  # a tie: the wider
    assert [auto_raidz_width(10, p) for p in (1, 2, 3)] == [5, 5, 5]
    assert auto_raidz_width(13, 2) == 13  # a prime: one group of all disks
    assert auto_raidz_width(4, 3) is None
    assert auto_raidz_width(24, 1) == 6


def test_layouts_that_do_not_fit_are_listed_with_the_reason():
    pools, missing = layouts_for(9, 4)
    assert [p.label for p in pools] == ["stripe 9×1", "mirror 3×3"]
    assert missing[0] == "9 disks do not split into 2-way mirrors (needs a multiple of 2)"
    assert len(missing) == 4
    result = simulate(vdev_layouts.SCENARIO, {"disks": 9, "raidz_width": 4})
    assert "Not shown: 9 disks do not split into raidz1 vdevs of 4 disks" in result["summary"]


def test_unusable_values_fall_back_with_a_note():
    result = simulate(vdev_layouts.SCENARIO, {"disks": "many", "failures": 9, "block_kib": 5,
                               "fill_percent": "<b>", "raidz_width": "6", "extra": 1})
    summary = result["summary"]
    assert "Number of disks: 'many' is not a number; using 12" in summary
    assert "Disks that fail at the same time: 9 is outside 0 to 4" in summary
    assert "Block size (recordsize or volblocksize): 5 is not one of the choices" in summary
    assert "<" not in summary
    assert "raidz2 2×6" in summary  # "6" as text is the choice 6
    assert simulate(vdev_layouts.SCENARIO, [1, 2])["summary"].startswith("12 disks")
