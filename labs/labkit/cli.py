"""``python3 -m labkit``: the labs from a terminal, Killercoda style.

    python3 -m labkit list                    the labs and their steps
    python3 -m labkit verify LAB [STEP]       check the real state (all steps if none given)
        --json                                the verdicts as JSON on stdout (the pull mode)
        --report [URL]                        send them to the instructor's server (labsteps.report)
    python3 -m labkit solve LAB STEP          run a step's commands for you
    python3 -m labkit run LAB                 reset, then every step's commands and checks
    python3 -m labkit reset LAB               destroy the lab's own pools and files, nothing else
    python3 -m labkit check-script FILE.sh    would the runner refuse any line of this script?

verify exits 0 when every checked step is done, 1 when one is not, 2 when there was nothing to
check (netlab's convention). Other errors exit 2 with a one-line message. Reporting never
changes the exit status: an unreachable server leaves the results queued for the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from labkit import (
    STEP_MARKER,
    LabError,
    Refused,
    lab_names,
    load_lab,
    refusal,
    reset,
    solve,
    split_steps,
    verify,
)


def _root_needed() -> None:
    if os.geteuid() != 0:
        raise LabError("run this as root (sudo): the labs use zpool and zfs")


def send_report(results, url: str) -> None:
    """Queue and send the results (labsteps.report); one line on stderr says how it went."""
    from labsteps import report

    try:
        config = report.load_config(url or None)
    except report.ReportError as err:
        print(f"labkit: not reported: {err}", file=sys.stderr)
        return
    print(report.report(results, config).line(), file=sys.stderr)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m labkit",
                                     description="Run, check and reset the ZFS Field Labs.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the labs and their steps")
    p = sub.add_parser("verify", help="check a step (or every step) against the real system")
    p.add_argument("lab")
    p.add_argument("step", nargs="?")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.add_argument("--report", nargs="?", const="", metavar="URL",
                   help="send the verdicts to the workshop's instructor server (URL, or the "
                   "one of the workshop file)")
    p = sub.add_parser("solve", help="run a step's commands")
    p.add_argument("lab")
    p.add_argument("step")
    p = sub.add_parser("run", help="reset the lab, then run and check every step in order")
    p.add_argument("lab")
    p = sub.add_parser("reset", help="destroy the lab's own pools and files")
    p.add_argument("lab")
    p = sub.add_parser("check-script", help="refuse a script that would touch more than lab files")
    p.add_argument("script")
    p.add_argument("--pools", default="", help="comma-separated pools the script may own "
                   "(default: those of the lab with the script's name)")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for name in lab_names():
                lab = load_lab(name)
                print(f"{name}: {lab.title}")
                for step in lab.steps:
                    print(f"  {step.number}. {step.name}: {step.title}")
            return 0
        if args.command == "check-script":
            from pathlib import Path
            path = Path(args.script)
            pools = tuple(filter(None, args.pools.split(","))) or load_lab(path.stem).pools
            text = path.read_text()
            # A lab script is checked step by step; any other script (a one-off recording) whole.
            steps = (split_steps(text) if any(STEP_MARKER.match(line.strip())
                                               for line in text.splitlines())
                     else [("-", "", [line.strip() for line in text.splitlines()
                                      if line.strip() and not line.strip().startswith("#")])])
            bad = 0
            for name, _title, commands in steps:
                for line in commands:
                    why = refusal(line, pools)
                    if why:
                        print(f"{path.name}: step {name}: {line}\n  {why}")
                        bad += 1
            return 1 if bad else 0
        lab = load_lab(args.lab)
        _root_needed()
        if args.command == "verify":
            steps = [lab.step(args.step)] if args.step else list(lab.steps)
            if not steps:
                return 2
            verdicts = [verify(lab, s.name) for s in steps]
            results = [v.result(lab.name) for v in verdicts]
            if args.json:
                print(json.dumps({"lab": lab.name, "results": [r.as_dict() for r in results]}))
            else:
                for v in verdicts:
                    print(v.line())
            if args.report is not None:
                send_report(results, args.report)
            return 0 if all(v.ok for v in verdicts) else 1
        if args.command == "solve":
            solve(lab, args.step)
            return 0
        if args.command == "run":
            reset(lab)
            for step in lab.steps:
                print(f"# step {step.number} ({step.name}): {step.title}", flush=True)
                solve(lab, step.name)
                verdict = verify(lab, step.name)
                print(verdict.line(), flush=True)
                if not verdict.ok:
                    return 1
            return 0
        if args.command == "reset":
            reset(lab)
            return 0
    except Refused as err:
        print(err)
        return 2
    except LabError as err:
        print(f"labkit: {err}")
        return 2
    return 2
