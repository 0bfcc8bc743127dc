"""Every widget's payload, for comparing the simulator's results before and after a change
that must not alter them (a performance change): one JSON line per case on stdout,
``{"case": ..., "sha256": ...}``, and with ``--full DIR`` each payload written to DIR.

The cases: each lesson widget of course.toml (its scenario with the page's data-params), at
its initial payload (labsim.web.initial_payload, what the site build embeds), and with each
control moved on its own from there to every option of a select, both values of a checkbox,
and the minimum, the middle step and the maximum of a range, as the page's
labsim.web.Bridge.simulate returns it (the JSON string the worker hands the page). Then the
benchmark's 1 TiB fill (tools/bench.py FILL_1TIB): the pool's whole state after it
(repr of the dataclasses: every metaslab's free segments, every extent, the space maps),
with PYTHONHASHSEED=0 so that sets print in the same order.

    .venv/bin/python tools/payload_digest.py > /tmp/before.jsonl
    (change the code)
    .venv/bin/python tools/payload_digest.py > /tmp/after.jsonl
    cmp /tmp/before.jsonl /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tomllib
from collections.abc import Callable
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, os.environ.get("LABSIM_SRC") or str(REPO / "sim" / "src"))


def widgets() -> list[tuple[str, dict]]:
    """(scenario, page params) of every lesson's widget in course.toml, each once."""
    course = tomllib.loads((REPO / "course.toml").read_text())
    seen: list[tuple[str, dict]] = []
    for lesson in course.get("lesson", []):
        for sim in lesson.get("simulations", []):
            item = (sim["scenario"], dict(sim.get("params", {})))
            if item not in seen:
                seen.append(item)
    return seen


def control_values(control: dict) -> list[object]:
    """The values a case moves ``control`` to."""
    from labsim.scenarios.controls import option_values

    kind = control["kind"]
    if kind == "select":
        return option_values(control)
    if kind == "checkbox":
        return [False, True]
    if kind == "range":
        lo, hi, step = control["min"], control["max"], control.get("step", 1)
        mid = lo + (hi - lo) // 2 // step * step
        return list(dict.fromkeys([lo, mid, hi]))
    return []


def cases() -> list[tuple[str, str, dict]]:
    """(case name, scenario, params) of every run."""
    from labsim.web import initial_payload

    out = []
    for scenario, params in widgets():
        label = scenario + (json.dumps(params, sort_keys=True) if params else "")
        described = initial_payload(scenario, params)["describe"]
        base = described["defaults"]
        out.append((f"{label} defaults", scenario, dict(base)))
        for control in described["controls"]:
            for value in control_values(control):
                if value == base.get(control["name"]):
                    continue
                out.append((f"{label} {control['name']}={value}", scenario,
                            {**base, control["name"]: value}))
    return out


def fill_state() -> str:
    sys.path.insert(0, str(REPO / "tools"))
    from bench import FILL_1TIB

    scope: dict = {}
    exec(FILL_1TIB.replace("return (_time", "return pool, (_time"), scope)  # noqa: S102
    pool, *_ = scope["_fill_1tib"]()
    return repr(pool)


def initial_json(scenario: str, params: dict) -> str:
    from labsim.web import initial_payload

    return json.dumps(initial_payload(scenario, params), sort_keys=True)


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # The same order of every set in the reprs, run after run.
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", type=Path, help="also write each payload into this directory")
    parser.add_argument("--only", help="only cases whose name starts with this")
    args = parser.parse_args()
    from labsim.web import Bridge

    bridge = Bridge()
    if args.full:
        args.full.mkdir(parents=True, exist_ok=True)
    results: list[tuple[str, Callable[[], str]]] = []
    for scenario, params in widgets():
        label = scenario + (json.dumps(params, sort_keys=True) if params else "")
        results.append((f"{label} initial", partial(initial_json, scenario, params)))
    for name, scenario, params in cases():
        results.append((name, partial(bridge.simulate, scenario, json.dumps(params))))
    results.append(("fill 1 TiB pool state", fill_state))
    for i, (name, run) in enumerate(results):
        if args.only and not name.startswith(args.only):
            continue
        text = run()
        if args.full:
            (args.full / f"{i:03d}.txt").write_text(f"{name}\n{text}")
        print(json.dumps({"case": name, "sha256": hashlib.sha256(text.encode()).hexdigest()}),
              flush=True)


if __name__ == "__main__":
    main()
