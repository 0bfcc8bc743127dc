"""The browser bridge: the only labsim module the page's Web Worker calls.

Everything crosses the JavaScript boundary as JSON strings so the worker needs no
Pyodide proxy juggling. A Bridge holds any number of terminal sessions keyed by the
id the page gives them, so one page can run many independent simulations.

Terminals that name a network (``data-network`` and ``data-host`` on the page) share one
labsim.net Network, each terminal a Session on its own host: alice's terminal can ping bob's.
The hosts get their LAN addresses in the page's order of terminals (192.168.50.10 for the
first host, .11 for the next; ``hosts`` lists them), whichever terminal is used first; a
host the list does not name is added when first used. A host's setup (``data-setup``: command
lines, such as `ip link add wg0 type wireguard` for a lesson that starts from an empty wg0)
runs, unseen, when the host is added. The hosts of a network share one
clock: a command runs at the latest time any of them has reached, so a handshake one host
made is as old on both sides. Resetting any terminal of a network resets the whole network:
every host starts afresh, with the same names, addresses and key generators. The hosts'
states are tied together (peers hold each other's keys, endpoints and handshakes), so a
fresh host among old ones would leave them with peers that no longer exist.

A terminal's machine runs one OpenZFS release (``zfs_version``: "2.3", "2.2", "2.1", the
names of labsim.zfs.versions; empty for the default). The page passes the reader's choice
with every command and with a reset; a session is made with the release of the call that
makes it and keeps it until it is reset, so changing the release means a fresh machine.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from labsim.net.model import Network, add_host
from labsim.scenarios import controls, get_scenario
from labsim.scenarios.base import AnyScenario, description, simulate
from labsim.shell.base import CommandResult, interleaved
from labsim.shell.session import Session
from labsim.zfs.versions import DEFAULT_VERSION, TAUGHT_VERSIONS, ZfsVersion, get_version


@dataclass
class SharedNetwork:
    """A network the terminals of a page share: its hosts and their setup lines in the
    order they were added (so that a reset adds them again in that order), and the
    sessions on it by id."""

    network: Network = field(default_factory=Network)
    hosts: list[tuple[str, str]] = field(default_factory=list)
    sessions: dict[str, Session] = field(default_factory=dict)

    def host(self, name: str, setup: str = "") -> None:
        if name in self.network.hosts:
            return
        add_host(self.network, name)
        self.hosts.append((name, setup))
        if setup:
            # What the setup changes lives in the host (links, addresses, WireGuard), so a
            # session of its own is enough; the terminal's session comes later.
            Session(network=self.network, hostname=name).run(setup)


def _version(zfs_version: str) -> ZfsVersion:
    """The release a page names ("2.1"), the default for an empty name; ValueError for one
    labsim does not know."""
    return get_version(zfs_version) if zfs_version else DEFAULT_VERSION


def _host_list(hosts: str) -> list[tuple[str, str]]:
    """The page's hosts of a network: JSON, a list of names or of [name, setup] pairs."""
    if not hosts:
        return []
    listed = json.loads(hosts)
    return [(h, "") if isinstance(h, str) else (h[0], h[1] if len(h) > 1 else "")
            for h in listed]


@dataclass
class Steps:
    """Work a step per call of ``step()``, which says whether it did one (False once none
    is left): how the worker takes work it does between the page's calls."""

    work: Iterator[None]

    def step(self) -> bool:
        return next(self.work, _DONE) is not _DONE


_DONE = object()

REHEARSALS = 4
"""How many times the page's worker runs a widget's scenario with its defaults while the
reader reads, after the scenario's one-off work (Bridge.warming). V8 runs WebAssembly
with its baseline compiler (Liftoff) first and compiles a function with its optimizing
tier (TurboFan) only once it has run hot, on the browser's background threads; the
worker starts from the build's memory snapshot, with nothing of the interpreter's paths
compiled yet. Measured per thread in Debian's chromium 156 on lesson 1 (Pyodide
314.0.7, CPython 3.14): its first runs took 270, 160, 125, 105 ms of the worker's CPU
while the renderer's background threads spent 650, 240, 110, 100 ms compiling, then
65-90 ms and 10-25 ms a run; the page's first changes waited for that. After four
rehearsals the compiling was mostly done before the first change (on a machine busy
with other work it can lag behind still). The reader's first change waits at most for
what is left of them."""


def _rehearsals(scenario: AnyScenario) -> Iterator[None]:
    """REHEARSALS runs of ``scenario`` with its defaults and their JSON, as the page asks
    for them (Bridge.simulate), a step each; what they return is not kept."""
    values = controls.defaults(scenario.controls)
    for _ in range(REHEARSALS):
        json.dumps(simulate(scenario, values))
        yield


@dataclass
class Bridge:
    sessions: dict[str, Session] = field(default_factory=dict)
    networks: dict[str, SharedNetwork] = field(default_factory=dict)
    # session id -> the network it is a host of (only for terminals that name one)
    session_networks: dict[str, str] = field(default_factory=dict)

    def describe(self, scenario: str) -> str:
        """Controls and defaults of a scenario, as JSON."""
        return json.dumps(description(get_scenario(scenario)))

    def warm(self, scenario: str) -> None:
        """Do now, while the reader is still reading, the work a scenario does once per
        process on its first run (the copies widget fills three pools): the scenario's
        ``warm()``. Its first control change then costs what the others do."""
        for _ in get_scenario(scenario).warm():
            pass

    def warming(self, scenario: str, rehearse: bool = False) -> Steps:
        """The same work as ``warm``, a short step per call of the result's ``step()``: the
        page's worker does them between the page's calls (a command typed in a terminal
        waits for one step, not for the three pools). With ``rehearse`` (the page's
        worker), then REHEARSALS runs of the scenario with its defaults, a step each."""
        found = get_scenario(scenario)
        work = found.warm()
        return Steps(itertools.chain(work, _rehearsals(found)) if rehearse else work)

    def simulate(self, scenario: str, params_json: str) -> str:
        """Run a scenario with the given parameters; returns {figure, summary, transcript}."""
        params = json.loads(params_json) if params_json else {}
        return json.dumps(simulate(get_scenario(scenario), params))

    def terminal(self, session_id: str, line: str, network: str = "", host: str = "",
                 hosts: str = "", zfs_version: str = "") -> str:
        """Run one command line in the named session; returns {stdout, stderr, status, output},
        output: [[1 or 2, text], ...], what a terminal shows in the order it was written.

        With ``network``, the session is host ``host`` (default: the session id) of that
        shared network; ``hosts`` (JSON: names, or [name, setup] pairs) are the page's
        hosts of the network, in page order, added first when the network is new.
        ``zfs_version`` is the release a new session runs; an existing one keeps its own."""
        version = _version(zfs_version)
        session = self._session(session_id, network, host or session_id, hosts, version)
        try:
            result = session.run(line)
        except Exception as err:  # a simulator bug must not kill the page's terminal
            result = CommandResult.fail(
                f"labsim: internal error ({type(err).__name__}: {err}); please report it", 70)
        # output: the two streams in the order a terminal shows them ([fd, text] pairs)
        return json.dumps({"stdout": result.stdout, "stderr": result.stderr,
                           "status": result.status,
                           "output": [list(piece) for piece in interleaved(result)]})

    def complete(self, session_id: str, line: str, cursor: int, commands: str = "",
                 network: str = "", host: str = "", hosts: str = "", zfs_version: str = "") -> str:
        """Tab completion of the word before ``cursor`` in ``line`` (labsim.completion), in
        the named session; ``commands`` (JSON list) are the terminal's own commands.
        Returns {start, word, candidates, open}."""
        from labsim.completion import complete

        session = self._session(session_id, network, host or session_id, hosts,
                                _version(zfs_version))
        extra = json.loads(commands) if commands else []
        try:
            found = complete(session, line, cursor, extra).as_json()
        except Exception:  # a simulator bug must not break the terminal's Tab key
            found = {"start": cursor, "word": "", "candidates": [], "open": []}
        return json.dumps(found)

    def _session(self, session_id: str, network: str, host: str, hosts: str,
                 version: ZfsVersion = DEFAULT_VERSION) -> Session:
        session = self.sessions.get(session_id)
        # A session keeps what it was made as: a machine of its own, or a host of a network,
        # and its OpenZFS release.
        name = self.session_networks.get(session_id, "" if session is not None else network)
        if not name:
            if session is None:
                session = self.sessions[session_id] = Session(version=version)
            return session
        listed = _host_list(hosts)
        shared = self.networks.get(name)
        if shared is None:
            shared = self.networks[name] = SharedNetwork()
            for other, setup in listed:
                shared.host(other, setup)
        if session is None:
            shared.host(host, dict(listed).get(host, ""))
            session = Session(network=shared.network, hostname=host, version=version)
            self.sessions[session_id] = shared.sessions[session_id] = session
            self.session_networks[session_id] = name
        session.clock = max(s.clock for s in shared.sessions.values())
        return session

    def reset(self, session_id: str, zfs_version: str = "") -> None:
        """A fresh machine for the session; for a host of a network, a fresh network.

        With ``zfs_version``, a machine of its own is made at once, running that release
        (the page's release selector resets its terminals so); without, the next command
        makes it, with the release that command names."""
        version = _version(zfs_version)  # an unknown release fails before anything is lost
        self.sessions.pop(session_id, None)
        name = self.session_networks.get(session_id)
        if name is None:
            if zfs_version:
                self.sessions[session_id] = Session(version=version)
            return
        old = self.networks[name]
        fresh = self.networks[name] = SharedNetwork()
        for host, setup in old.hosts:
            fresh.host(host, setup)
        for other in old.sessions:
            self.sessions.pop(other, None)
            del self.session_networks[other]


def preload() -> Bridge:
    """Import every labsim module, then make the worker's Bridge.

    The site build runs this in Pyodide before it takes a memory snapshot
    (tools/pyodide_snapshot.mjs): the page's worker then starts from that snapshot with
    everything imported, and a terminal's first command pays for no import (the command
    modules are otherwise imported on first use, labsim.shell.registry)."""
    import importlib
    import pkgutil

    import labsim

    for module in pkgutil.walk_packages(labsim.__path__, "labsim."):
        if module.name != "labsim.__main__":  # the command line, which runs on import
            importlib.import_module(module.name)
    return Bridge()


# What Exercise runs, a step at a time: a little of what the page's terminals and widgets ask.
_EXERCISE = ("truncate -s 1G /var/tmp/w", "zpool create w /var/tmp/w", "zfs create w/fs",
             "dd if=/dev/urandom of=/w/fs/f bs=1M count=4", "zfs snapshot w/fs@s",
             "zpool list -v", "zfs list -t all", "zpool status", "zfs get used,compression w/fs",
             "zpool destroy w")


@dataclass
class Exercise:
    """A little of what the page asks Python (a pool made, written, listed and destroyed; a
    chart's JSON), on a machine of its own, one short step per call. The worker runs a few
    rounds after it starts from the build's snapshot (tools/pyodide_snapshot.mjs): V8
    compiles the interpreter's hot WebAssembly with its optimizing tier only once it has
    run for a while, which a normal start did while it imported labsim; from the snapshot
    that would otherwise happen during the reader's first commands and widget runs, which
    run 3-5 times slower meanwhile. Short steps let the page's own calls in between."""

    rounds: int = 3
    done: int = 0
    session: Session = field(default_factory=Session)

    def step(self) -> bool:
        """Run one step; False once every round is done."""
        steps = len(_EXERCISE) + 1
        if self.done >= self.rounds * steps:
            return False
        index = self.done % steps
        if index < len(_EXERCISE):
            self.session.run(_EXERCISE[index])
        else:
            scenario = get_scenario("metaslabs")
            json.dumps(simulate(scenario, controls.defaults(scenario.controls)))
        self.done += 1
        return True


def initial_payload(scenario: str, overrides: dict | None = None) -> dict[str, object]:
    """What the site build embeds in a page so the first chart needs no Python in the browser.

    ``overrides`` (a page's data-params) replace some defaults, and the defaults of the
    controls that follow them; the page's "reset" returns to these values. A widget with a
    release control (controls.ZFS_VERSION) is computed for the default release, whatever
    the reader chose: the page re-runs it in the browser when the choice differs.
    """
    sc = get_scenario(scenario)
    described = description(sc)
    defaults = controls.with_overrides(sc.controls, controls.defaults(sc.controls), overrides or {})
    described["defaults"] = defaults
    return {"describe": described, "result": simulate(sc, defaults)}


def release_choices() -> dict:
    """What the page's OpenZFS release selector offers (the site build embeds it in every
    page with a ZFS terminal or a widget with a release control): the taught releases,
    newest first, as [name, release] pairs, the default's name, and the name of the widget
    control it drives."""
    return {"control": controls.ZFS_VERSION, "default": DEFAULT_VERSION.name,
            "versions": [[v.name, v.release] for v in TAUGHT_VERSIONS]}


def has_release_control(scenario: str) -> bool:
    """Whether a scenario's widget picks the OpenZFS release (its controls have one named
    controls.ZFS_VERSION), so that the page's selector drives it."""
    return any(c["name"] == controls.ZFS_VERSION for c in get_scenario(scenario).controls)
