"""netkit: network labs of several hosts, run for real in Linux namespaces or in labsim.

A lab is a folder under ``labs/net/`` with a ``topology.toml``: the hosts on one LAN, each
with an underlay address, its WireGuard interfaces and a command script, optional variants
(another script for some hosts) and the checks ``validate`` runs. The same script lines run
unchanged on both backends:

* ``netkit.real``: one network namespace per host, with its own mount namespace and a tmpfs
  on /run (wireguard-go's control socket, /var/run/wireguard/IF.sock, would otherwise be
  shared by every namespace), a bridge in a namespace of its own for the LAN, and one
  wireguard-go per WireGuard interface.
* ``netkit.sim``: one labsim Session per host, sharing one labsim.net Network.

Scripts are divided into steps by ``# step NAME: title`` comments. The runner runs the steps
in order, each on every host that has it, and before each step replaces ``${HOST_PUBKEY}``
(HOST upper-cased) by that host's public key, read with ``wg show IF public-key`` after the
step that set it: that is how two hosts learn each other's keys. This module (and the real
backend) use the standard library only.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LABS_ROOT = Path(__file__).resolve().parents[1]
NET_DIR = LABS_ROOT / "net"

STEP_MARKER = re.compile(r"^\s*#\s*step\s+([a-z][a-z0-9-]*)\s*:\s*(.+?)\s*$")
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9_]*)_PUBKEY\}")
# A line that ends with this comment must fail (sh and labsim both read it as a comment).
EXPECT_FAIL = "# expect-fail"
NAME = re.compile(r"^[a-z][a-z0-9]{0,7}$")
LAB_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")

# Exit statuses of `validate`, as netlab's: all passed, some failed, nothing to check.
PASSED, FAILED, NO_TESTS = 0, 1, 2


class NetkitError(Exception):
    """A lab file is malformed, or a lab command failed."""


@dataclass(frozen=True)
class Check:
    """One fact ``validate`` reads on ``host``: exactly one of ``ping`` (an address; ``expect``
    says whether it must answer), ``handshake`` (an interface: every peer has a handshake) or
    ``route`` (a line of `ip route` starting with these words)."""

    name: str
    host: str
    ping: str | None = None
    handshake: str | None = None
    route: str | None = None
    expect: str = "success"
    wait: int = 2

    @property
    def kind(self) -> str:
        return "ping" if self.ping else "handshake" if self.handshake else "route"

    def describe(self) -> str:
        if self.ping:
            verb = "answers" if self.expect == "success" else "does not answer"
            return f"ping {self.ping} {verb}"
        if self.handshake:
            return f"{self.handshake} has a handshake with every peer"
        return f"ip route has `{self.route}`"


@dataclass(frozen=True)
class Host:
    name: str
    address: str
    wireguard: tuple[str, ...]
    script: Path


@dataclass(frozen=True)
class Topology:
    name: str
    path: Path
    title: str
    hosts: dict[str, Host]
    checks: tuple[Check, ...]
    variants: dict[str, dict[str, Path]] = field(default_factory=dict)

    def scripts(self, variant: str | None = None) -> dict[str, Path]:
        scripts = {name: host.script for name, host in self.hosts.items()}
        if variant is not None:
            if variant not in self.variants:
                known = ", ".join(self.variants) or "none"
                raise NetkitError(f"{self.name}: no variant {variant!r} (variants: {known})")
            scripts.update(self.variants[variant])
        return scripts


def find(spec: str | Path) -> Path:
    """A lab's folder from a path (to the folder or its topology.toml) or a name in labs/net/."""
    path = Path(spec)
    if path.name == "topology.toml":
        path = path.parent
    for candidate in (path, NET_DIR / path):
        if (candidate / "topology.toml").is_file():
            return candidate.resolve()
    elsewhere = "" if path.is_absolute() else f" (nor in {NET_DIR / path})"
    raise NetkitError(f"no topology.toml in {spec}{elsewhere}")


def load(spec: str | Path) -> Topology:
    folder = find(spec)
    name = folder.name
    if not LAB_NAME.match(name):
        raise NetkitError(f"lab name {name!r}: use up to 24 of a-z, 0-9 and '-'")
    try:
        data = tomllib.loads((folder / "topology.toml").read_text())
    except tomllib.TOMLDecodeError as err:
        raise NetkitError(f"{folder / 'topology.toml'}: {err}") from None
    hosts = {}
    for host_name, spec_ in data.get("hosts", {}).items():
        if not NAME.match(host_name):
            raise NetkitError(f"host name {host_name!r}: use up to 8 of a-z and 0-9")
        if not {"address", "script"} <= set(spec_) <= {"address", "script", "wireguard"}:
            raise NetkitError(f"host {host_name}: give address, script and optionally "
                              "wireguard (a list of interfaces), nothing else")
        hosts[host_name] = Host(host_name, spec_["address"], tuple(spec_.get("wireguard", ())),
                                _script(folder, spec_["script"]))
    checks = []
    for raw in data.get("check", []):
        try:
            check = Check(**raw)
        except TypeError as err:
            raise NetkitError(f"check {raw.get('name', '?')!r}: {err}") from None
        if check.host not in hosts:
            raise NetkitError(f"check {check.name!r}: no host {check.host!r}")
        if sum(x is not None for x in (check.ping, check.handshake, check.route)) != 1:
            raise NetkitError(f"check {check.name!r}: give one of ping, handshake, route")
        if check.expect not in ("success", "failure"):
            raise NetkitError(f"check {check.name!r}: expect is success or failure")
        checks.append(check)
    variants = {}
    for variant, spec_ in data.get("variants", {}).items():
        scripts = spec_.get("scripts", {})
        unknown = set(scripts) - set(hosts)
        if unknown:
            raise NetkitError(f"variant {variant!r}: no host {sorted(unknown)[0]!r}")
        variants[variant] = {h: _script(folder, s) for h, s in scripts.items()}
    return Topology(name, folder, data.get("title", name), hosts, tuple(checks), variants)


def _script(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.is_file():
        raise NetkitError(f"script {path} does not exist")
    return path


def steps(text: str) -> list[tuple[str, list[str]]]:
    """(step name, command lines) in order; lines before the first marker form step ''."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for raw in text.splitlines():
        marker = STEP_MARKER.match(raw)
        if marker:
            out.append((marker.group(1), []))
            continue
        line = raw.strip()
        if line and not line.startswith("#"):
            out[-1][1].append(line)
    return [(name, lines) for name, lines in out if name or lines]


def plan(topology: Topology, variant: str | None = None) -> list[tuple[str, str, list[str]]]:
    """(step, host, lines): each step on every host that has it, in the order the steps
    first appear (hosts in topology order)."""
    per_host = {h: dict(steps(p.read_text())) for h, p in topology.scripts(variant).items()}
    order: list[str] = []
    for host_steps in per_host.values():
        order += [s for s in host_steps if s not in order]
    return [(step, host, per_host[host][step])
            for step in order for host in topology.hosts if step in per_host[host]]


@dataclass(frozen=True)
class Result:
    stdout: str
    stderr: str
    status: int


Shell = Callable[[str, str], Result]
"""Runs one command line on a host (host name, line) and returns what it printed."""


def substitute(line: str, keys: dict[str, str]) -> str:
    def key(match: re.Match[str]) -> str:
        host = match.group(1).lower()
        if host not in keys:
            raise NetkitError(f"{match.group(0)}: {host} has no public key yet (set a private "
                              "key in an earlier step)")
        return keys[host]

    return PLACEHOLDER.sub(key, line)


def configure(topology: Topology, shell: Shell, variant: str | None = None,
              log: Callable[[str], None] = print) -> list[tuple[str, str, Result]]:
    """Run every host's script, step by step; returns (host, line, result) in order."""
    keys: dict[str, str] = {}
    done = []
    for step, host, lines in plan(topology, variant):
        if step:
            log(f"# {host}: step {step}")
        for raw in lines:
            line = substitute(raw, keys)
            result = shell(host, line)
            done.append((host, line, result))
            log(f"{host}$ {line}\n{result.stdout}{result.stderr}".rstrip("\n"))
            expect_fail = raw.endswith(EXPECT_FAIL)
            if (result.status != 0) != expect_fail:
                raise NetkitError(f"{host}: `{line}` exited with {result.status}"
                                  + (" (it should fail)" if expect_fail else ""))
        for name in topology.hosts:
            for iface in topology.hosts[name].wireguard[:1]:
                if name not in keys:
                    result = shell(name, f"wg show {iface} public-key")
                    if result.status == 0 and result.stdout.strip() not in ("", "(none)"):
                        keys[name] = result.stdout.strip()
    return done


@dataclass(frozen=True)
class Outcome:
    check: Check
    passed: bool
    observed: str  # "success"/"failure" for a ping; "present"/"missing" otherwise
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {"name": self.check.name, "host": self.check.host, "kind": self.check.kind,
                "passed": self.passed, "observed": self.observed, "detail": self.detail}


def evaluate(check: Check, shell: Shell) -> Outcome:
    host = check.host
    if check.ping:
        result = shell(host, f"ping -c 1 -W {check.wait} {check.ping}")
        observed = "success" if result.status == 0 else "failure"
        lines = (result.stderr + result.stdout).strip().splitlines()
        detail = next((x for x in lines if "packets transmitted" in x or "ping:" in x), "")
        return Outcome(check, observed == check.expect, observed, detail)
    if check.handshake:
        result = shell(host, f"wg show {check.handshake} latest-handshakes")
        rows = [line.split() for line in result.stdout.splitlines() if line.strip()]
        missing = [r[0][:8] + "..." for r in rows if len(r) < 2 or r[1] == "0"]
        ok = result.status == 0 and rows and not missing
        detail = (result.stderr.strip() if result.status else "no peers" if not rows
                  else f"no handshake with {', '.join(missing)}" if missing
                  else f"{len(rows)} peer(s)")
        return Outcome(check, bool(ok), "present" if ok else "missing", detail)
    result = shell(host, "ip route")
    want = (check.route or "").split()
    ok = any(line.split()[: len(want)] == want for line in result.stdout.splitlines())
    return Outcome(check, ok, "present" if ok else "missing",
                   "" if ok else f"ip route: {result.stdout.strip()!r}")


def validate(topology: Topology, shell: Shell,
             log: Callable[[str], None] = print) -> tuple[int, list[Outcome]]:
    """Run every check, print one line each; returns (exit status, outcomes)."""
    if not topology.checks:
        log("no checks in this lab")
        return NO_TESTS, []
    outcomes = []
    for check in topology.checks:
        outcome = evaluate(check, shell)
        outcomes.append(outcome)
        mark = "PASS" if outcome.passed else "FAIL"
        detail = f" ({outcome.detail})" if outcome.detail else ""
        log(f"[{mark}] {check.host}: {check.describe()} -- {check.name}{detail}")
    failed = sum(not o.passed for o in outcomes)
    log(f"{len(outcomes) - failed} of {len(outcomes)} checks passed")
    return (FAILED if failed else PASSED), outcomes


def snapshot(topology: Topology, shell: Shell) -> dict[str, dict[str, str]]:
    """`wg show IF dump` of every WireGuard interface, host by host: the keys, endpoints,
    handshake times and byte counters the lab ended with."""
    return {name: {iface: shell(name, f"wg show {iface} dump").stdout
                   for iface in host.wireguard}
            for name, host in topology.hosts.items()}
