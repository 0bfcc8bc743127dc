"""Every network lab (labs/net/), as written and in each broken variant, run for real in the
lab VM, where the kernel has the WireGuard module: `python3 -m netkit run LAB --report FILE`
(the system Python, as a learner would run it) must exit 0 as written and 1 in a variant
(except where the variant's fault is wireguard-go's only: KERNEL_PASSES), make
its WireGuard interfaces with the kernel module (wg-quick too: it never falls back to
wireguard-go, which the VM does not have), and leave nothing behind.

Each report is also written to /tmp/zfl-results/net-kernel/LAB[--VARIANT].json, which
tools/vm/run-labs.sh brings out to test-results/vm/measured/net-kernel/; copied to
tests/fixtures/real/wireguard-kernel/, they are what tests/fidelity/test_net_kernel.py holds
labsim to.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

import netkit
import pytest
from netkit import real

RESULTS = Path(os.environ.get("ZFL_NET_RESULTS", "/tmp/zfl-results/net-kernel"))
LABS = sorted(p.parent.name for p in netkit.NET_DIR.glob("*/topology.toml"))
RUNS = [(lab, variant) for lab in LABS for variant in [None, *netkit.load(lab).variants]]
# What kernel WireGuard's ping says for a destination no peer's AllowedIPs cover
# (drivers/net/wireguard/device.c, wg_xmit(): -ENOKEY; iputils prints sendmsg's error).
ENOKEY = "ping: sendmsg: Required key not available"
# wg-quick's fall-back to userspace (wireguard-tools src/wg-quick/linux.bash, add_if()).
FALLBACK = "Missing WireGuard kernel module"
# Whether QEMU emulates this VM's CPU (TCG, the qemu64 CPU model), for the record: every SSH
# key exchange takes seconds there. The slow-SSH lab's login check compares the login with a
# baseline login that pays for the same crypto (labs/netkit/ssh.py), so every check holds on
# an emulated CPU as on real hardware.
EMULATED = "QEMU Virtual CPU" in Path("/proc/cpuinfo").read_text()
# Variants whose fault exists only in wireguard-go: on the kernel every check passes.
KERNEL_PASSES = {
    ("03-wg-client-routing", "keepalive-only"):
    "the keepalive `ip link set up` queues before PostUp sets the private key is sent once "
    "the key is set: Linux commit 3ac1bf099766 (\"wireguard: netlink: send staged packets "
    "when setting initial private key\", 6.4, in Debian 12's 6.1 stable), so the server "
    "learns client1's endpoint; wireguard-go keeps waiting for traffic",
}


def fixture_name(lab: str, variant: str | None) -> str:
    return f"{lab}--{variant}" if variant else lab


def run_id(run: tuple[str, str | None]) -> str:
    return fixture_name(*run)


@pytest.fixture(scope="module", autouse=True)
def kernel_wireguard():
    assert os.geteuid() == 0, "the network labs run as root in the VM"
    assert real.kernel_wireguard(), "`ip link add IF type wireguard` fails in the VM"
    missing = real.missing_tools("kernel")
    assert not missing, f"the lab VM lacks {missing}"


def wireguard_links() -> str:
    return subprocess.run(["ip", "-o", "link", "show", "type", "wireguard"],
                          capture_output=True, text=True, check=True).stdout


def alive(pid: int, started: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return stat[19] == started and stat[0] != "Z"


@pytest.mark.parametrize("run", RUNS, ids=run_id)
def test_lab_on_kernel_wireguard(run, tmp_path):
    lab, variant = run
    topology = netkit.load(lab)
    report = tmp_path / "report.json"
    args = ["run", lab, "--report", str(report)] + (["--variant", variant] if variant else [])
    python = shutil.which("python3") or "python3"
    links_before = wireguard_links()
    started = time.monotonic()
    done = subprocess.run([python, "-m", "netkit", *args], cwd=netkit.LABS_ROOT,
                          env={**os.environ, "PYTHONPATH": str(netkit.LABS_ROOT)},
                          capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    print(output)
    assert report.exists(), output
    data = json.loads(report.read_text())
    data["recorded"] = {"seconds": round(seconds, 1), "kernel": platform.release(),
                        "emulated": EMULATED, "exit": done.returncode}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{fixture_name(lab, variant)}.json").write_text(json.dumps(data, indent=1))

    broken = variant is not None and (lab, variant) not in KERNEL_PASSES
    assert done.returncode == (netkit.FAILED if broken else netkit.PASSED), output
    assert data["wireguard_implementation"] == "kernel", data.get("wireguard_implementation")
    assert FALLBACK not in output + json.dumps(data["transcript"])
    assert not any(label.startswith("wireguard-go") for label in data["processes"])
    # Nothing left: no process of the lab, no namespace, no state, no WireGuard link.
    assert data["processes"], "the report names the lab's processes"
    left = [label for label, (pid, began) in data["processes"].items() if alive(pid, began)]
    assert not left, left
    assert not real.namespaces(topology)
    assert not real.state_dir(topology).exists()
    assert wireguard_links() == links_before


def test_kernel_refuses_a_destination_no_peer_covers(tmp_path):
    """Lab 01's last check, on the kernel: the ping fails at once with ENOKEY (wireguard-go
    drops the packet without a word)."""
    report = tmp_path / "report.json"
    done = subprocess.run([shutil.which("python3") or "python3", "-m", "netkit", "run",
                           "01-wg-peers", "-q", "--report", str(report)],
                          cwd=netkit.LABS_ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(netkit.LABS_ROOT)})
    assert done.returncode == netkit.PASSED, done.stdout + done.stderr
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    last = checks["no peer of alice has 10.0.0.3 in its AllowedIPs"]
    assert last["passed"] and last["observed"] == "failure"
    assert last["detail"] == ENOKEY, last


def test_wireguard_go_is_refused_without_it():
    """`--wireguard go` in the VM, which has no wireguard-go: a clear refusal, nothing made."""
    if shutil.which("wireguard-go", path=real.tool_path()):
        pytest.skip("this VM has wireguard-go")
    done = subprocess.run([shutil.which("python3") or "python3", "-m", "netkit", "run",
                           "01-wg-peers", "--wireguard", "go"], cwd=netkit.LABS_ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(netkit.LABS_ROOT)})
    assert done.returncode == 1
    assert "missing wireguard-go" in done.stderr, done.stderr


def test_the_vm_has_what_the_slow_ssh_lab_needs():
    """openssh-server and libnss-mdns (vagrant/build-ci-box.sh, provision-*.sh): without
    nss-mdns the mdns variant would fail for another reason than the one it teaches."""
    assert os.access("/usr/sbin/sshd", os.X_OK)
    assert shutil.which("ssh") and shutil.which("ssh-keygen")
    assert list(Path("/usr/lib").glob("*/libnss_mdns4_minimal.so.2")), "libnss-mdns"
