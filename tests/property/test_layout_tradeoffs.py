"""Invariants of the layout trade-offs (labsim.zfs.tradeoffs) and of the vdev-layouts
scenario, for any layout and any parameters."""

import json
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.scenarios import SCENARIOS, vdev_layouts
from labsim.scenarios.base import simulate
from labsim.zfs.tradeoffs import mirrors, raidz_groups, stripe, survival_probability


@st.composite
def pool_layouts(draw, max_disks=30):
    kind = draw(st.sampled_from(["stripe", "mirror", "raidz"]))
    if kind == "stripe":
        return stripe(draw(st.integers(min_value=1, max_value=max_disks)))
    if kind == "mirror":
        width = draw(st.integers(min_value=2, max_value=4))
        count = draw(st.integers(min_value=1, max_value=max_disks // width))
        return mirrors(width * count, width)
    nparity = draw(st.integers(min_value=1, max_value=3))
    width = draw(st.integers(min_value=nparity + 1, max_value=12))
    count = draw(st.integers(min_value=1, max_value=max(1, max_disks // width)))
    return raidz_groups(width * count, width, nparity)


@given(pool_layouts())
def test_survival_is_a_probability_that_never_grows_with_more_failures(pool):
    odds = [survival_probability(pool, k) for k in range(pool.disks + 1)]
    assert all(0 <= p <= 1 for p in odds)
    assert all(a >= b for a, b in zip(odds, odds[1:], strict=False))
    # Up to each vdev's tolerance nothing can be lost; past the sum of all tolerances,
    # some vdev must have lost more than it tolerates.
    assert all(p == 1 for p in odds[:pool.tolerance + 1])
    assert all(p == 0 for p in odds[pool.tolerance * pool.vdev_count + 1:])


@settings(max_examples=60)
@given(pool_layouts(max_disks=12), st.data())
def test_survival_equals_enumerating_every_failure_set(pool, data):
    failures = data.draw(st.integers(min_value=0, max_value=pool.disks))
    width = pool.vdev.width
    survived = sum(
        all(sum(1 for d in failed if d // width == v) <= pool.tolerance
            for v in range(pool.vdev_count))
        for failed in combinations(range(pool.disks), failures))
    assert survival_probability(pool, failures) == Fraction(survived,
                                                            comb(pool.disks, failures))


def _in_range(control):
    if control["kind"] == "checkbox":
        return st.booleans()
    if control["kind"] == "text":  # any text: the scenario must refuse what it cannot use
        return st.one_of(st.just(control["default"]), st.text(max_size=24))
    if control["kind"] == "select":
        return st.sampled_from([o[0] if isinstance(o, list) else o for o in control["options"]])
    return st.integers(min_value=int(control["min"]), max_value=int(control["max"]))


junk = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                 st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2),
                                                                      st.integers(), max_size=1))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_every_scenario_runs_for_any_control_values(name, data):
    scenario = SCENARIOS[name]
    params = data.draw(st.fixed_dictionaries({c["name"]: _in_range(c)
                                              for c in scenario.controls}))
    result = simulate(scenario, params)
    json.dumps(result, allow_nan=False)  # the page needs strict JSON
    assert result["figure"]["data"] and result["summary"]


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from([c["name"] for c in vdev_layouts.CONTROLS] + ["other"]),
                       st.one_of(junk, *(_in_range(c) for c in vdev_layouts.CONTROLS))))
def test_vdev_layouts_never_fails_whatever_it_is_given(params):
    result = simulate(vdev_layouts.SCENARIO, params)
    text = json.dumps(result, allow_nan=False)
    assert result["figure"]["data"] and result["summary"] and result["transcript"]
    assert "Traceback" not in text
    assert not set("<>&") & set(result["summary"])  # plain text, safe anywhere in a page
