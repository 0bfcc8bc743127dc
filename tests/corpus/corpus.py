"""The corpus of command lines learners type (commands.txt), run in labsim and classified.

Each line gets one class:

* ``simulated``: labsim answered as the real tool would: exit status 0, or, for a line
  marked ``#! refused: TEXT``, a failure whose message contains TEXT (the real refusal);
* ``honest``: labsim said the thing is ``not simulated`` (labsim.shell.messages);
* ``wrong``: a crash (a Python exception), ``command not found`` for a real command, a
  refusal of a line real OpenZFS accepts, or a marked refusal labsim did not make.

Network groups run on a simulated network, each line on one host (``@HOST command``):
``[net HOST,...]`` adds the hosts to a fresh labsim.net Network as a lesson page's
terminals do (labsim.web.SharedNetwork); ``[netlab LAB]`` or ``[netlab LAB:VARIANT]`` is a
lab of labs/net run as `python -m netkit sim` runs it (its hosts, files installed before
their step, ${HOST_PUBKEY} filled in), and its lines must be the lab's scripts, in the
order netkit runs them; a line marked "# expect-fail" there is simulated when it fails.

Used by tests/corpus/test_corpus.py and tools/bench.py (`make bench`).
"""

from __future__ import annotations

import copy
import sys
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from labsim.shell.session import Session

LABS = Path(__file__).resolve().parents[2] / "labs"
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


def _net_hosts(group: str) -> list[str] | None:
    """The hosts of a "[net a,b]" group, else None."""
    start = group.find("[net ")
    if start < 0:
        return None
    return group[start + 5:group.index("]", start)].split(",")


def _netlab(group: str) -> tuple[str, str | None] | None:
    start = group.find("[netlab ")
    if start < 0:
        return None
    lab, _, variant = group[start + 8:group.index("]", start)].partition(":")
    return lab, variant or None


def _host_line(line: Line) -> tuple[str, Line]:
    host, _, command = line.command.partition(" ")
    assert host.startswith("@"), f"line {line.number}: a network line starts with @HOST"
    return host[1:], Line(line.group, command, line.refused, line.number)


def run_net_group(lines: list[Line], hosts: list[str]) -> list[Outcome]:
    """A lesson's terminals on one network: each host a session of its own."""
    from labsim.web import SharedNetwork

    shared = SharedNetwork()
    sessions = {}
    for name in hosts:
        shared.host(name)
        sessions[name] = Session(network=shared.network, hostname=name)
    outcomes = []
    for line in lines:
        host, command = _host_line(line)
        outcomes.append(classify(command, sessions[host]))
    return outcomes


def run_netlab_group(lines: list[Line], lab: str, variant: str | None) -> list[Outcome]:
    """A labs/net lab run as netkit.configure() runs it in labsim, each line classified
    (a line marked "# expect-fail" must fail)."""
    if str(LABS) not in sys.path:
        sys.path.insert(0, str(LABS))
    import netkit
    from netkit import sim

    topology = netkit.load(LABS / "net" / lab)
    planned = [(step, host, raw) for step, host, raws in netkit.plan(topology, variant)
               for raw in raws]
    listed = [_host_line(line) for line in lines]
    assert [(h, c.command) for h, c in listed] == [(h, r) for _, h, r in planned], (
        f"the lines of {lab} in commands.txt are not its scripts' (labs/net/{lab})")
    shell = sim.up(topology)
    install = sim.installer(shell)
    files = topology.files(variant)
    keys: dict[str, str] = {}
    outcomes, current, installed = [], None, set()
    for (step, host, raw), (_, line) in zip(planned, listed, strict=True):
        if step != current:
            if current is not None:
                netkit.read_keys(topology, shell, keys)
            current = step
        for lab_file in files:
            if (lab_file.host, lab_file.step) == (host, step) and id(lab_file) not in installed:
                installed.add(id(lab_file))
                install(host, lab_file.path,
                        netkit.substitute(lab_file.source.read_text(), keys), lab_file.mode)
        command = netkit.substitute(raw, keys)
        session = shell.sessions[host]
        session.clock = max(s.clock for s in shell.sessions.values())
        if raw.endswith(netkit.EXPECT_FAIL):
            line = Line(line.group, command, "", line.number)  # any refusal is the one
        else:
            line = Line(line.group, command, line.refused, line.number)
        outcomes.append(classify(line, session))
    return outcomes


def run_corpus(path: Path = COMMANDS) -> list[Outcome]:
    outcomes: list[Outcome] = []
    templates: dict[bool, Session] = {}
    session, group = None, None
    lines = load(path)
    index = 0
    while index < len(lines):
        line = lines[index]
        hosts, lab = _net_hosts(line.group), _netlab(line.group)
        if hosts is not None or lab is not None:
            members = [m for m in lines[index:] if m.group == line.group]
            index += len(members)
            outcomes += run_net_group(members, hosts) if hosts is not None \
                else run_netlab_group(members, *lab)  # type: ignore[misc]
            group = None
            continue
        # "[each]": every line on its own fresh machine (the man pages' examples are
        # independent of each other).
        if line.group != group or "[each]" in line.group:
            session, group = prepared(line.group, templates), line.group
        assert session is not None
        outcomes.append(classify(line, session))
        index += 1
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
