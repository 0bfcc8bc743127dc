"""What every lesson simulation offers the page: the ``Scenario`` protocol.

A scenario has a name (the page's ``data-scenario``), a title and its controls (the JSON
specs the page renders, ``Control``); it reads the values the page sends into its own typed
parameters (a frozen dataclass, whose ``notes`` say what could not be used as given), and
runs on those parameters to a ``ScenarioResult``: a plotly figure spec, a summary and the
transcript of the commands behind it. ``warm`` does ahead of time what a scenario builds
once per process, a short step at a time (labsim.scenarios.steps).

A scenario module declares its scenario as ``SCENARIO`` (a ``Simulation`` usually);
``labsim.scenarios`` finds every module of the package that has one, so a lesson's new
simulation is one new file.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from labsim.scenarios.controls import Control, describe, read_params

Params = TypeVar("Params")

Figure = dict[str, Any]
"""A plotly figure spec (labsim.figures): JSON of any shape plotly.js takes."""


@dataclass(frozen=True)
class ScenarioResult:
    """One run: the chart, a summary in words (plain text) and the commands behind it."""

    figure: Figure
    summary: str
    transcript: str

    def as_json(self) -> dict[str, object]:
        """What the page receives (labsim-page.js reads these three keys)."""
        return {"figure": self.figure, "summary": self.summary, "transcript": self.transcript}


class Scenario(Protocol[Params]):
    """A lesson's simulation, as the page (labsim.web) and the tests use it."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def controls(self) -> Sequence[Control]: ...

    def read(self, values: object) -> Params:
        """The typed parameters for the values a page sends (any JSON: what the reader's
        browser stored from an older page too); what cannot be used falls back, with a
        note in the parameters."""
        ...

    def run(self, params: Params) -> ScenarioResult: ...

    def warm(self) -> Iterator[None]:
        """The work the scenario does once per process on its first run, done now: a
        step per item taken (a run that comes before the last step does the rest)."""
        ...


def _nothing() -> Iterator[None]:
    """No one-off work."""
    return iter(())


@dataclass(frozen=True)
class Simulation(Generic[Params]):
    """A Scenario made of a module's parts: its controls, its reader and its run."""

    name: str
    title: str
    controls: Sequence[Control]
    read: Callable[[object], Params]
    run: Callable[[Params], ScenarioResult]
    warm: Callable[[], Iterator[None]] = _nothing


AnyScenario = Scenario[Any]
"""A scenario of any parameter type: what a registry of several holds (each one's reader
and run agree on its own type, which a mapping of all of them cannot name)."""


def description(scenario: AnyScenario) -> dict[str, object]:
    """What the page renders a widget from: title, controls and their defaults."""
    return describe(scenario.title, list(scenario.controls))


def simulate(scenario: AnyScenario, values: object) -> dict[str, object]:
    """Read the page's values and run: the JSON-ready result the page receives."""
    return scenario.run(scenario.read(values)).as_json()


# ------------------------------------------------------------------------------- reading

def typed_params(cls: type[Params], controls: Sequence[Control], values: object) -> Params:
    """``values`` read against ``controls`` (controls.read_params: a value that is not
    among a select's options or outside a slider's range falls back to the default, with
    a note) as an instance of the dataclass ``cls``: one field per control, of the type
    its values have (int, float, bool or str), and ``notes``."""
    merged, notes = read_params(controls, values)
    make: Callable[..., Params] = cls
    return make(**typed_fields(cls, merged), notes=tuple(notes))


def typed_fields(cls: type, values: Mapping[str, object]) -> dict[str, Any]:
    """The fields of dataclass ``cls`` other than ``notes`` from ``values`` (checked ones),
    each converted to its field's type: a number control's value may be 8 or 8.0. (Any:
    each value is checked against its field's type here, which mypy cannot follow.)"""
    return {name: _as(kind, values[name], name) for name, kind in _field_types(cls)}


@functools.lru_cache(maxsize=128)
def _field_types(cls: type) -> tuple[tuple[str, object], ...]:
    """(name, type) of each field of dataclass ``cls`` but ``notes``: read once per class,
    since resolving the annotations (typing.get_type_hints) is slow, in Pyodide most of
    all (about 10 ms a widget run)."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.name != "notes")


def _as(kind: object, value: object, name: str) -> object:
    if isinstance(kind, types.UnionType):  # int | str: the first member the value is
        for member in typing.get_args(kind):
            try:
                return _as(member, value, name)
            except TypeError:
                continue
    if kind is bool and isinstance(value, bool):
        return value
    if kind is str and isinstance(value, str):
        return value
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)  # a slider's value in whole units (8.0, or 8.5 from an old page)
    raise TypeError(f"parameter {name}: {value!r} is not a {kind}")  # a scenario's own fault
