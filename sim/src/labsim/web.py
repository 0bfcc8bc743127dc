"""The browser bridge: the only labsim module the page's Web Worker calls.

Everything crosses the JavaScript boundary as JSON strings so the worker needs no
Pyodide proxy juggling. A Bridge holds any number of terminal sessions keyed by the
id the page gives them, so one page can run many independent simulations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from labsim.scenarios import get_scenario
from labsim.shell.session import CommandResult, Session


@dataclass
class Bridge:
    sessions: dict[str, Session] = field(default_factory=dict)

    def describe(self, scenario: str) -> str:
        """Controls and defaults of a scenario, as JSON."""
        return json.dumps(get_scenario(scenario).describe())

    def simulate(self, scenario: str, params_json: str) -> str:
        """Run a scenario with the given parameters; returns {figure, summary, transcript}."""
        params = json.loads(params_json) if params_json else {}
        return json.dumps(get_scenario(scenario).run(params))

    def terminal(self, session_id: str, line: str) -> str:
        """Run one command line in the named session; returns {stdout, stderr, status}."""
        session = self.sessions.setdefault(session_id, Session())
        try:
            result = session.run(line)
        except Exception as err:  # a simulator bug must not kill the page's terminal
            result = CommandResult.fail(
                f"labsim: internal error ({type(err).__name__}: {err}); please report it", 70)
        return json.dumps({"stdout": result.stdout, "stderr": result.stderr,
                           "status": result.status})

    def reset(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)


def initial_payload(scenario: str, overrides: dict | None = None) -> dict:
    """What the site build embeds in a page so the first chart needs no Python in the browser.

    ``overrides`` (a page's data-params) replace some defaults; the page's "reset" returns
    to the values given here.
    """
    sc = get_scenario(scenario)
    description = sc.describe()
    description["defaults"] = {**description["defaults"], **(overrides or {})}
    return {"describe": description, "result": sc.run(description["defaults"])}
