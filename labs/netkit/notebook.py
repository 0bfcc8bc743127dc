"""A network lab in a notebook: the same hosts, scripts and checks as `python -m netkit run`,
one step per cell.

    from netkit.notebook import NetLab

    lab = NetLab("01-wg-peers")          # or NetLab("01-wg-peers", variant="wrong-allowed-ips")
    lab.up()                             # namespaces, links, the runner's WireGuard interfaces
    lab.step("keys")                     # that step's lines on every host that has it
    lab.step("peers")
    lab.validate()                       # the lab's checks; raises when one fails
    lab.run("alice", "ping -c 1 -W 1 10.0.0.3")   # any command on a host
    lab.down()                           # removes everything up made

It uses the real backend (labs/netkit/real.py) in the machine's own namespaces, so the lab
lives on between cells, and it needs root (the lab VM's JupyterLab runs as root). The
runner's WireGuard interfaces are kernel ones when the kernel has the module (the lab VM),
wireguard-go's otherwise; `wireguard="go"` or `"kernel"` chooses. Each step prints what the
CLI prints: a ``# HOST: step NAME`` heading, the lab files installed, then every line as
``HOST$ LINE`` followed by its output. ``up()`` starts the lab afresh, whatever ran before.
Standard library only, like the rest of netkit.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import netkit
from labsteps.report import report_if_workshop
from netkit import NetkitError, Outcome, Result, Topology, real


class NetLabError(NetkitError):
    """A step run out of order, a lab that is not up, or a check that failed."""


@dataclass
class NetLab:
    """One lab of labs/net/ (its folder name, or a path), as written or as ``variant``."""

    name: str
    variant: str | None = None
    wireguard: str = "auto"
    log: Callable[[str], None] = print
    topology: Topology = field(init=False)
    # "kernel" or "go" once up.
    implementation: str | None = field(default=None, init=False)
    _shell: netkit.Shell | None = field(default=None, init=False, repr=False)
    _keys: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _done: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.topology = netkit.load(self.name)
        self.topology.scripts(self.variant)  # an unknown variant fails here

    @property
    def steps(self) -> list[str]:
        """The steps in the order they run (``""``: lines before the first marker)."""
        return list(dict.fromkeys(step for step, _h, _l in
                                  netkit.plan(self.topology, self.variant)))

    def up(self) -> None:
        """Make the lab afresh: whatever an earlier ``up`` left is removed first."""
        if os.geteuid() != 0:
            raise NetLabError("a network lab makes network namespaces: run JupyterLab as root "
                              "(the lab VM does), or use `python -m netkit run "
                              f"{self.topology.name}`, which works without root")
        implementation = real.wireguard_implementation(self.wireguard)
        missing = real.missing_tools(implementation)
        if missing:
            raise NetLabError(f"missing {', '.join(missing)} (Debian: {real.PACKAGES})")
        self._shell, self._keys, self._done = None, {}, []
        try:
            real.up(self.topology, implementation)
        except BaseException:
            real.down(self.topology)
            raise
        self.implementation = implementation
        self._shell = real.shell(self.topology)
        made = ("the kernel module" if implementation == "kernel" else "wireguard-go")
        hosts = ", ".join(self.topology.hosts)
        variant = f" (variant {self.variant})" if self.variant else ""
        self.log(f"{self.topology.name}{variant} is up: hosts {hosts}; WireGuard: {made}")
        if "" in self.steps:
            self._run_step("")

    def step(self, name: str) -> list[tuple[str, str, Result]]:
        """Run step ``name`` on every host that has it: the next step, in the scripts' order.
        Returns (host, line, result) per line."""
        self._require_up()
        todo = [s for s in self.steps if s not in self._done]
        if name not in self.steps:
            raise NetLabError(f"{self.topology.name} has no step {name!r} "
                              f"(steps: {', '.join(s for s in self.steps if s)})")
        if name in self._done:
            raise NetLabError(f"step {name} has run already: lab.up() starts the lab afresh")
        if name != todo[0]:
            raise NetLabError(f"run step {todo[0]!r} first (the steps run in this order: "
                              f"{', '.join(s for s in self.steps if s)})")
        return self._run_step(name)

    def _run_step(self, name: str) -> list[tuple[str, str, Result]]:
        # What netkit.configure() does for one step: keys first (a step's lines may name a
        # key an earlier step made), then each host's files and lines.
        shell = self._require_up()
        if self._done:
            netkit.read_keys(self.topology, shell, self._keys)
        install = real.installer(self.topology)
        files = self.topology.files(self.variant)
        done = []
        for step, host, lines in netkit.plan(self.topology, self.variant):
            if step != name:
                continue
            if step:
                self.log(f"# {host}: step {step}")
            for lab_file in files:
                if (lab_file.host, lab_file.step) == (host, step):
                    install(host, lab_file.path,
                            netkit.substitute(lab_file.source.read_text(), self._keys),
                            lab_file.mode)
                    self.log(f"# {host}: installed {lab_file.path} from {lab_file.source.name}")
            for raw in lines:
                line = netkit.substitute(raw, self._keys)
                result = self._echo(host, line, shell(host, line))
                done.append((host, line, result))
                expect_fail = raw.endswith(netkit.EXPECT_FAIL)
                if (result.status != 0) != expect_fail:
                    raise NetLabError(f"{host}: `{line}` exited with {result.status}"
                                      + (" (it should fail)" if expect_fail else ""))
        self._done.append(name)
        return done

    def run(self, host: str, line: str) -> Result:
        """One command line on ``host``, printed as the steps print theirs; a failing
        command is no error here (its output is the lesson)."""
        shell = self._require_up()
        if host not in self.topology.hosts:
            raise NetLabError(f"no host {host!r} (hosts: {', '.join(self.topology.hosts)})")
        return self._echo(host, line, shell(host, line))

    def validate(self, expect_failure: bool = False) -> list[Outcome]:
        """Run the lab's checks, one line each. Raises when one fails (so that the notebook
        stops there), or with ``expect_failure`` when none does (a broken variant)."""
        shell = self._require_up()
        status, outcomes = netkit.validate(self.topology, shell, self.log)
        # In a workshop, the instructor's live view gets them too (labsteps.report).
        delivery = report_if_workshop([o.result(self.topology.name) for o in outcomes])
        if delivery is not None:
            self.log(delivery.line())
        failed = [o.check.name for o in outcomes if not o.passed]
        if status == netkit.NO_TESTS:
            raise NetLabError(f"{self.topology.name} has no checks")
        if failed and not expect_failure:
            raise NetLabError(f"{len(failed)} of {len(outcomes)} checks failed: "
                              + "; ".join(failed))
        if expect_failure and not failed:
            raise NetLabError("every check passed, and this run was meant to break one")
        return outcomes

    def down(self) -> list[str]:
        """Remove every namespace, link and process of the lab; harmless when it is down."""
        removed = real.down(self.topology)
        self._shell, self._keys, self._done = None, {}, []
        processes = sum(not r.startswith("namespace ") for r in removed)
        self.log(f"{self.topology.name} is down: removed {len(removed) - processes} "
                 f"namespaces and {processes} processes")
        return removed

    def _require_up(self) -> netkit.Shell:
        if self._shell is None:
            raise NetLabError(f"{self.topology.name} is not up: run lab.up() first")
        return self._shell

    def _echo(self, host: str, line: str, result: Result) -> Result:
        self.log(f"{host}$ {line}\n{result.stdout}{result.stderr}".rstrip("\n"))
        return result
