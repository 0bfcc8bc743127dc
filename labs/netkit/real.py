"""The real backend: Linux network namespaces, a bridge, and wireguard-go.

For a lab NAME, ``up`` makes (everything named ``nk-NAME-...``, recorded as it is made in
``/run/netkit/NAME/state.json`` so that ``down`` finds it even after a crash):

* a network namespace ``nk-NAME-lan`` holding the bridge ``br0`` (the LAN), so that nothing
  of the lab lives in the namespace netkit was started from;
* per host, a network namespace ``nk-NAME-HOST`` with ``lo`` and ``eth0`` (a veth whose other
  end, named HOST, is a port of br0), and a holder process (``sleep``) that owns the host's
  own mount namespace, with a tmpfs on /run: wireguard-go puts its control socket at
  /var/run/wireguard/IF.sock, which would otherwise be one file for every namespace;
* per WireGuard interface, a ``wireguard-go -f IF`` in the host's namespaces.

Commands run as ``nsenter -t HOLDER -n -m sh -c LINE``. ``down`` stops the recorded processes
(by pid, after checking that the pid is still the process that was started), deletes every
namespace of the lab (which deletes its links) and the state folder; it is harmless to run it
when nothing is up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from netkit import NetkitError, Result, Topology

STATE_ROOT = Path("/run/netkit")
TOOLS = ("ip", "nsenter", "unshare", "wireguard-go", "wg", "ping", "sh")
COMMAND_TIMEOUT = 30


def prefix(topology: Topology) -> str:
    return f"nk-{topology.name}-"


def state_dir(topology: Topology) -> Path:
    return STATE_ROOT / topology.name


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    if check and done.returncode != 0:
        raise NetkitError(f"`{' '.join(argv)}` exited with {done.returncode}: "
                          f"{done.stderr.strip()}")
    return done


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat: tells a process from a later one with the same pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


class State:
    """What ``up`` made, written to disk after every change."""

    def __init__(self, topology: Topology):
        self.path = state_dir(topology) / "state.json"
        self.data: dict = {"namespaces": [], "processes": {}, "holders": {}}
        if self.path.is_file():
            self.data = json.loads(self.path.read_text())

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        tmp.replace(self.path)

    def add_namespace(self, name: str) -> None:
        self.data["namespaces"].append(name)
        self.save()

    def add_process(self, label: str, pid: int, holder_of: str | None = None) -> None:
        self.data["processes"][label] = [pid, _start_time(pid)]
        if holder_of is not None:
            self.data["holders"][holder_of] = pid
        self.save()

    def holder(self, host: str) -> int:
        try:
            return self.data["holders"][host]
        except KeyError:
            raise NetkitError(f"host {host} is not up (run `netkit up` first)") from None


def namespaces(topology: Topology) -> list[str]:
    """The lab's network namespaces that exist now."""
    done = _run("ip", "netns", "list", check=False)
    names = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    return [n for n in names if n.startswith(prefix(topology))]


def up(topology: Topology) -> None:
    """Make the lab's namespaces, LAN and WireGuard interfaces (after a ``down``)."""
    down(topology)
    state = State(topology)
    state.save()
    lan = prefix(topology) + "lan"
    _run("ip", "netns", "add", lan)
    state.add_namespace(lan)
    _run("ip", "-n", lan, "link", "set", "lo", "up")
    _run("ip", "-n", lan, "link", "add", "br0", "type", "bridge")
    _run("ip", "-n", lan, "link", "set", "br0", "up")
    for host in topology.hosts.values():
        ns = prefix(topology) + host.name
        _run("ip", "netns", "add", ns)
        state.add_namespace(ns)
        _run("ip", "-n", ns, "link", "set", "lo", "up")
        _run("ip", "link", "add", "eth0", "netns", ns, "type", "veth",
             "peer", "name", host.name, "netns", lan)
        _run("ip", "-n", lan, "link", "set", "dev", host.name, "master", "br0", "up")
        _run("ip", "-n", ns, "addr", "add", host.address, "dev", "eth0")
        _run("ip", "-n", ns, "link", "set", "eth0", "up")
        holder = _spawn(state, f"holder {host.name}", [
            "nsenter", f"--net=/run/netns/{ns}", "unshare", "--mount", "--propagation",
            "private", "sh", "-c", "mount -t tmpfs -o mode=0755 netkit /run && "
            "exec sleep infinity"], holder_of=host.name)
        _wait(lambda pid=holder: _comm(pid) == "sleep", f"{host.name}'s mount namespace")
        for iface in host.wireguard:
            log = state_dir(topology) / f"{host.name}-{iface}.log"
            _spawn(state, f"wireguard-go {host.name} {iface}", [
                "nsenter", "-t", str(holder), "-n", "-m", "wireguard-go", "-f", iface],
                log=log)
            sock = Path(f"/proc/{holder}/root/run/wireguard/{iface}.sock")
            _wait(sock.exists, f"wireguard-go for {host.name}'s {iface} ({log})")


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _spawn(state: State, label: str, argv: list[str], log: Path | None = None,
           holder_of: str | None = None) -> int:
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True,
                                 env={**os.environ, "LOG_LEVEL": "error"})
    finally:
        if log:
            out.close()
    state.add_process(label, child.pid, holder_of)
    return child.pid


def _wait(ready, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise NetkitError(f"{what} did not come up within {timeout:.0f} s")
        time.sleep(0.01)


def shell(topology: Topology):
    """A ``netkit.Shell`` running lines in the hosts' namespaces."""
    state = State(topology)

    def run(host: str, line: str) -> Result:
        holder = state.holder(host)
        if _start_time(holder) != state.data["processes"][f"holder {host}"][1]:
            raise NetkitError(f"host {host} is gone (its namespace holder {holder} exited)")
        done = subprocess.run(["nsenter", "-t", str(holder), "-n", "-m", "sh", "-c", line],
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        return Result(done.stdout, done.stderr, done.returncode)

    return run


def down(topology: Topology) -> list[str]:
    """Stop, delete and remove everything of the lab; returns what it removed."""
    state = State(topology)
    removed = []
    # wireguard-go first: it removes its interface and socket on SIGTERM.
    processes = sorted(state.data["processes"].items(), key=lambda kv: kv[0].startswith("h"))
    for label, (pid, started) in processes:
        if started is not None and _start_time(pid) == started:
            _stop(pid)
            removed.append(f"{label} (pid {pid})")
    for ns in dict.fromkeys([*state.data["namespaces"], *namespaces(topology)]):
        if _run("ip", "netns", "del", ns, check=False).returncode == 0:
            removed.append(f"namespace {ns}")
    shutil.rmtree(state_dir(topology), ignore_errors=True)
    with contextlib.suppress(OSError):
        STATE_ROOT.rmdir()  # only when no other lab is up
    return removed


def _stop(pid: int) -> None:
    started = _start_time(pid)
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            _reap(pid)
            if _start_time(pid) != started or _state(pid) == "Z":
                return
            time.sleep(0.01)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def _reap(pid: int) -> None:
    """Collect our own child's exit status, so that it does not stay a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
