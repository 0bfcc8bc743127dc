"""The pull mode, for rooms where learners' environments cannot reach the instructor: run the
checks in each learner environment through the provisioning engine's exec command (``incus
exec NAME --``, ``ssh NAME``, ``docker exec NAME``), read their JSON (``labkit verify --json``,
``netkit validate --json``) and report them to the server exactly as the learner's own run
would (labsteps.report: signed with the workshop key, queued and resent if the server is
down)."""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from labsteps import StepResult
from labsteps import report as reporting

# What runs inside a learner environment, per kit ({lab} is the lab's name).
CHECKS = {"labkit": "python3 -m labkit verify --json {lab}",
          "netkit": "python3 -m netkit validate --json {lab}"}


@dataclass(frozen=True)
class Pulled:
    learner: str
    results: tuple[StepResult, ...]
    problem: str = ""
    delivery: reporting.Delivery | None = None

    def line(self) -> str:
        if self.problem:
            return f"{self.learner}: not checked: {self.problem}"
        passed = sum(r.passed for r in self.results)
        sent = self.delivery.line() if self.delivery else "not reported"
        return f"{self.learner}: {passed} of {len(self.results)} passed; {sent}"


def command(exec_prefix: str, learner: str, check: str, labs_dir: str) -> list[str]:
    """The exec prefix ({name} is the learner's environment; without it the name goes last),
    then `sh -c 'cd LABS && CHECK'`."""
    words = shlex.split(exec_prefix.replace("{name}", learner))
    if "{name}" not in exec_prefix:
        words.append(learner)
    return [*words, "sh", "-c", f"cd {shlex.quote(labs_dir)} && {check}"]


def parse(stdout: str) -> list[StepResult]:
    """The results of the last line of JSON the check printed."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return [StepResult.from_dict(r) for r in json.loads(line)["results"]]
    raise ValueError("no JSON results in the output")


def pull(learner: str, exec_prefix: str, check: str, labs_dir: str,
         config: reporting.Config | None, queue: Path | None = None,
         timeout: float = 120.0) -> Pulled:
    """Run the check in one learner's environment and report its results as that learner."""
    words = command(exec_prefix, learner, check, labs_dir)
    try:
        done = subprocess.run(words, capture_output=True, text=True, timeout=timeout)
        results = parse(done.stdout)
    except (OSError, subprocess.TimeoutExpired) as err:
        return Pulled(learner, (), f"{shlex.join(words)}: {err}")
    except (ValueError, KeyError) as err:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Pulled(learner, (), f"exit {done.returncode}, {err}: {tail}")
    delivery = None
    if config is not None:
        mine = reporting.Config(config.url, config.workshop, learner, config.key)
        delivery = reporting.report(results, mine, queue)
    return Pulled(learner, tuple(results), delivery=delivery)
