"""What ``validate`` reads on a lab's hosts: the :class:`Check` kinds of a topology.toml, how
each reads its fact through a backend's shell (:func:`evaluate`), and the run of all of them
(:func:`validate`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsteps import StepResult
from netkit.run import PLACEHOLDER, Shell, read_keys, substitute

if TYPE_CHECKING:
    from netkit.topology import Topology

# Exit statuses of `validate`, as netlab's: all passed, some failed, nothing to check.
PASSED, FAILED, NO_TESTS = 0, 1, 2


CHECK_KINDS = ("ping", "handshake", "route", "http", "forwarding", "file",
               "ssh", "ssh_mux")  # ssh, ssh_mux: netkit/ssh.py (slow-SSH lab)


@dataclass(frozen=True)
class Check:
    """One fact ``validate`` reads on ``host``; exactly one of:

    * ``ping``: an address that answers one ping within ``wait`` seconds;
    * ``handshake``: an interface that has a handshake with every peer;
    * ``route``: a line of `ip route` (of table ``table`` if given) starting with these words;
    * ``http``: a URL whose GET (curl) succeeds within ``wait`` seconds, with
      ``expect_body`` in the answer if given;
    * ``forwarding``: true if net.ipv4.ip_forward must be on, false if off;
    * ``file``: a path whose text has ``contains`` in it, or does not have ``lacks``.
    * ``ssh`` / ``ssh_mux`` (netkit/ssh.py, the slow-SSH lab): `ssh TARGET true` succeeds
      over a fresh connection / over a master one; with ``baseline`` and ``within``, the
      fresh login also takes less than ``within`` seconds longer than a login to a second
      sshd on host ``baseline`` that looks up no names.

    ``expect = "failure"`` turns the check around (a ping that must not be answered).
    ``contains`` and ``lacks`` may name public keys as ``${HOST_PUBKEY}``.
    """

    name: str
    host: str
    ping: str | None = None
    handshake: str | None = None
    route: str | None = None
    table: str | None = None
    http: str | None = None
    expect_body: str | None = None
    forwarding: bool | None = None
    file: str | None = None
    contains: str | None = None
    lacks: str | None = None
    # netkit/ssh.py: a login to this target (no more than ``within`` seconds slower than a
    # baseline login to host ``baseline`` that looks up no names), or one that reuses a
    # master connection.
    ssh: str | None = None
    baseline: str | None = None
    within: float | None = None
    ssh_mux: str | None = None
    expect: str = "success"
    wait: int = 2

    @property
    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)

    def describe(self) -> str:
        if self.kind in ("ssh", "ssh_mux"):  # slow-SSH lab
            from netkit import ssh
            return ssh.describe(self)
        negated = self.expect == "failure"
        if self.ping:
            return f"ping {self.ping} {'does not answer' if negated else 'answers'}"
        if self.handshake:
            return f"{self.handshake} has a handshake with every peer" + (" (not)" * negated)
        if self.route:
            table = f" table {self.table}" if self.table else ""
            return f"ip route{table} {'lacks' if negated else 'has'} `{self.route}`"
        if self.http:
            body = f" with `{self.expect_body}`" if self.expect_body else ""
            return f"GET {self.http} {'fails' if negated else 'answers'}{body}"
        if self.forwarding is not None:
            return f"net.ipv4.ip_forward is {'on' if self.forwarding != negated else 'off'}"
        text = self.contains if self.contains is not None else self.lacks
        has = (self.contains is not None) != negated
        return f"{self.file} {'has' if has else 'lacks'} `{text}`"

    def problems(self) -> str | None:
        """What is wrong with the check's fields, if anything."""
        if sum(getattr(self, k) is not None for k in CHECK_KINDS) != 1:
            return f"give one of {', '.join(CHECK_KINDS)}"
        kind = self.kind
        from netkit import ssh  # slow-SSH lab: `baseline` and `within` go with ssh
        if ssh.problems(self):
            return ssh.problems(self)
        if self.table is not None and kind != "route":
            return "table goes with route"
        if self.expect_body is not None and kind != "http":
            return "expect_body goes with http"
        if kind == "file" and (self.contains is None) == (self.lacks is None):
            return "a file check gives contains or lacks"
        if kind != "file" and (self.contains is not None or self.lacks is not None):
            return "contains and lacks go with file"
        if self.expect not in ("success", "failure"):
            return "expect is success or failure"
        return None


@dataclass(frozen=True)
class Outcome:
    check: Check
    passed: bool
    # "success"/"failure" for ping and http; "on"/"off" for forwarding; "present"/"missing"
    # otherwise (for a file check: whether the text is in the file).
    observed: str
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {"name": self.check.name, "host": self.check.host, "kind": self.check.kind,
                "passed": self.passed, "observed": self.observed, "detail": self.detail}

    def result(self, lab: str) -> StepResult:
        """The outcome as labsteps reports it: a network lab's checks are its reported steps
        (the check's name), the detail only when it did not pass."""
        detail = "" if self.passed else f"{self.check.describe()}: {self.observed}" + (
            f" ({self.detail})" if self.detail else "")
        return StepResult(lab, self.check.name, self.passed, detail)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def evaluate(check: Check, shell: Shell, keys: dict[str, str] | None = None,
             topology: Topology | None = None) -> Outcome:
    """Read the check's fact on its host (``keys`` fill in a file check's placeholders; an
    ssh check with a baseline needs the ``topology`` for the baseline host's address)."""
    host = check.host
    if check.kind in ("ssh", "ssh_mux"):  # slow-SSH lab
        from netkit import ssh
        return ssh.evaluate(check, shell, topology)
    want = check.expect == "success"
    if check.ping:
        result = shell(host, f"ping -c 1 -W {check.wait} {check.ping}")
        ok = result.status == 0
        lines = (result.stderr + result.stdout).strip().splitlines()
        detail = next((x for x in lines if "packets transmitted" in x or "ping:" in x), "")
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    if check.handshake:
        result = shell(host, f"wg show {check.handshake} latest-handshakes")
        rows = [line.split() for line in result.stdout.splitlines() if line.strip()]
        missing = [r[0][:8] + "..." for r in rows if len(r) < 2 or r[1] == "0"]
        ok = bool(result.status == 0 and rows and not missing)
        detail = (result.stderr.strip() if result.status else "no peers" if not rows
                  else f"no handshake with {', '.join(missing)}" if missing
                  else f"{len(rows)} peer(s)")
        return Outcome(check, ok == want, "present" if ok else "missing", detail)
    if check.route:
        line = f"ip route show table {check.table}" if check.table else "ip route"
        result = shell(host, line)
        words = check.route.split()
        ok = any(r.split()[: len(words)] == words for r in result.stdout.splitlines())
        return Outcome(check, ok == want, "present" if ok else "missing",
                       "" if ok == want else f"{line}: {(result.stdout + result.stderr).strip()!r}")
    if check.http:
        result = shell(host, f"curl -s -m {check.wait} {check.http}")
        ok = result.status == 0 and (check.expect_body or "") in result.stdout
        detail = (_first_line(result.stdout) if result.status == 0
                  else f"curl exited with {result.status}")
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    if check.forwarding is not None:
        result = shell(host, "sysctl net.ipv4.ip_forward")
        value = result.stdout.strip().rsplit("=", 1)[-1].strip()
        observed = "on" if result.status == 0 and value not in ("", "0") else "off"
        ok = (observed == "on") == check.forwarding
        return Outcome(check, ok == want, observed, _first_line(result.stdout + result.stderr))
    result = shell(host, f"cat {check.file}")
    text = substitute(check.contains if check.contains is not None else check.lacks or "",
                      keys or {})
    present = result.status == 0 and text in result.stdout
    ok = present if check.contains is not None else result.status == 0 and not present
    detail = _first_line(result.stderr) if result.status else ""
    return Outcome(check, ok == want, "present" if present else "missing", detail)


def validate(topology: Topology, shell: Shell,
             log: Callable[[str], None] = print) -> tuple[int, list[Outcome]]:
    """Run every check, print one line each; returns (exit status, outcomes)."""
    if not topology.checks:
        log("no checks in this lab")
        return NO_TESTS, []
    keys: dict[str, str] = {}
    if any(PLACEHOLDER.search(f"{c.contains}{c.lacks}") for c in topology.checks):
        read_keys(topology, shell, keys)
    outcomes = []
    for check in topology.checks:
        outcome = evaluate(check, shell, keys, topology)
        outcomes.append(outcome)
        mark = "PASS" if outcome.passed else "FAIL"
        detail = f" ({outcome.detail})" if outcome.detail else ""
        log(f"[{mark}] {check.host}: {check.describe()} -- {check.name}{detail}")
    failed = sum(not o.passed for o in outcomes)
    log(f"{len(outcomes) - failed} of {len(outcomes)} checks passed")
    return (FAILED if failed else PASSED), outcomes


def snapshot(topology: Topology, shell: Shell) -> dict[str, dict[str, str]]:
    """`wg show IF dump` of every WireGuard interface, host by host: the keys, endpoints,
    handshake times and byte counters the lab ended with ("" for an interface that is
    down)."""
    return {name: {iface: shell(name, f"wg show {iface} dump").stdout
                   for iface in host.interfaces}
            for name, host in topology.hosts.items()}
