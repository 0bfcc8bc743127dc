"""How well labsim agrees with real OpenZFS on generated lab scripts (issue 15), and how
far it gets through them on its own.

* ``agreement()``: over the recordings of generated scripts,
  tests/fixtures/real/<release>/generated/seed-NNNN.txt (`make record-generated`), the share
  of scripts whose labsim transcript agrees with the recording in every compared figure and
  text, for the tuning and the held-out seeds separately, per release. "Agrees" is what the
  comparator of the fidelity tests says (tests/fidelity/transcripts.py, compare(): space
  within 1 %, per-vdev allocation within the recorded band widened by 5 %, error texts
  exact), with `zpool status` numbers compared as zero or not in scripts that overwrite
  part of a vdev (feature "corrupt": which blocks the dd hits is real allocation's doing,
  as in lab 8).
* ``self_agreement()``: real OpenZFS against itself, the ceiling of the rate above: for
  each recording, whether every run agrees with the range of the other runs under the same
  comparator (leave one out). Real runs differ (the throttle's split, which txg a change
  lands in, per-CPU object chunks), so a simulator, however right, cannot agree more often
  than real OpenZFS agrees with its own repeat.
* ``robustness()``: labsim alone, no recording needed: of the scripts of some seeds, how many
  it runs to the end with every command succeeding (the generator only writes commands real
  OpenZFS accepts), and for the others the first command that did not: a Python exception
  (crash), labsim saying it does not simulate something ("labsim: ..."), a command it does
  not know (bash's "command not found" for a command the lab VM has), or a refusal of a
  command real OpenZFS accepts (fabricated). Later failures often follow from the first,
  so the first is the cause counted.

    python tools/difftest/agreement.py [--seeds all] [--release 2.3]   JSON on stdout
    python tools/difftest/agreement.py --write-known   after a model change or new recordings
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "real"
sys.path.insert(0, str(REPO / "tools" / "difftest"))
# The one comparator of simulated and real transcripts lives with the fidelity tests.
sys.path.insert(0, str(REPO / "tests" / "fidelity"))

from generate import (  # noqa: E402
    HELD_OUT_SEEDS,
    TUNING_SEEDS,
    Command,
    generate_commands,
    parse_seeds,
)
from transcripts import compare  # noqa: E402

from labsim.shell.session import Session, run_script, transcript  # noqa: E402
from labsim.zfs.versions import get_version  # noqa: E402

SEED_FILE = re.compile(r"^seed-(\d+)\.txt$")
HELD_OUT_TARGET = 0.95  # issue 15: at least 95 % of held-out scripts agree, in both releases


def seed_set(seed: int) -> str:
    if seed in TUNING_SEEDS:
        return "tuning"
    return "held_out" if seed in HELD_OUT_SEEDS else "other"


def script_features(script: str) -> set[str]:
    """The features the generator wrote in the script's "# features:" header line."""
    for line in script.splitlines():
        if line.startswith("# features:"):
            return set(line.split(":", 1)[1].split())
    return set()


@dataclass
class Recording:
    """One generated script as recorded on a release: the script that ran (stored beside
    the transcript, so a later change of the generator does not orphan it) and every run."""

    release: str
    seed: int
    script: Path
    runs: list[Path]

    @property
    def name(self) -> str:
        return f"{self.release}/seed-{self.seed:04d}"


def recordings(root: Path = FIXTURES) -> list[Recording]:
    found = []
    for transcript_path in sorted(root.glob("*/generated/seed-*.txt")):
        match = SEED_FILE.match(transcript_path.name)
        if match is None:
            continue  # seed-NNNN.runN.txt: further runs, collected below
        stem = transcript_path.stem
        runs = [transcript_path, *sorted(transcript_path.parent.glob(f"{stem}.run*.txt"))]
        found.append(Recording(transcript_path.parent.parent.name, int(match.group(1)),
                               transcript_path.with_suffix(".sh"), runs))
    return found


def simulate(script: str, zfs_release: str) -> str:
    """labsim's transcript of ``script`` in the mode of ``zfs_release`` ("2.3.9" -> 2.3), as
    tests/fidelity/test_against_real.py makes it."""
    major_minor = ".".join(zfs_release.split(".")[:2])
    return transcript(run_script(script, Session(version=get_version(major_minor))))


def disagreements(recording: Recording) -> list[str]:
    """What the comparator finds between labsim and the recorded run(s); [] = agreement."""
    script = recording.script.read_text()
    return compare([run.read_text() for run in recording.runs],
                   simulate(script, recording.release),
                   presence="corrupt" in script_features(script))


def _rates(verdicts: Iterable[tuple[Recording, bool]]) -> dict[str, dict]:
    """Per release, per seed set: scripts, how many agree, and the rate."""
    out: dict[str, dict] = {}
    for recording, agrees in verdicts:
        sets = out.setdefault(recording.release, {})
        tally = sets.setdefault(seed_set(recording.seed), {"scripts": 0, "agree": 0})
        tally["scripts"] += 1
        tally["agree"] += int(agrees)
    for sets in out.values():
        for tally in sets.values():
            tally["rate"] = round(tally["agree"] / tally["scripts"], 4)
    return out


def _labsim_agrees(recording: Recording) -> bool:
    try:
        return not disagreements(recording)
    except Exception:  # a crash of labsim is a disagreement, not the end of the count
        return False


def agreement(root: Path = FIXTURES) -> dict:
    """Per release, per seed set: scripts recorded, scripts labsim agrees on, and the rate."""
    out = _rates((r, _labsim_agrees(r)) for r in recordings(root))
    for sets in out.values():
        held_out = sets.get("held_out")
        sets["meets_target"] = bool(held_out) and held_out["rate"] >= HELD_OUT_TARGET
    return out


def agrees_with_itself(recording: Recording) -> bool | None:
    """Whether each run of the recording lies within the comparator's range of the other
    runs; None with a single run."""
    texts = [run.read_text() for run in recording.runs]
    if len(texts) < 2:
        return None
    presence = "corrupt" in script_features(recording.script.read_text())
    return all(not compare(texts[:i] + texts[i + 1:], texts[i], presence=presence)
               for i in range(len(texts)))


def self_agreement(root: Path = FIXTURES) -> dict:
    """Per release, per seed set: recordings with several runs, how many agree with
    themselves (agrees_with_itself()), and the rate."""
    verdicts = ((r, agrees_with_itself(r)) for r in recordings(root))
    return _rates((r, agrees) for r, agrees in verdicts if agrees is not None)


# --- labsim alone ----------------------------------------------------------------------------

@dataclass
class Problem:
    kind: str  # "crash", "not simulated", "unknown command", "fabricated refusal"
    command: Command
    output: str

    def line(self) -> str:
        first = self.output.strip().splitlines()[0] if self.output.strip() else ""
        return f"{self.kind}: [{self.command.feature}] `{self.command.line}`: {first}"


@dataclass
class ScriptRun:
    seed: int
    problems: list[Problem] = field(default_factory=list)

    @property
    def first(self) -> Problem | None:
        return self.problems[0] if self.problems else None


# Refusals real OpenZFS gives to commands the generator writes, recorded in the lab VM: not
# fabricated. `zfs destroy` of a volume right after a dd into its device finds it open,
# udev probing it (generated seed 5007: 5 of 6 runs on 2.3.9 and 2.1.11).
REAL_REFUSALS = (re.compile(r"^cannot destroy '[^']+': dataset is busy$"),)


def classify(status: int, output: str) -> str | None:
    """None for a command that succeeded (or failed as it does on real OpenZFS,
    REAL_REFUSALS); else what kind of failure it was."""
    if status == 0 or any(p.match(output.strip()) for p in REAL_REFUSALS):
        return None
    if "not simulated" in output or "not modelled" in output or output.startswith("labsim:"):
        return "not simulated"
    if status == 127 and "command not found" in output:
        return "unknown command"
    return "fabricated refusal"


def run_in_labsim(seed: int, release: str = "2.3") -> ScriptRun:
    """Every command of ``seed``'s script in one labsim session, each judged by classify()
    (the generator writes only commands that succeed on real OpenZFS)."""
    session = Session(version=get_version(release))
    result = ScriptRun(seed)
    for command in generate_commands(seed):
        try:
            outcome = session.run(command.line)
        except Exception as err:  # noqa: BLE001 - a crash is what is being counted
            result.problems.append(Problem("crash", command, f"{type(err).__name__}: {err}"))
            continue
        kind = classify(outcome.status, outcome.stdout + outcome.stderr)
        if kind is not None:
            result.problems.append(Problem(kind, command, outcome.stderr or outcome.stdout))
    return result


def robustness(seeds: list[int], release: str = "2.3") -> dict:
    """How many scripts labsim runs through, and what stops the others first."""
    runs = [run_in_labsim(seed, release) for seed in seeds]
    firsts = [r.first for r in runs if r.first is not None]
    by_kind = Counter(p.kind for p in firsts)
    by_feature = Counter(f"{p.kind}: {p.command.feature}" for p in firsts)
    # Every distinct first failure, once, with the seed that shows it first.
    examples: dict[str, int] = {}
    for r in runs:
        if r.first is not None:
            key = f"{r.first.kind}: [{r.first.command.feature}] " + (
                r.first.output.strip().splitlines() or [""])[0]
            examples.setdefault(re.sub(r"labg\d+", "labgNNNN", key), r.seed)
    # Scripts with a problem of each feature anywhere (later ones may follow from earlier).
    anywhere = Counter(f for r in runs for f in {f"{p.kind}: {p.command.feature}"
                                                 for p in r.problems})
    return {
        "release": release,
        "scripts": len(runs),
        "run_fully": len(runs) - len(firsts),
        "run_fully_by_set": {
            name: f"{sum(r.first is None for r in runs if seed_set(r.seed) == name)} of "
                  f"{sum(seed_set(r.seed) == name for r in runs)}"
            for name in sorted({seed_set(r.seed) for r in runs})},
        "first_problem_by_kind": dict(sorted(by_kind.items())),
        "first_problem_by_feature": dict(by_feature.most_common()),
        "scripts_with_problem_by_feature": dict(anywhere.most_common()),
        "first_problem_examples": {k: f"seed {v}" for k, v in sorted(examples.items())},
        "crashes": sum(any(p.kind == "crash" for p in r.problems) for r in runs),
    }


def report(seeds: list[int], releases: tuple[str, ...] = ("2.3",)) -> dict:
    """What `make bench` prints under "difftest"."""
    return {
        "seeds": {"tuning": f"{TUNING_SEEDS.start}-{TUNING_SEEDS.stop - 1}",
                  "held_out": f"{HELD_OUT_SEEDS.start}-{HELD_OUT_SEEDS.stop - 1}"},
        "held_out_target": HELD_OUT_TARGET,
        "agreement_with_recordings": agreement(),
        "real_agrees_with_itself": self_agreement(),
        "labsim_alone": {release: robustness(seeds, release) for release in releases},
    }


def write_known_disagreements(root: Path = FIXTURES) -> dict[str, int]:
    """Rewrite each release's generated/known-disagreements.json: every tuning script labsim
    disagrees on today, with how many differences and the first (the held-out scripts are
    never listed: tests/fidelity/test_generated.py). Returns the count per release."""
    listed: dict[str, dict[str, str]] = {}
    for recording in recordings(root):
        if seed_set(recording.seed) != "tuning":
            continue
        try:
            problems = disagreements(recording)
        except Exception as err:  # noqa: BLE001 - a crash is a disagreement too
            problems = [f"labsim crashed: {type(err).__name__}: {err}"]
        known = listed.setdefault(recording.release, {})
        if problems:
            known[f"seed-{recording.seed:04d}"] = (f"{len(problems)} differences; first: "
                                                   f"{problems[0]}")
    for release, known in listed.items():
        path = root / release / "generated" / "known-disagreements.json"
        path.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")
    return {release: len(known) for release, known in listed.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/difftest/agreement.py",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="all", help="as generate.py (default: all)")
    parser.add_argument("--release", action="append", choices=("2.1", "2.2", "2.3"),
                        help="labsim mode(s) for the labsim-alone run (default: 2.3)")
    parser.add_argument("--write-known", action="store_true",
                        help="rewrite each release's known-disagreements.json from today's "
                             "tuning disagreements, and print how many there are")
    args = parser.parse_args(argv)
    if args.write_known:
        print(json.dumps(write_known_disagreements(), indent=1))
        return 0
    result = report(parse_seeds(args.seeds), tuple(args.release or ("2.3",)))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
