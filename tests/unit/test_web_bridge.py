"""labsim.web.Bridge: terminals of a page that name one network are hosts of one labsim.net
Network (alice's terminal pings bob's), with addresses in page order, one clock, and a
reset that starts the whole network afresh."""

from __future__ import annotations

import json

import pytest

from labsim.web import Bridge, initial_payload

HOSTS = json.dumps([["alice", "ip link add wg0 type wireguard"],
                    ["bob", "ip link add wg0 type wireguard"]])


def term(bridge: Bridge, host: str, line: str, network: str = "w1",
         hosts: str = HOSTS) -> dict:
    return json.loads(bridge.terminal(f"{network}-{host}", line, network, host, hosts))


def out(bridge: Bridge, host: str, line: str, **kw) -> str:
    reply = term(bridge, host, line, **kw)
    assert reply["status"] == 0, reply
    return reply["stdout"]


def connect(bridge: Bridge) -> None:
    """Lesson W1's commands, typed in alice's and bob's terminals."""
    for host, address in (("alice", "10.0.0.1/24"), ("bob", "10.0.0.2/24")):
        out(bridge, host, "wg genkey | wg set wg0 listen-port 51820 private-key /dev/stdin")
        out(bridge, host, f"ip addr add {address} dev wg0")
        out(bridge, host, "ip link set wg0 up")
    alice = out(bridge, "alice", "wg show wg0 public-key").strip()
    bob = out(bridge, "bob", "wg show wg0 public-key").strip()
    out(bridge, "alice", f"wg set wg0 peer {bob} endpoint 192.168.50.11:51820 "
                         "allowed-ips 10.0.0.2/32")
    out(bridge, "bob", f"wg set wg0 peer {alice} allowed-ips 10.0.0.1/32")


def test_two_terminals_share_one_network():
    bridge = Bridge()
    # bob's terminal is used first; the page lists alice first, so she is still .10
    assert "192.168.50.11/24" in out(bridge, "bob", "ip -br addr")
    assert "192.168.50.10/24" in out(bridge, "alice", "ip -br addr")
    # each host starts with the empty wg0 its setup made, and nothing shows the setup
    assert out(bridge, "alice", "wg show") == "interface: wg0\n"
    connect(bridge)
    ping = out(bridge, "alice", "ping -c 1 10.0.0.2")
    assert "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=1.50 ms" in ping
    # bob learned alice's endpoint from her handshake, in his own terminal
    assert "  endpoint: 192.168.50.10:51820\n" in out(bridge, "bob", "wg show")
    assert "1 received" in out(bridge, "bob", "ping -c 1 10.0.0.1")


def test_hosts_share_one_clock():
    bridge = Bridge()
    connect(bridge)
    out(bridge, "alice", "ping -c 1 10.0.0.2")
    out(bridge, "alice", "sleep 30")
    # bob's terminal has done nothing for those 30 s, but his handshake is as old as hers
    assert "latest handshake: 30 seconds ago" in out(bridge, "bob", "wg show")
    assert "latest handshake: 30 seconds ago" in out(bridge, "alice", "wg show")


def test_networks_and_plain_terminals_are_separate():
    bridge = Bridge()
    connect(bridge)
    # w2's alice is another machine: no keys, and its wg0 is not even there
    assert out(bridge, "alice", "wg show", network="w2", hosts="") == ""
    plain = json.loads(bridge.terminal("lesson1", "zpool list"))
    assert plain == {"stdout": "no pools available\n", "stderr": "", "status": 0,
                     "output": [[1, "no pools available\n"]]}
    # a host the page does not list gets the next address
    assert "192.168.50.12/24" in out(bridge, "carol", "ip -br addr")


def test_reset_of_one_terminal_starts_the_whole_network_afresh():
    bridge = Bridge()
    connect(bridge)
    key = out(bridge, "alice", "wg show wg0 public-key")
    assert "1 received" in out(bridge, "alice", "ping -c 1 10.0.0.2")
    bridge.reset("w1-bob")
    # alice's machine is fresh too: an empty wg0 again, at the same address
    assert out(bridge, "alice", "wg show") == "interface: wg0\n"
    assert "192.168.50.10/24" in out(bridge, "alice", "ip -br addr")
    assert "192.168.50.11/24" in out(bridge, "bob", "ip -br addr")
    # the same commands give the same keys, and the network works again
    connect(bridge)
    assert out(bridge, "alice", "wg show wg0 public-key") == key
    # bob knows no endpoint of alice's until she has sent: nothing is left of before
    assert term(bridge, "bob", "ping -c 1 10.0.0.1")["stderr"] == (
        "ping: sendmsg: Destination address required\n")
    assert "1 received" in out(bridge, "alice", "ping -c 1 10.0.0.2")


def test_a_session_keeps_what_it_was_made_as():
    bridge = Bridge()
    bridge.terminal("w1-alice", "truncate -s 1G /var/tmp/a")  # a machine of its own
    assert out(bridge, "alice", "ls /var/tmp") == "a\n"
    assert "w1" not in bridge.networks


def test_reset_of_a_plain_terminal_is_its_own():
    bridge = Bridge()
    connect(bridge)
    bridge.terminal("lesson1", "truncate -s 1G /var/tmp/a")
    bridge.reset("lesson1")
    assert "No such file" in json.loads(bridge.terminal("lesson1", "ls /var/tmp/a"))["stderr"]
    assert "peer:" in out(bridge, "alice", "wg show")


def test_initial_payload_follows_a_page_preset():
    payload = initial_payload("wg-topology", {"preset": "gateway"})
    defaults = payload["describe"]["defaults"]
    assert defaults["client_allowed_ips"] == "0.0.0.0/0"
    assert defaults["send"] == "client-web"
    assert payload["result"]["summary"].startswith("client pings 198.51.100.80 (web): answered")


def test_warm_does_a_scenarios_one_off_work_ahead_of_its_first_run():
    from labsim.scenarios import copies

    copies.building.cache_clear()
    bridge = Bridge()
    bridge.warm("copies")
    assert copies.building.cache_info().currsize == len(copies.LAYOUTS)
    assert not any(copies.building(name).step() for name in copies.LAYOUTS)  # all built
    bridge.warm("vm-images")  # a scenario without one-off work: nothing to do, no error
    assert not bridge.warming("vm-images").step()
    with pytest.raises(ValueError, match="unknown scenario"):
        bridge.warm("no-such-widget")


def test_the_pages_warming_then_runs_the_scenario_a_few_times_a_step_each():
    """The page's worker asks for rehearsals too (labsim.web.REHEARSALS): after the
    scenario's one-off work, as many runs of it with its defaults, each a step of its own
    (V8 compiles the interpreter's paths for it while the reader reads); CPython's callers
    (Bridge.warm) do none."""
    from labsim.web import REHEARSALS

    for scenario, one_off in (("vm-images", 0), ("pools-vdevs", 0)):
        steps = Bridge().warming(scenario, rehearse=True)
        taken = 0
        while steps.step():
            taken += 1
        assert taken == one_off + REHEARSALS, scenario
        assert not Bridge().warming(scenario).step()


def test_warming_goes_in_short_steps_and_a_run_meanwhile_does_the_rest():
    """The worker advances a scenario's warm-up a step between the page's calls (so a
    terminal's command waits for one step, not for three filled pools): every command of
    the copies widget's pools is a step, and a widget run that comes in the middle builds
    what is left, the same pool as built at once, and the warm-up then ends."""
    from labsim.scenarios import copies

    copies.building.cache_clear()
    at_once = copies.layout("copies=2")
    copies.building.cache_clear()
    steps = Bridge().warming("copies")
    taken = 0
    while taken < copies.FILES["copies=1"] + 10:  # into the second pool (copies=2)
        assert steps.step()
        taken += 1
    assert copies.layout("copies=2") == at_once  # the run did the rest of it
    while steps.step():
        taken += 1
    # copies=1 and the mirror stepped through, copies=2 only up to where the run took over
    assert taken > copies.FILES["copies=1"] + copies.FILES["mirror"]
    assert not steps.step()


def test_the_warm_up_runs_in_short_steps_and_ends():
    """labsim.web.Exercise, run by the worker after a start from the snapshot: every command
    works (one that failed would leave the interpreter's paths for it cold), and it ends."""
    from labsim.shell.session import Session
    from labsim.web import _EXERCISE, Exercise

    session = Session()
    for line in _EXERCISE:
        result = session.run(line)
        assert result.status == 0 and "not simulated" not in result.stderr, (line, result)
    exercise = Exercise(rounds=2)
    steps = 0
    while exercise.step():
        steps += 1
    assert steps == 2 * (len(_EXERCISE) + 1)
    assert not exercise.step()
