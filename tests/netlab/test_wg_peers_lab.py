"""The WireGuard "keys, peers and AllowedIPs" lab, run for real and in labsim.

The real run uses network namespaces and wireguard-go (labs/netkit/real.py): as root it uses
the machine's namespaces, otherwise `netkit run` puts itself in a user namespace
(`unshare -Urnm`). The same host scripts then run in labsim, and every check must come out
the same in both worlds (the simulator-versus-reality check of this lab), as must what each
script line prints, once the random keys are replaced by names. After every real run nothing
of the lab may be left: no namespace, process, link or state file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from netlab_support import (
    LABS_DIR,
    PACKAGES,
    firewall_backend,
    netkit,
    netkit_cli,
    netkit_unprivileged,
    real,
    run_for_real,
)
from netlab_support import assert_nothing_left as assert_lab_left_nothing
from netlab_support import simulate as simulate_lab

LAB = "01-wg-peers"
TOPOLOGY = netkit.load(LAB)
PREFIX = real.prefix(TOPOLOGY)
# Seconds a whole real run may take: WireGuard's handshake is made on the first packet, so a
# good run takes about 2 s; each ping that must time out adds its -W (the broken run: ~6 s).
MAX_SECONDS = 20
FAILING = [
    "[FAIL] alice: ping 10.0.0.2 answers -- alice reaches bob through the tunnel",
    "[FAIL] bob: ping 10.0.0.1 answers -- bob reaches alice through the tunnel",
]


@pytest.fixture(scope="module", autouse=True)
def real_tools():
    missing = real.missing_tools()
    assert not missing, f"the real lab needs {', '.join(missing)}: apt-get install {PACKAGES}"
    if os.geteuid() != 0:
        probe = subprocess.run(["unshare", "-Urnm", "true"], capture_output=True, text=True)
        assert probe.returncode == 0, f"not root and no user namespaces: {probe.stderr}"


def simulate(variant: str | None, firewall: str = "nft"):
    return simulate_lab(TOPOLOGY, variant, firewall=firewall)


def without_keys(transcript: list[list]) -> list[list]:
    """The transcript with every public key (44 base64 characters) named by its host."""
    keys = {}
    for host, line, stdout, _stderr, _status in transcript:
        if line.startswith("wg show wg0 public-key"):
            keys[stdout.strip()] = f"<{host.upper()}_PUBKEY>"

    def name(text: str) -> str:
        return re.sub(r"[A-Za-z0-9+/]{43}=", lambda m: keys.get(m.group(0), "<KEY>"), text)

    return [[host, name(line), name(out), err, status]
            for host, line, out, err, status in transcript]


def wireguard_state(dumps: dict[str, dict[str, str]], transcript: list[list]) -> dict:
    """`wg show IF dump` per host and interface, with keys named by their hosts (private
    keys as <PRIVATE>) and a handshake time as "seen" (the real one is the wall clock)."""
    keys = {out.strip(): f"<{host.upper()}_PUBKEY>" for host, line, out, _e, _s in transcript
            if line.startswith("wg show wg0 public-key")}
    state = {}
    for host, interfaces in dumps.items():
        for iface, text in interfaces.items():
            rows = [line.split("\t") for line in text.splitlines()]
            for row in rows[1:]:
                row[4] = "seen" if row[4] != "0" else "0"
            rows[0][0] = "<PRIVATE>"
            state[f"{host} {iface}"] = [[keys.get(f, f) for f in row] for row in rows]
    return state


def assert_nothing_left(processes: dict[str, list] | None,
                        topology: netkit.Topology = TOPOLOGY) -> None:
    assert_lab_left_nothing(processes, topology)


def test_run_cleans_up_when_a_script_line_fails(tmp_path):
    lab = tmp_path / "broken-lab"
    lab.mkdir()
    (lab / "a.sh").write_text("wg genkey | wg set wg0 private-key /dev/stdin\n"
                              "ip route add 10.9.0.0/24 dev nosuchdev\n")
    (lab / "topology.toml").write_text(
        '[hosts.a]\naddress = "192.168.50.10/24"\nwireguard = ["wg0"]\nscript = "a.sh"\n'
        '[[check]]\nname = "never reached"\nhost = "a"\nroute = "10.9.0.0/24"\n')
    done = netkit_cli("run", str(lab))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "`ip route add 10.9.0.0/24 dev nosuchdev` exited with" in done.stderr
    assert "[PASS]" not in done.stdout and "[FAIL]" not in done.stdout
    assert_nothing_left(None, netkit.load(lab))


@pytest.mark.parametrize("variant", [None, "wrong-allowed-ips"])
def test_real_run_agrees_with_labsim(variant, capsys):
    done = run_for_real(LAB, variant)
    output = done.output
    with capsys.disabled():
        print(f"\n{LAB} ({variant or 'as written'}): real run {done.seconds:.1f} s, "
              f"exit {done.returncode}")
    assert done.returncode == (1 if variant else 0), output
    assert done.seconds < MAX_SECONDS, output
    for line in FAILING:
        assert (line in output) == bool(variant), output
    data = done.data
    assert data is not None, output
    assert_nothing_left(data["processes"])

    # labsim with the firewall backend of the real run (netlab_support.firewall_backend()).
    status, outcomes, transcript, shell = simulate(variant, firewall_backend(data))
    sim_transcript = [[h, line, r.stdout, r.stderr, r.status] for h, line, r in transcript]
    assert status == done.returncode
    simulated = {o.check.name: o.observed for o in outcomes}
    measured = {c["name"]: c["observed"] for c in data["checks"]}
    assert simulated == measured
    real_lines = without_keys(data["transcript"])
    sim_lines = without_keys(sim_transcript)
    assert sim_lines == real_lines
    # Handshakes, endpoints and byte counters after the checks. (wireguard-go sends a
    # keepalive 10 s after data it did not answer, which labsim does not model: the real
    # run takes the snapshot well before that.)
    sim_dumps = netkit.snapshot(TOPOLOGY, shell)
    assert (wireguard_state(sim_dumps, sim_transcript)
            == wireguard_state(data["wireguard"], data["transcript"]))


def test_up_validate_down_leaves_nothing(tmp_path):
    """The lab living on between commands: up, validate twice, down twice."""
    report = tmp_path / "report.json"
    steps = [["up", LAB, "-q"], ["validate", LAB, "--report", str(report)],
             ["validate", LAB], ["down", LAB], ["down", LAB], ["validate", LAB]]
    if os.geteuid() == 0:
        done = [netkit_cli(*step) for step in steps]
    else:
        # The sequence in one user namespace of its own (the real one needs root).
        script = "mount -t tmpfs netkit /run; " + "; ".join(
            f"{sys.executable} -m netkit {' '.join(s)}"
            f" >{tmp_path}/{i}.out 2>&1; echo $? >{tmp_path}/{i}.rc"
            for i, s in enumerate(steps))
        subprocess.run(["unshare", "-Urnm", "--propagation", "private", "sh", "-c", script],
                       cwd=LABS_DIR, env={**os.environ, "PYTHONPATH": str(LABS_DIR)},
                       check=True, timeout=120)
        done = [subprocess.CompletedProcess(s, int((tmp_path / f"{i}.rc").read_text()),
                                            (tmp_path / f"{i}.out").read_text(), "")
                for i, s in enumerate(steps)]
    statuses = [d.returncode for d in done]
    assert statuses == [0, 0, 0, 0, 0, 1], [d.stdout + d.stderr for d in done]
    assert "6 of 6 checks passed" in done[1].stdout
    assert "removed namespace" in done[3].stdout
    assert done[4].stdout == ""  # the second down finds nothing to remove
    assert "is not up" in done[5].stderr + done[5].stdout
    assert_nothing_left(json.loads(report.read_text())["processes"])


def test_no_checks_exits_2(tmp_path):
    lab = tmp_path / "nochecks"
    lab.mkdir()
    (lab / "a.sh").write_text("ip route\n")
    (lab / "topology.toml").write_text(
        '[hosts.a]\naddress = "192.168.50.10/24"\nscript = "a.sh"\n')
    done = netkit_cli("sim", str(lab))
    assert done.returncode == netkit.NO_TESTS, done.stdout + done.stderr
    assert "no checks" in done.stdout


def test_refuses_politely_without_root():
    """Only `run` works without root; the others say what they need."""
    done = netkit_unprivileged("up", LAB, timeout=60)
    assert done.returncode == 1
    assert "needs root" in done.stderr and "netkit run" in done.stderr
    assert not real.namespaces(TOPOLOGY)


def test_scripts_run_unchanged_in_labsim():
    """Every line of every script (variants too) is one labsim knows."""
    for variant in [None, *TOPOLOGY.variants]:
        for _step, host, lines in netkit.plan(TOPOLOGY, variant):
            assert lines, host
    status, outcomes, transcript, _shell = simulate(None)
    assert status == netkit.PASSED, [o.detail for o in outcomes if not o.passed]
    assert all(r.status == 0 for _h, _line, r in transcript)
