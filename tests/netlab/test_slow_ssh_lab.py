"""The slow-SSH troubleshooting lab (labs/net/05-slow-ssh/), run for real.

A real sshd and ssh client in network namespaces (labs/netkit, checks from netkit/ssh.py).
As written, every cause of a slow login is fixed and every check passes; each variant puts
one cause back and must fail exactly the checks it breaks. The lab has no labsim half: its
simulation is the login-phase model sim/src/labsim/net/ssh_login.py, whose figures the
unit tests tie to the same measurements. After every run nothing of the lab may be left.

Needs root (sshd's privilege separation calls setgroups(), which `unshare -Urnm` refuses) and
Debian's openssh-server, openssh-client and libnss-mdns.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS_DIR = ROOT / "labs"
sys.path.insert(0, str(LABS_DIR))

import netkit  # noqa: E402
from netkit import real  # noqa: E402

LAB = "05-slow-ssh"
TOPOLOGY = netkit.load(LAB)
PACKAGES = "openssh-server openssh-client libnss-mdns"
FRESH = "a fresh login takes under 1.2 s"
MUX = "a second login rides on the first one's connection"
# Which checks each variant must fail (the ping across the LAN passes in all of them).
FAILING = {
    None: set(),
    "usedns": {FRESH},
    "gssapi": {FRESH},
    "mdns": {FRESH, MUX},
    "no-master": {MUX},
}
# A generous bound on one whole run (up, scripts, checks, down); the slowest, mdns, takes
# about 8 s: two logins that each wait out two 1 s lookups, plus the mux check's.
MAX_SECONDS = 30


@pytest.fixture(scope="module", autouse=True)
def real_tools():
    missing = real.missing_tools() + [t for t in ("ssh", "ssh-keygen")
                                      if shutil.which(t) is None]
    if not os.access("/usr/sbin/sshd", os.X_OK):
        missing.append("/usr/sbin/sshd")
    if not Path("/usr/lib/x86_64-linux-gnu/libnss_mdns4_minimal.so.2").exists() and not list(
            Path("/usr/lib").glob("*/libnss_mdns4_minimal.so.2")):
        missing.append("libnss_mdns4_minimal")
    assert not missing, (f"the lab needs {', '.join(missing)}: apt-get install {PACKAGES} "
                         f"{real.PACKAGES}")
    assert os.geteuid() == 0, "the slow-SSH lab needs root: sshd calls setgroups()"


def netkit_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(LABS_DIR)}
    return subprocess.run([sys.executable, "-m", "netkit", *args], cwd=LABS_DIR, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_nothing_left(processes: dict[str, list]) -> None:
    prefix = real.prefix(TOPOLOGY)
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not [n for n in names.split() if n.startswith(prefix)], names
    assert any(label.startswith("sshd") for label in processes), processes
    for label, (pid, started) in processes.items():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone
        # The same pid may be a new process; a zombie is dead, only not yet collected.
        assert stat[19] != started or stat[0] == "Z", f"{label} (pid {pid}) is still running"
    assert not real.state_dir(TOPOLOGY).exists()


@pytest.mark.parametrize("variant", list(FAILING))
def test_each_cause_fails_its_check(variant, tmp_path, capsys):
    report = tmp_path / "report.json"
    args = ["run", LAB, "--quiet", "--report", str(report)]
    if variant:
        args += ["--variant", variant]
    started = time.monotonic()
    done = netkit_cli(*args)
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    with capsys.disabled():
        print(f"\n{LAB} ({variant or 'fixed'}): {seconds:.1f} s, exit {done.returncode}")
    data = json.loads(report.read_text())
    failed = {c["name"] for c in data["checks"] if not c["passed"]}
    assert failed == FAILING[variant], output
    assert done.returncode == (1 if FAILING[variant] else 0), output
    assert seconds < MAX_SECONDS, output
    assert_nothing_left(data["processes"])
    fresh = next(c for c in data["checks"] if c["name"] == FRESH)
    if variant == "mdns":
        # nss-mdns's SOA query for local. and then DNS both time out: no address at all.
        assert "Could not resolve hostname server.local" in fresh["detail"], fresh
    if variant in ("usedns", "gssapi"):
        # A slow cause is slow every time: the check tried twice.
        assert "fastest of 2" in fresh["detail"], fresh


def test_script_lines_and_keys(tmp_path):
    """The client's key reaches the server's authorized_keys and the server's host key the
    client's known_hosts (${CLIENT_SSH_PUBKEY}, ${SERVER_SSHHOST_PUBKEY}), and every
    script line succeeded."""
    report = tmp_path / "report.json"
    done = netkit_cli("run", LAB, "--quiet", "--report", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    transcript = json.loads(report.read_text())["transcript"]
    lines = [(host, line) for host, line, _out, _err, _status in transcript]
    assert ("server", "/usr/sbin/sshd") in lines
    assert ("client", "ssh server true") in lines
    assert all(status == 0 for *_rest, status in transcript)


@pytest.mark.parametrize(("fields", "problem"), [
    ({"under": 1.0}, "give one of"),
    ({"ping": "192.168.50.11", "under": 1.0}, "under goes with ssh"),
    ({"ssh": "server", "under": 0}, "under is a number of seconds above 0"),
])
def test_ssh_check_fields_are_validated(tmp_path, fields, problem):
    lab = tmp_path / "badcheck"
    lab.mkdir()
    (lab / "a.sh").write_text("true\n")
    check = "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())
    (lab / "topology.toml").write_text(
        '[hosts.a]\naddress = "192.168.50.10/24"\nscript = "a.sh"\n'
        f'[[check]]\nname = "c"\nhost = "a"\n{check}')
    with pytest.raises(netkit.NetkitError, match=problem):
        netkit.load(lab)


def test_checks_describe_themselves():
    described = {c.name: c.describe() for c in TOPOLOGY.checks}
    assert described[FRESH] == "ssh server true succeeds in under 1.2 s"
    assert described[MUX] == "ssh server reuses a master connection"
