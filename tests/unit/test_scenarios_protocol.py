"""Every lesson scenario behind the one interface (labsim.scenarios.base.Scenario): found in
the package, read into its typed parameters, and run with its defaults and with each control
at its extremes, to a ScenarioResult the page can take as strict JSON."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import typing

import pytest

import labsim.scenarios
from labsim.scenarios import SCENARIOS, get_scenario
from labsim.scenarios.base import ScenarioResult, description, simulate, typed_fields
from labsim.scenarios.controls import TEXT_MAX, Control, option_values

# The widgets the lessons embed (docs/lessons/*.md, data-scenario).
LESSON_SCENARIOS = {"pools-vdevs", "vdev-layouts", "metaslabs", "records", "sync-crash",
                    "snapshots", "vm-images", "copies", "wg-topology", "slow-ssh"}


def test_every_scenario_module_of_the_package_is_found():
    declared = {}
    for info in pkgutil.iter_modules(labsim.scenarios.__path__):
        module = importlib.import_module(f"labsim.scenarios.{info.name}")
        if hasattr(module, "SCENARIO"):
            declared[module.SCENARIO.name] = module.SCENARIO
    assert declared == dict(SCENARIOS)
    assert set(SCENARIOS) == LESSON_SCENARIOS


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown scenario 'nope'; known: ") as err:
        get_scenario("nope")
    assert all(name in str(err.value) for name in SCENARIOS)
    assert get_scenario("records") is SCENARIOS["records"]


def _leader_values(scenario) -> list[dict]:
    """{} and, for a control others follow (a preset), each of its values."""
    leaders = {c["follows"] for c in scenario.controls if "follows" in c}
    out: list[dict] = [{}]
    for c in scenario.controls:
        if c["name"] in leaders:
            out += [{c["name"]: value} for value in option_values(c)]
    return out


def _extremes(control: Control, base: dict) -> list[object]:
    """A control's values at its ends: a slider's min and max, a select's first and last
    option (for the preset in ``base``, when it follows one), both states of a checkbox,
    an empty and a longest text."""
    kind = control["kind"]
    if kind == "range":
        return [control["min"], control["max"]]
    if kind == "checkbox":
        return [False, True]
    if kind == "text":
        return ["", "1" * TEXT_MAX]
    options = control.get("options_by", {}).get(str(base.get(control.get("follows"))),
                                                  control["options"])
    values = option_values({"options": options})
    return [values[0], values[-1]]


def _check_params(scenario, params) -> None:
    assert dataclasses.is_dataclass(params) and not isinstance(params, type)
    assert type(params).__dataclass_params__.frozen
    names = [f.name for f in dataclasses.fields(params)]
    assert names[-1] == "notes" and isinstance(params.notes, tuple)
    assert set(names[:-1]) == {c["name"] for c in scenario.controls}
    hints = typing.get_type_hints(type(params))
    for name in names[:-1]:
        value, kind = getattr(params, name), hints[name]
        assert isinstance(value, typing.get_args(kind) or kind), (name, value, kind)
        assert not isinstance(value, bool) or kind is bool, (name, value)


def _check_result(result) -> None:
    assert isinstance(result, ScenarioResult)
    assert isinstance(result.figure["data"], list) and result.figure["data"]
    assert isinstance(result.figure["layout"], dict)
    assert isinstance(result.summary, str) and result.summary
    assert isinstance(result.transcript, str)
    json.dumps(result.as_json(), allow_nan=False)  # the page needs strict JSON


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_runs_with_its_defaults_and_each_control_at_its_extremes(name):
    scenario = SCENARIOS[name]
    assert isinstance(scenario.title, str) and scenario.title
    described = description(scenario)
    assert described["defaults"] == {c["name"]: c["default"] for c in scenario.controls}
    defaults = scenario.read(described["defaults"])
    _check_params(scenario, defaults)
    assert defaults.notes == ()  # the defaults are all usable
    _check_result(scenario.run(defaults))
    for base in _leader_values(scenario):
        for control in scenario.controls:
            for value in _extremes(control, base):
                values = {**base, control["name"]: value}
                params = scenario.read(values)
                _check_params(scenario, params)
                # In range, the value is used (a note may say what it leaves impossible
                # among the other controls: no @wed with two snapshots).
                assert not [n for n in params.notes if n.startswith(control["label"])], \
                    (values, params.notes)
                _check_result(scenario.run(params))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_values_a_page_cannot_send_fall_back_to_a_chart(name):
    scenario = SCENARIOS[name]
    for values in (None, [1, 2], "x", {c["name"]: "?" for c in scenario.controls}):
        result = simulate(scenario, values)
        assert result["figure"]["data"] and result["summary"]


def test_typed_fields_refuse_a_value_of_the_wrong_type():
    @dataclasses.dataclass(frozen=True)
    class Params:
        disks: int
        name: str
        notes: tuple[str, ...] = ()

    assert typed_fields(Params, {"disks": 8.0, "name": "a"}) == {"disks": 8, "name": "a"}
    with pytest.raises(TypeError, match="parameter disks"):
        typed_fields(Params, {"disks": "8", "name": "a"})
    with pytest.raises(TypeError, match="parameter name"):
        typed_fields(Params, {"disks": 8, "name": 3})
    with pytest.raises(TypeError, match="parameter disks"):
        typed_fields(Params, {"disks": True, "name": "a"})
