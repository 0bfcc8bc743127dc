"""The corpus of command lines learners type (commands.txt), run in labsim and classified.

Each line gets one class:

* ``simulated``: labsim answered as the real tool would: exit status 0, or, for a line
  marked ``#! refused: TEXT``, a failure whose message contains TEXT (the real refusal);
* ``honest``: labsim said the thing is ``not simulated`` (labsim.shell.messages);
* ``wrong``: a crash (a Python exception), ``command not found`` for a real command, a
  refusal of a line real OpenZFS accepts, or a marked refusal labsim did not make.

Used by tests/corpus/test_corpus.py and tools/bench.py (`make bench`).
"""

from __future__ import annotations

import copy
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from labsim.shell.session import Session

COMMANDS = Path(__file__).with_name("commands.txt")
DEVICES = tuple(f"/var/tmp/d/sd{letter}" for letter in "abcdef")
# The pools and datasets the man pages' examples name.
DATASETS = ("pool/home", "pool/home/bob", "pool/home/anne", "pool/project",
            "pool/project/production", "pool/users", "pool/fs", "tank/users", "tank/test",
            "tank/home", "tank/cindys", "tank/accounting", "users/home", "rpool/data",
            "poolA/fsA", "poolA/fsA/fsB", "poolname/dset")
BARE = ("mkdir -p /var/tmp/d", *(f"truncate -s 256M {d}" for d in DEVICES))
SETUP = (*BARE,
         *(f"truncate -s 1G /var/tmp/d/{p}.raw" for p in ("pool", "tank", "users", "rpool",
                                                          "poolA", "poolname")),
         *(f"zpool create {p} /var/tmp/d/{p}.raw" for p in ("pool", "tank", "users", "rpool",
                                                             "poolA", "poolname")),
         *(f"zfs create {d}" for d in DATASETS),
         "zfs snapshot rpool@snapshot")
NOTICE = "not simulated"
SIMULATED, HONEST, WRONG = "simulated", "honest notice", "wrong"


@dataclass(frozen=True)
class Line:
    group: str
    command: str
    refused: str | None  # the real refusal's text, for a line real OpenZFS refuses
    number: int  # line number in commands.txt


@dataclass(frozen=True)
class Outcome:
    line: Line
    verdict: str
    why: str


def load(path: Path = COMMANDS) -> list[Line]:
    lines, group = [], ""
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        text = raw.strip()
        if text.startswith("## "):
            group = text[3:]
            continue
        if not text or text.startswith("#"):
            continue
        command, _, mark = raw.partition("  #! refused: ")
        lines.append(Line(group, command.strip(), mark.strip() or None, number))
    return lines


def _make(commands: tuple[str, ...]) -> Session:
    session = Session()
    for command in commands:
        result = session.run(command)
        assert result.status == 0, (command, result)
    return session


def prepared(group: str, templates: dict[bool, Session]) -> Session:
    """A fresh session for ``group``: a copy of the prepared machine ("[bare]": only the
    device files)."""
    bare = "[bare]" in group
    if bare not in templates:
        templates[bare] = _make(BARE if bare else SETUP)
    return copy.deepcopy(templates[bare])


def classify(line: Line, session: Session) -> Outcome:
    try:
        result = session.run(line.command)
    except Exception:  # a crash is what this test exists to find
        return Outcome(line, WRONG, "crash: " + traceback.format_exc(limit=-1).strip())
    text = result.stdout + result.stderr
    if "command not found" in result.stderr:
        return Outcome(line, WRONG, result.stderr.strip())
    if NOTICE in text:
        return Outcome(line, HONEST, result.stderr.strip())
    if line.refused is not None:
        if result.status != 0 and line.refused in result.stderr:
            return Outcome(line, SIMULATED, "refused as real OpenZFS refuses it")
        return Outcome(line, WRONG, f"real OpenZFS refuses it ({line.refused}); labsim: "
                                    f"status {result.status} {result.stderr.strip()!r}")
    if result.status != 0:
        return Outcome(line, WRONG, f"refused: status {result.status} "
                                    f"{result.stderr.strip()[:300]!r}")
    return Outcome(line, SIMULATED, "")


def run_corpus(path: Path = COMMANDS) -> list[Outcome]:
    outcomes: list[Outcome] = []
    templates: dict[bool, Session] = {}
    session, group = None, None
    for line in load(path):
        # "[each]": every line on its own fresh machine (the man pages' examples are
        # independent of each other).
        if line.group != group or "[each]" in line.group:
            session, group = prepared(line.group, templates), line.group
        assert session is not None
        outcomes.append(classify(line, session))
    return outcomes


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    found = Counter(o.verdict for o in outcomes)
    return {kind: found[kind] for kind in (SIMULATED, HONEST, WRONG)}


if __name__ == "__main__":
    results = run_corpus()
    for outcome in results:
        if outcome.verdict != SIMULATED:
            print(f"{outcome.verdict:14} {outcome.line.number:4} {outcome.line.command}\n"
                  f"{'':19}{outcome.why[:300]}")
    print(counts(results))
