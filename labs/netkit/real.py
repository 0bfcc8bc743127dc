"""The real backend: Linux network namespaces, bridges, wireguard-go and wg-quick.

For a lab NAME, ``up`` makes (everything named ``nk-NAME-...``, recorded as it is made in
``/run/netkit/NAME/state.json`` so that ``down`` finds it even after a crash):

* a network namespace ``nk-NAME-lan`` holding one bridge ``br-SEGMENT`` per LAN segment, so
  that nothing of the lab lives in the namespace netkit was started from;
* per host, a network namespace ``nk-NAME-HOST`` with ``lo`` and ``eth0``, ``eth1``, ... (one
  veth per address, in the topology's order, whose other end ``HOST-ethN`` is a port of its
  segment's bridge). IPv6 is off and net.ipv4.ip_forward is 0 in it, as on a fresh machine
  (a new namespace would otherwise give a tun device an IPv6 link-local address, which
  `wg-quick save` would write into the file, and kernel WireGuard has none);
* per host, a holder process (``sleep``) that owns the host's own mount namespace, with a
  tmpfs on /run (wireguard-go puts its control socket at /var/run/wireguard/IF.sock, which
  would otherwise be one file for every namespace) and on /etc/wireguard (wg-quick's files),
  and, when the topology gives one, the host's own /etc/hosts bind-mounted from the state
  folder (so that `wg` resolves Endpoint host names as the lab says);
* per WireGuard interface the runner makes, a ``wireguard-go -f IF`` in the host's
  namespaces (wg-quick, when a script calls it, starts its own: `ip link add IF type
  wireguard` fails without the kernel module and wireguard-tools' src/wg-quick/linux.bash
  add_if() falls back to ``wireguard-go IF``);
* per service, its server (netkit/http_server.py for ``http:PORT``) in the host's namespaces.

Commands run as ``nsenter -t HOLDER -n -m sh -c LINE``; after each, the processes found in
the lab's network namespaces (wg-quick's wireguard-go, say) are recorded too. ``down`` stops
every process in the lab's namespaces and every recorded one (by pid, after checking that
the pid is still the process that was started), deletes every namespace of the lab (which
deletes its links) and the state folder; it is harmless to run it when nothing is up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from netkit import FILE_ROOTS, Host, NetkitError, Result, Topology, hosts_text

STATE_ROOT = Path("/run/netkit")
TOOLS = ("ip", "nsenter", "unshare", "wireguard-go", "wg", "wg-quick", "ping", "sh",
         "sysctl", "iptables", "curl")
# Debian packages with TOOLS.
PACKAGES = "wireguard-go wireguard-tools iproute2 iputils-ping util-linux procps iptables curl"
COMMAND_TIMEOUT = 30
SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")
HTTP_SERVER = Path(__file__).resolve().with_name("http_server.py")
WIREGUARD_CONFIG_DIR = "/etc/wireguard"


def prefix(topology: Topology) -> str:
    return f"nk-{topology.name}-"


def state_dir(topology: Topology) -> Path:
    return STATE_ROOT / topology.name


def tool_path() -> str:
    """PATH with the sbin folders, which a user's PATH often lacks (sysctl, iptables)."""
    path = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join([*path, *(d for d in SBIN if d not in path)])


def missing_tools(wireguard: str = "go") -> list[str]:
    """The TOOLS not found; with kernel WireGuard, wireguard-go is not needed."""
    return [tool for tool in TOOLS if shutil.which(tool, path=tool_path()) is None
            and not (tool == "wireguard-go" and wireguard == "kernel")]


# How the runner makes the WireGuard interfaces of a host's ``wireguard`` list: "kernel"
# (`ip link add IF type wireguard`, the lab VM's Debian kernel has the module), "go"
# (wireguard-go), or "auto": the kernel's when it can. wg-quick decides for itself, the same
# way (add_if() in wireguard-tools' src/wg-quick/linux.bash tries `ip link add` first).
WIREGUARD_MODES = ("auto", "kernel", "go")


def kernel_wireguard() -> bool:
    """Whether this kernel makes WireGuard links: one `ip link add` in a throwaway network
    namespace, which takes the link with it when it ends."""
    unshare = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-Urn"]
    try:
        done = subprocess.run([*unshare, "ip", "link", "add", "nkprobe0", "type", "wireguard"],
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                              env={**os.environ, "PATH": tool_path()})
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def firewall_backend() -> str:
    """"nft" when nft is on the PATH the lab's commands run with, else "iptables": what
    wg-quick uses for a default route's firewall rules (add_default() and remove_firewall()
    in wireguard-tools' src/wg-quick/linux.bash test `type -p nft`). The hosts' mount
    namespaces share the machine's programs, so this is the same in every host."""
    return "nft" if shutil.which("nft", path=tool_path()) else "iptables"


def wireguard_implementation(mode: str) -> str:
    """"kernel" or "go" for ``mode`` (one of WIREGUARD_MODES)."""
    if mode not in WIREGUARD_MODES:
        raise NetkitError(f"--wireguard {mode}: give one of {', '.join(WIREGUARD_MODES)}")
    if mode == "go":
        return "go"
    if kernel_wireguard():
        return "kernel"
    if mode == "kernel":
        raise NetkitError("--wireguard kernel: `ip link add IF type wireguard` fails here (no "
                          "WireGuard kernel module); use --wireguard go (wireguard-go)")
    return "go"


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                          env={**os.environ, "PATH": tool_path()})
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
        self.data: dict = {"namespaces": [], "processes": {}, "holders": {},
                           "wireguard": None, "firewall": None}
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

    def adopt(self) -> None:
        """Record the processes that run in the lab's namespaces and are not recorded yet
        (those the scripts started: wg-quick's wireguard-go)."""
        known = {tuple(v) for v in self.data["processes"].values()}
        found = [(pid, _start_time(pid)) for pid in lab_processes(self.data["namespaces"])]
        new = [(pid, started) for pid, started in found
               if started is not None and (pid, started) not in known]
        for pid, started in new:
            self.data["processes"][f"{_comm(pid) or 'process'} {pid}"] = [pid, started]
        if new:
            self.save()


def namespaces(topology: Topology) -> list[str]:
    """The lab's network namespaces that exist now."""
    done = _run("ip", "netns", "list", check=False)
    names = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    return [n for n in names if n.startswith(prefix(topology))]


def lab_processes(names: list[str]) -> list[int]:
    """The pids of every process in one of the network namespaces ``names`` (found by the
    namespace's inode, which /run/netns/NAME keeps alive, so it cannot be another's)."""
    inodes = set()
    for ns in names:
        with contextlib.suppress(OSError):
            stat = os.stat(f"/run/netns/{ns}")
            inodes.add((stat.st_dev, stat.st_ino))
    pids = []
    if not inodes:
        return pids
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = os.stat(f"/proc/{entry.name}/ns/net")
            except OSError:
                continue  # gone, or not ours to look at
            if (stat.st_dev, stat.st_ino) in inodes:
                pids.append(int(entry.name))
    return pids


def up(topology: Topology, wireguard: str = "go") -> None:
    """Make the lab's namespaces, segments, hosts, WireGuard interfaces (``wireguard``:
    "kernel" or "go", see wireguard_implementation()) and services (after a ``down``)."""
    down(topology)
    state = State(topology)
    state.data["wireguard"] = wireguard
    state.data["firewall"] = firewall_backend()
    state.save()
    lan = prefix(topology) + "lan"
    _run("ip", "netns", "add", lan)
    state.add_namespace(lan)
    _run("ip", "-n", lan, "link", "set", "lo", "up")
    segments = dict.fromkeys([*topology.segments,
                              *(s for h in topology.hosts.values() for s, _a in h.addresses)])
    for segment in segments:
        _run("ip", "-n", lan, "link", "add", f"br-{segment}", "type", "bridge")
        _run("ip", "-n", lan, "link", "set", f"br-{segment}", "up")
    for host in topology.hosts.values():
        _host_up(topology, state, host, lan, wireguard)


def _host_up(topology: Topology, state: State, host: Host, lan: str,
             wireguard: str = "go") -> None:
    ns = prefix(topology) + host.name
    _run("ip", "netns", "add", ns)
    state.add_namespace(ns)
    _run("nsenter", f"--net=/run/netns/{ns}", "sysctl", "-qw", "net.ipv4.ip_forward=0",
         "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
    _run("ip", "-n", ns, "link", "set", "lo", "up")
    for index, (segment, address) in enumerate(host.addresses):
        eth, port = f"eth{index}", f"{host.name}-eth{index}"
        # Made inside the host's namespace: `ip link add` checks the new name in the
        # namespace it runs in, and the machine's own may have an eth0 already.
        _run("ip", "-n", ns, "link", "add", eth, "type", "veth", "peer", "name", port,
             "netns", lan)
        _run("ip", "-n", lan, "link", "set", "dev", port, "master", f"br-{segment}", "up")
        _run("ip", "-n", ns, "addr", "add", address, "dev", eth)
        _run("ip", "-n", ns, "link", "set", eth, "up")
    mounts = []
    if host.hosts_file:
        hosts = state_dir(topology) / f"{host.name}.hosts"
        hosts.write_text(hosts_text(host))
        hosts.chmod(0o644)
        # Before the tmpfs on /run hides the state folder; the bind mount stays.
        mounts.append(f"mount --bind {shlex.quote(str(hosts))} /etc/hosts")
    if Path(WIREGUARD_CONFIG_DIR).is_dir():
        mounts.append(f"mount -t tmpfs -o mode=0700 netkit {WIREGUARD_CONFIG_DIR}")
    elif host.wg_quick or any(f.path.startswith(f"{WIREGUARD_CONFIG_DIR}/")
                              for f in host.files):
        raise NetkitError(f"{host.name} needs {WIREGUARD_CONFIG_DIR} to mount its own on "
                          "(Debian's wireguard-tools makes it)")
    mounts.append("mount -t tmpfs -o mode=0755 netkit /run")
    holder = _spawn(state, f"holder {host.name}", [
        "nsenter", f"--net=/run/netns/{ns}", "unshare", "--mount", "--propagation",
        "private", "sh", "-c", " && ".join([*mounts, "exec sleep infinity"])],
        log=state_dir(topology) / f"{host.name}-holder.log", holder_of=host.name)
    _wait(lambda: _comm(holder) == "sleep", f"{host.name}'s mount namespace "
          f"({state_dir(topology) / f'{host.name}-holder.log'})")
    for iface in host.wireguard:
        if wireguard == "kernel":
            # The link lives in the host's network namespace, and dies with it.
            _run("ip", "-n", ns, "link", "add", iface, "type", "wireguard")
            continue
        log = state_dir(topology) / f"{host.name}-{iface}.log"
        _spawn(state, f"wireguard-go {host.name} {iface}", [
            "nsenter", "-t", str(holder), "-n", "-m", "wireguard-go", "-f", iface], log=log)
        sock = Path(f"/proc/{holder}/root/run/wireguard/{iface}.sock")
        _wait(sock.exists, f"wireguard-go for {host.name}'s {iface} ({log})")
    for service in host.services:
        log = state_dir(topology) / f"{host.name}-{service.kind}-{service.port}.log"
        _spawn(state, f"{service.kind} server {host.name}:{service.port}", [
            "nsenter", "-t", str(holder), "-n", "-m", sys.executable, str(HTTP_SERVER),
            "--host", host.name, "--port", str(service.port)], log=log)
        _wait(lambda port=service.port: _listening(holder, port),
              f"{host.name}'s {service.kind} server on port {service.port} ({log})")


def _listening(pid: int, port: int) -> bool:
    """Whether a TCP socket listens on ``port`` in the network namespace of ``pid``
    (/proc/PID/net/tcp: local address and port in hex, state 0A is LISTEN)."""
    try:
        rows = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "0A"
               for row in rows)


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
                                 env={**os.environ, "LOG_LEVEL": "error", "PATH": tool_path()})
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


def _alive_holder(state: State, host: str) -> int:
    holder = state.holder(host)
    if _start_time(holder) != state.data["processes"][f"holder {host}"][1]:
        raise NetkitError(f"host {host} is gone (its namespace holder {holder} exited)")
    return holder


def shell(topology: Topology):
    """A ``netkit.Shell`` running lines in the hosts' namespaces."""
    state = State(topology)
    # Without LOG_LEVEL, the wireguard-go that wg-quick starts detaches from our pipes (its
    # main.go gives the daemon /dev/null unless LOG_LEVEL asks for logs); else we would wait
    # for it to close them.
    env = {**{k: v for k, v in os.environ.items() if k != "LOG_LEVEL"}, "PATH": tool_path()}

    def run(host: str, line: str) -> Result:
        holder = _alive_holder(state, host)
        done = subprocess.run(["nsenter", "-t", str(holder), "-n", "-m", "sh", "-c", line],
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                              env=env)
        state.adopt()
        return Result(done.stdout, done.stderr, done.returncode)

    return run


def installer(topology: Topology):
    """A ``netkit.Installer`` writing files into a host's own tmpfs mounts, through the
    holder's view of the filesystem (/proc/HOLDER/root)."""
    state = State(topology)

    def install(host: str, path: str, text: str, mode: int) -> None:
        if not path.startswith(FILE_ROOTS):
            raise NetkitError(f"{host}: {path} is not under {' or '.join(FILE_ROOTS)}")
        root = Path(f"/proc/{_alive_holder(state, host)}/root")
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.fchmod(fd, mode)
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    return install


def down(topology: Topology) -> list[str]:
    """Stop, delete and remove everything of the lab; returns what it removed."""
    state = State(topology)
    removed = []
    recorded = {pid: (label, started)
                for label, (pid, started) in state.data["processes"].items()}
    names = list(dict.fromkeys([*state.data["namespaces"], *namespaces(topology)]))
    for pid in lab_processes(names):
        recorded.setdefault(pid, (f"{_comm(pid) or 'process'} {pid}", _start_time(pid)))
    # Holders last: the others first (wireguard-go removes its interface and socket on
    # SIGTERM).
    holders = set(state.data["holders"].values())
    for pid, (label, started) in sorted(recorded.items(), key=lambda kv: kv[0] in holders):
        if started is not None and _start_time(pid) == started and _state(pid) != "Z":
            _stop(pid)
            removed.append(f"{label} (pid {pid})")
    for ns in names:
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
