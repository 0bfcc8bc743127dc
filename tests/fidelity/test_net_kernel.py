"""labsim versus kernel WireGuard: every network lab run recorded in the lab VM
(tests/fixtures/real/wireguard-kernel/LAB[--VARIANT].json, written by
tests/vm/guest/test_net_labs.py, see there) is run again in labsim, and the two must agree on

* the outcome of every check, and the exit status;
* the detail of every ping check: the ping statistics line, or the error ping printed. Only
  kernel WireGuard refuses a destination no peer's AllowedIPs cover, with `ping: sendmsg:
  Required key not available`, and labsim must print the same;
* what each `ip route`, `ip rule`, `wg show` and `wg-quick` line of the scripts printed,
  and `wg show IF dump` after the checks, with keys named by their hosts and the ports,
  handshake times and ping times that change from run to run masked as tests/netlab does
  (tests/netlab/netlab_support.py). Kernel WireGuard lists peers in the order they were
  added, as labsim does, so unlike the wireguard-go comparison nothing is sorted; byte
  counters may differ only by what wall time decides (counters_agree()). labsim runs with
  the recording's firewall backend (runs()), which decides what wg-quick prints for a
  default route.

The slow-SSH lab runs in labsim too (mount --bind, ssh-keygen, sshd and ssh over the login
model labsim.net.ssh_login). Its login check compares the login with a baseline login that
looks up no names (labs/netkit/ssh.py), so it holds on the lab VM's emulated CPU (TCG, where
every login takes 3-5 s) as on real hardware, and its outcome is compared like any other.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "netlab"))

from netlab_support import (  # noqa: E402
    LISTEN_PORTS,
    RECORDINGS_FIREWALL,
    firewall_backend,
    key_names,
    netkit,
    normalized,
    simulate,
)

FIXTURES = ROOT / "tests" / "fixtures" / "real" / "wireguard-kernel"
RECORDED = sorted(FIXTURES.glob("*.json"))
# Labs whose scripts labsim cannot run (see the module docstring): skipped while it cannot.
NO_SIM_HALF: dict[str, str] = {}
# Script lines whose output is compared.
COMPARED = re.compile(r"^(ip route|ip rule|wg show)\b")
WG_QUICK = re.compile(r"^wg-quick ")
# What labsim lacks, for the recorded runs it cannot reproduce yet: (comparison, lab, variant)
# -> reason. Such a comparison is an expected failure (strict: it must fail, so that a fixed
# model shows up), the run's other comparisons stay. None now.
LABSIM_GAPS: dict[tuple[str, str, str | None], str] = {}
# Byte counters that wall time, not the model, decides. A peer that received data and sent
# nothing back sends a keepalive (32 bytes: a data message with no packet) KEEPALIVE_TIMEOUT
# = 10 s later (drivers/net/wireguard/timers.c, wg_timers_data_received()); labsim's clock does
# not run while the lab VM's emulated CPU takes 15-45 s per run, so the recording may hold up
# to MAX_KEEPALIVES more of them than labsim. And a bare TCP ACK (52 bytes with timestamps, 96
# on the wire: 16 bytes of header, padded to 64, a 16-byte tag) that Linux sends or not
# depending on when the HTTP server's writes arrive (delayed ACKs), as tests/netlab measured.
KEEPALIVE_ON_THE_WIRE = 32
MAX_KEEPALIVES = 2
TCP_ACK_ON_THE_WIRE = 96
MAX_EXTRA_ACKS = 2


def counters_agree(simulated: int, measured: int, tcp: bool) -> bool:
    extra = measured - simulated
    acks = MAX_EXTRA_ACKS * TCP_ACK_ON_THE_WIRE if tcp else 0
    return (extra % KEEPALIVE_ON_THE_WIRE == 0
            and -acks <= extra <= acks + MAX_KEEPALIVES * KEEPALIVE_ON_THE_WIRE)


def lab_and_variant(path: Path) -> tuple[str, str | None]:
    lab, _sep, variant = path.stem.partition("--")
    return lab, variant or None


def ping_details(checks: list[dict]) -> dict[str, str]:
    return {c["name"]: normalized(c["detail"], {}) for c in checks if c["kind"] == "ping"}


def compared_lines(transcript: list[list], lines: re.Pattern = COMPARED) -> list[list]:
    keys = key_names(transcript)
    return [[host, normalized(line, keys), normalized(out, keys), normalized(err, keys), status]
            for host, line, out, err, status in transcript if lines.match(line)]


def dumps(wireguard: dict[str, dict[str, str]], transcript: list[list]) -> dict:
    """`wg show IF dump` per host and interface: keys named, the private key, handshake
    times and the ports WireGuard picked masked (tests/netlab's wireguard_state(), with the
    peers in their own order)."""
    keys = key_names(transcript)
    state = {}
    for host, interfaces in wireguard.items():
        for iface, text in interfaces.items():
            rows = [line.split("\t") for line in text.splitlines()]
            if rows:
                rows[0][0] = "<PRIVATE>"
                if rows[0][2] not in LISTEN_PORTS:
                    rows[0][2] = "<PORT>"
            for row in rows[1:]:
                row[4] = "seen" if row[4] != "0" else "0"
            state[f"{host} {iface}"] = [[normalized(f, keys) for f in row] for row in rows]
    return state


def test_every_lab_has_kernel_recordings():
    """Each lab and each variant was recorded on kernel WireGuard."""
    assert RECORDED, f"no recordings in {FIXTURES}: see tests/vm/guest/test_net_labs.py"
    recorded = {lab_and_variant(p) for p in RECORDED}
    for topology_file in sorted((ROOT / "labs" / "net").glob("*/topology.toml")):
        topology = netkit.load(topology_file.parent)
        for variant in [None, *topology.variants]:
            assert (topology.name, variant) in recorded, (topology.name, variant)


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_recording_is_kernel_wireguard(fixture):
    data = json.loads(fixture.read_text())
    lab, variant = lab_and_variant(fixture)
    assert data["backend"] == "real" and data["variant"] == variant
    assert data["wireguard_implementation"] == "kernel"
    assert not any(label.startswith("wireguard-go") for label in data["processes"])
    assert data["recorded"]["exit"] == (netkit.FAILED if any(
        not c["passed"] for c in data["checks"]) else netkit.PASSED)
    assert data["checks"] and {c["name"] for c in data["checks"]} == {
        c.name for c in netkit.load(lab).checks}


@functools.cache
def runs(fixture: Path) -> tuple[dict, dict]:
    """(the recorded run, the same run in labsim), each as a report: checks, exit,
    transcript and `wg show IF dump`."""
    data = json.loads(fixture.read_text())
    lab, variant = lab_and_variant(fixture)
    topology = netkit.load(lab)
    # The firewall backend of the recording: what its wg-quick lines show (`[#]
    # iptables-restore -n` in lab 02: the VM had no nftables), else the one the report names,
    # else that VM's (netlab_support.RECORDINGS_FIREWALL).
    status, outcomes, transcript, shell = simulate(
        topology, variant, wireguard="kernel",
        firewall=firewall_backend(data, default=RECORDINGS_FIREWALL))
    sim_transcript = [[h, line, r.stdout, r.stderr, r.status] for h, line, r in transcript]
    simulated = {"checks": [o.as_dict() for o in outcomes], "exit": status,
                 "transcript": sim_transcript,
                 "wireguard": netkit.snapshot(topology, shell)}
    measured = {"checks": data["checks"], "exit": data["recorded"]["exit"],
                "transcript": data["transcript"], "wireguard": data["wireguard"]}
    return simulated, measured


def compared(fixture: Path, comparison: str, request) -> tuple[dict, dict]:
    lab, variant = lab_and_variant(fixture)
    gap = LABSIM_GAPS.get((comparison, lab, variant))
    if gap:
        request.applymarker(pytest.mark.xfail(strict=True, reason=gap))
    try:
        return runs(fixture)
    except netkit.NetkitError as err:
        # Compared as soon as labsim can run the lab's scripts.
        if lab in NO_SIM_HALF:
            pytest.skip(f"{NO_SIM_HALF[lab]}; in labsim: {err}")
        raise


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_same_check_outcomes(fixture, request):
    simulated, measured = compared(fixture, "checks", request)
    assert ({c["name"]: (c["passed"], c["observed"]) for c in simulated["checks"]}
            == {c["name"]: (c["passed"], c["observed"]) for c in measured["checks"]})
    assert simulated["exit"] == measured["exit"]


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_same_ping_details(fixture, request):
    """Statistics lines, and the kernel's errors (ENOKEY, EDESTADDRREQ) word for word."""
    simulated, measured = compared(fixture, "ping", request)
    assert ping_details(simulated["checks"]) == ping_details(measured["checks"])


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_same_route_and_wg_show_output(fixture, request):
    simulated, measured = compared(fixture, "lines", request)
    assert compared_lines(simulated["transcript"]) == compared_lines(measured["transcript"])


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_same_wg_quick_output(fixture, request):
    """Every `[#] COMMAND` wg-quick printed, in order: with the kernel module no fall-back
    to wireguard-go, and for lab 02's default route the firewall backend the recording's VM
    had (`[#] iptables-restore -n` without nftables, `[#] nft -f /dev/fd/63` with it)."""
    simulated, measured = compared(fixture, "wg-quick", request)
    assert (compared_lines(simulated["transcript"], WG_QUICK)
            == compared_lines(measured["transcript"], WG_QUICK))


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: p.stem)
def test_same_wg_dump_after_the_checks(fixture, request):
    """Peers, endpoints, AllowedIPs, handshakes and byte counters (see counters_agree())."""
    simulated, measured = compared(fixture, "dump", request)
    sim = dumps(simulated["wireguard"], simulated["transcript"])
    real = dumps(measured["wireguard"], measured["transcript"])
    lab, _variant = lab_and_variant(fixture)
    tcp = any(c.kind == "http" for c in netkit.load(lab).checks)
    assert sim.keys() == real.keys()
    for name, rows in sim.items():
        assert rows[:1] == real[name][:1] and len(rows) == len(real[name]), name
        for sim_row, real_row in zip(rows[1:], real[name][1:], strict=True):
            assert sim_row[:5] + sim_row[7:] == real_row[:5] + real_row[7:], name
            for sim_bytes, real_bytes in zip(sim_row[5:7], real_row[5:7], strict=True):
                assert counters_agree(int(sim_bytes), int(real_bytes), tcp), (
                    name, sim_row, real_row)


def test_counter_tolerance_is_narrow():
    """Keepalives only add, in whole 32-byte messages, at most two; ACKs only with TCP."""
    assert counters_agree(476, 476 + 32, tcp=False)
    assert counters_agree(476, 476 + 64, tcp=False)
    assert not counters_agree(476, 476 + 96, tcp=False)
    assert not counters_agree(476, 476 - 32, tcp=False)
    assert not counters_agree(148, 276, tcp=False)  # a 128-byte ping the model miscounts
    assert counters_agree(972, 1068, tcp=True) and not counters_agree(972, 972 + 144, tcp=True)
