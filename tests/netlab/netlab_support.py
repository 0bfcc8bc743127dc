"""What the namespace-lab tests share: running netkit's CLI, running a lab in labsim, making
a real transcript comparable with labsim's, and proving that a real run left nothing behind.

Real runs use network namespaces, wireguard-go and wg-quick (labs/netkit/real.py): as root
they use the machine's namespaces, otherwise `netkit run` puts itself in a user namespace
(`unshare -Urnm`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABS_DIR = ROOT / "labs"
if str(LABS_DIR) not in sys.path:
    sys.path.insert(0, str(LABS_DIR))

import netkit  # noqa: E402
from netkit import http_server, real, sim  # noqa: E402, F401 - for the tests

# Debian packages with the tools the real runs need.
PACKAGES = real.PACKAGES
KEY = re.compile(r"[A-Za-z0-9+/]{43}=")
# What wg-quick prints only over wireguard-go: the kernel module is missing, so add_if() in
# wireguard-tools' src/wg-quick/linux.bash falls back to userspace, and wireguard-go prints
# its banner. labsim models kernel WireGuard (the lab VM's), where none of this appears.
USERSPACE_FALLBACK = re.compile(
    r"^(Error: Unknown device type\.|\[!\] Missing WireGuard kernel module\..*"
    r"|\[#\] wireguard-go \S+|[\u2500-\u257f].*)\n", re.M)
# The ports WireGuard picks for an interface without ListenPort, and the clock: they differ
# from run to run.
LISTEN_PORTS = {"51820", "51821"}
ENDPOINT = re.compile(r"\b(\d+\.\d+\.\d+\.\d+):(\d+)\b")
LISTEN_PORT = re.compile(r"^(ListenPort = |listening port: )(\d+)$", re.M)
EPOCH = re.compile(r"\t1[0-9]{9}$", re.M)
PING_TIMES = [(re.compile(r"time=[0-9.]+ ms"), "time=<T> ms"),
              (re.compile(r"rtt min/avg/max/mdev = \S+ ms"), "rtt min/avg/max/mdev = <RTT> ms"),
              (re.compile(r", time \d+ms"), ", time <T>ms")]


def netkit_unprivileged(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m netkit ARGS` as a user without privileges: this user, or user nobody when
    the tests run as root. nobody runs a system python3 (the venv's may live under /root)
    on a copy of labs/netkit and labs/net in a folder it may read: a clone in /root (mode
    700 on Debian) is out of its reach. netkit needs only the standard library."""
    if os.geteuid() != 0:
        return subprocess.run([sys.executable, "-m", "netkit", *args], cwd=LABS_DIR,
                              env={**os.environ, "PYTHONPATH": str(LABS_DIR), "HOME": "/tmp"},
                              capture_output=True, text=True, timeout=timeout)
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3")
                   if os.access(p, os.X_OK) and subprocess.run(
                       [p, "-c", "import tomllib"], capture_output=True).returncode == 0),
                  None) if shutil.which("setpriv") else None
    assert python, "setpriv and a system python3 (3.11 or newer) to drop root"
    with tempfile.TemporaryDirectory(prefix="zfl-netkit-") as folder:
        labs = Path(folder) / "labs"
        for part in ("netkit", "labsteps", "net"):
            shutil.copytree(LABS_DIR / part, labs / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
        for path in [Path(folder), *Path(folder).rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               python, "-m", "netkit", *args], cwd=labs,
                              env={**os.environ, "PYTHONPATH": str(labs), "HOME": "/tmp"},
                              capture_output=True, text=True, timeout=timeout)


def netkit_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(LABS_DIR)}
    return subprocess.run([sys.executable, "-m", "netkit", *args], cwd=LABS_DIR, env=env,
                          capture_output=True, text=True, timeout=timeout)


@dataclass(frozen=True)
class RealRun:
    """One `netkit run` of a lab: its --report JSON (checks, transcript, wireguard,
    processes; None if it wrote none), exit status, stdout + stderr, and wall seconds."""

    data: dict | None
    returncode: int
    output: str
    seconds: float


def run_for_real(lab: str, variant: str | None = None) -> RealRun:
    """`netkit run LAB [--variant V] --quiet --report FILE`, timed."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        args = ["run", lab, "--quiet", "--report", str(report)]
        if variant:
            args += ["--variant", variant]
        started = time.monotonic()
        done = netkit_cli(*args)
        seconds = time.monotonic() - started
        data = json.loads(report.read_text()) if report.exists() else None
    return RealRun(data, done.returncode, done.stdout + done.stderr, seconds)


def simulate(topology: netkit.Topology, variant: str | None, wireguard: str = "go",
             firewall: str = "nft"):
    """The lab in labsim: (exit status, outcomes, transcript, shell). ``wireguard``: the
    implementation labsim models, that of the real runs compared with: wireguard-go for
    the namespace runs here, "kernel" for the lab VM's recordings (tests/fidelity).
    ``firewall``: whether the simulated machine has nft ("nft") or only iptables
    ("iptables"); a comparison gives the real run's, firewall_backend()."""
    shell = sim.up(topology, wireguard, firewall)
    transcript = netkit.configure(topology, shell, variant, log=lambda text: None,
                                  install=sim.installer(shell))
    status, outcomes = netkit.validate(topology, shell, log=lambda text: None)
    return status, outcomes, transcript, shell


# What wg-quick printed for a default route's firewall rules: add_default() and
# remove_firewall() in wireguard-tools' src/wg-quick/linux.bash run `nft -f` when `type -p nft`
# finds nft, else iptables-restore (ip6tables-restore for IPv6).
FIREWALL_LINES = {"nft": re.compile(r"^\[#\] nft -f ", re.M),
                  "iptables": re.compile(r"^\[#\] ip6?tables-restore -n$", re.M)}


def transcript_firewall(transcript: list[list]) -> str | None:
    """"nft" or "iptables": the firewall backend wg-quick used in a run, from what its
    `wg-quick` lines printed; None when none of them touched the firewall (no default
    route), and AssertionError if they say both."""
    seen = {backend for _host, line, _out, err, _status in transcript
            if line.startswith("wg-quick ")
            for backend, pattern in FIREWALL_LINES.items() if pattern.search(err)}
    assert len(seen) <= 1, f"wg-quick used both firewall backends: {seen}"
    return seen.pop() if seen else None


# The firewall backend of the lab VM the kernel recordings in tests/fixtures/real/
# wireguard-kernel/ were made in (Debian 12 without nftables: its transcripts show
# `[#] iptables-restore -n`), for those made before netkit's report named the backend.
RECORDINGS_FIREWALL = "iptables"


def firewall_backend(report: dict, default: str | None = None) -> str:
    """The firewall backend to run labsim with for a comparison with the real run
    ``report``: what that run's own wg-quick lines show they used (the evidence itself);
    where they show none (no default route: wg-quick never touched the firewall, so either
    backend gives the same transcript), what netkit recorded of the run's machine (the
    report's "firewall_backend": whether nft was on the lab's PATH), else ``default``."""
    backend = transcript_firewall(report["transcript"]) or report.get("firewall_backend") \
        or default
    assert backend in ("nft", "iptables"), f"no firewall backend for {report.get('variant')}"
    return backend


def key_names(transcript: list[list]) -> dict[str, str]:
    """Public key -> <HOST_PUBKEY>, from the lines that print a host's public key."""
    names = {}
    for host, line, stdout, _stderr, _status in transcript:
        if line.startswith("wg show wg0 public-key") or line.endswith("| wg pubkey"):
            label = f"<{host.upper()}_PUBKEY>"
            if stdout.strip() in names:
                continue
            if label in names.values():  # the host's second key (wg1)
                label = f"<{host.upper()}_WG1_PUBKEY>"
            names[stdout.strip()] = label
    return names


def normalized(text: str, keys: dict[str, str]) -> str:
    """``text`` with keys named, and the ports and times that change from run to run
    replaced by placeholders."""
    text = USERSPACE_FALLBACK.sub("", text)
    text = KEY.sub(lambda m: keys.get(m.group(0), "<KEY>"), text)
    text = ENDPOINT.sub(lambda m: m.group(0) if m.group(2) in LISTEN_PORTS
                        else f"{m.group(1)}:<PORT>", text)
    text = LISTEN_PORT.sub(lambda m: m.group(0) if m.group(2) in LISTEN_PORTS
                           else f"{m.group(1)}<PORT>", text)
    text = EPOCH.sub("\t<TIME>", text)
    for pattern, placeholder in PING_TIMES:
        text = pattern.sub(placeholder, text)
    return text


def peers_sorted(line: str, out: str) -> str:
    """``out`` with its peers in one order. wireguard-go lists an interface's peers in the
    order of a Go map (IpcGetOperation in device/uapi.go walks device.peers.keyMap), which
    changes from run to run; kernel WireGuard, and labsim, keep the order they were added.
    So the peer lines of `wg show IF ...` and the [Peer] blocks of a file `wg-quick save`
    wrote are sorted (after the keys were named)."""
    if line.startswith("wg show ") and not line.endswith(("public-key", "private-key")):
        lines = out.splitlines(keepends=True)
        first = 1 if line.endswith(" dump") else 0
        return "".join(lines[:first] + sorted(lines[first:]))
    if line.startswith("cat ") and "\n[Peer]\n" in out:
        head, *peers = out.split("\n[Peer]\n")
        peers = [p if p.endswith("\n") else p + "\n" for p in peers]
        return head + "".join(f"\n[Peer]\n{p}" for p in sorted(peers))
    return out


def comparable(transcript: list[list]) -> list[list]:
    keys = key_names(transcript)
    return [[host, normalized(line, keys),
             peers_sorted(line, normalized(out, keys)), normalized(err, keys), status]
            for host, line, out, err, status in transcript]


def wireguard_state(dumps: dict[str, dict[str, str]], transcript: list[list]) -> dict:
    """`wg show IF dump` per host and interface, with keys named by their hosts (private
    keys as <PRIVATE>), a handshake time as "seen" (the real one is the wall clock) and the
    ports WireGuard picked as <PORT>."""
    keys = key_names(transcript)
    state = {}
    for host, interfaces in dumps.items():
        for iface, text in interfaces.items():
            rows = [line.split("\t") for line in text.splitlines()]
            for row in rows[1:]:
                row[4] = "seen" if row[4] != "0" else "0"
            if rows:
                rows[0][0] = "<PRIVATE>"
                if rows[0][2] not in LISTEN_PORTS:
                    rows[0][2] = "<PORT>"
            rows = [[normalized(f, keys) for f in row] for row in rows]
            state[f"{host} {iface}"] = rows[:1] + sorted(rows[1:])  # see peers_sorted()
    return state


def assert_nothing_left(processes: dict[str, list] | None, topology: netkit.Topology) -> None:
    """No namespace, process, veth or state folder of the lab is left."""
    prefix = real.prefix(topology)
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not [n for n in names.split() if n.startswith(prefix)], names
    assert processes or processes is None, "the report names the lab's processes"
    for label, (pid, started) in (processes or {}).items():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone
        # The same pid may be a new process; a zombie is dead, only not yet collected.
        assert stat[19] != started or stat[0] == "Z", f"{label} (pid {pid}) is still running"
    veths = subprocess.run(["ip", "-o", "link", "show", "type", "veth"], capture_output=True,
                           text=True).stdout
    ours = ({f"{prefix}{h}" for h in topology.hosts}
            | {f"{h}-eth{i}" for h, host in topology.hosts.items()
               for i in range(len(host.addresses))})
    assert not [line for line in veths.splitlines()
                if line.split(":")[1].strip().split("@")[0] in ours], veths
    assert not real.state_dir(topology).exists()
