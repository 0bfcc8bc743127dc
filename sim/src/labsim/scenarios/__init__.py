"""Lesson simulations, behind one interface (labsim.scenarios.base.Scenario).

Every module of this package that declares a ``SCENARIO`` is a widget's simulation, found
here by looking through the package (pkgutil): a lesson's scenario is one new file, and it
is on every page that names it. ``SCENARIOS`` maps each scenario's name to it."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType

from labsim.scenarios.base import AnyScenario


def _discover() -> Mapping[str, AnyScenario]:
    found: dict[str, AnyScenario] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        scenario = getattr(module, "SCENARIO", None)
        if scenario is None:
            continue  # a helper module (base, controls, a scenario's parts)
        if scenario.name in found:
            raise ValueError(f"two scenarios are named {scenario.name!r}")
        found[scenario.name] = scenario
    return MappingProxyType(found)


SCENARIOS = _discover()


def get_scenario(name: str) -> AnyScenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}") from None
