"""Kernel WireGuard and wireguard-go, where labsim models them apart
(``Network.wireguard_implementation``, labsim.net.delivery): what each does with a packet
for a peer without an endpoint, what it counts as received, when it sends the keepalive of a
link whose key comes later, and ICMP redirects; and, for both, data under a session the
receiver has lost (a server's `wg-quick down` and `up`).

The numbers are those of the recorded runs: kernel WireGuard in the lab VM
(tests/fixtures/real/wireguard-kernel/), wireguard-go in namespaces on this machine
(tests/netlab), each as the difference the behaviour makes to a `wg show` counter.
"""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.net import delivery, model, trace
from labsim.net.delivery import echo, settle
from labsim.net.model import Network, add_host
from labsim.shell.session import Session
from labsim.wg.device import ZERO_KEY, DeviceChange, Endpoint, PeerChange, apply_change
from labsim.wg.keys import public_key

NOW = 1_795_000_000.0
KEYS = {"server": bytes([1]) * 32, "c1": bytes([2]) * 32, "c2": bytes([3]) * 32}
TUNNEL = {"server": "10.9.0.1", "c1": "10.9.0.2", "c2": "10.9.0.3"}
SERVER_ENDPOINT = Endpoint(ipaddress.IPv4Address("192.168.50.10"), 51820)
IMPLEMENTATIONS = ("kernel", "go")


def hub(implementation: str, keepalive: int = 0) -> Network:
    """A server (192.168.50.10, wg0 10.9.0.1/24, port 51820, forwarding) with two clients
    c1 and c2 (10.9.0.2 and .3), as in lab 03 on one interface: the server has each client
    as a peer with its /32 and no endpoint; each client has the server, 10.9.0.0/24, and its
    endpoint (and ``keepalive``)."""
    network = Network(wireguard_implementation=implementation)  # type: ignore[arg-type]
    for name in ("server", "c1", "c2"):
        host = add_host(network, name)
        model.add_wireguard_link(host, "wg0")
        apply_change(host.wireguard, "wg0", DeviceChange(
            private_key=KEYS[name], listen_port=51820 if name == "server" else 40000))
        model.add_address(host, "wg0", f"{TUNNEL[name]}/24")
        if name == "server":
            host.ip_forward = 1
            peers = tuple(PeerChange(public_key(KEYS[c]), allowed_ips=(
                ipaddress.IPv4Network(f"{TUNNEL[c]}/32"),)) for c in ("c1", "c2"))
        else:
            peers = (PeerChange(public_key(KEYS["server"]), endpoint=SERVER_ENDPOINT,
                                persistent_keepalive=keepalive,
                                allowed_ips=(ipaddress.IPv4Network("10.9.0.0/24"),)),)
        apply_change(host.wireguard, "wg0", DeviceChange(peers=peers))
        model.set_link(host, "wg0", True)
    return network


def ping(network: Network, host: str, address: str, now: float) -> trace.Delivery:
    trip = echo(network, host, address, now)
    delivery.apply(network, trip)
    return trip


def row(network: Network, host: str, peer: str) -> tuple[int, int]:
    """(received, sent) of ``host``'s peer ``peer``, as `wg show` counts them."""
    found = network.hosts[host].wireguard.interfaces["wg0"].peer(public_key(KEYS[peer]))
    assert found is not None
    return found.rx_bytes, found.tx_bytes


def lab03_no_keepalive_checks(network: Network) -> list[trace.Delivery]:
    """Lab 03's first three checks: c2 pings c1, which has sent nothing (1 s: it fails);
    c1 pings c2; c2 pings c1 again."""
    return [ping(network, "c2", TUNNEL["c1"], NOW), ping(network, "c1", TUNNEL["c2"], NOW + 1),
            ping(network, "c2", TUNNEL["c1"], NOW + 1.002)]


def test_kernel_answers_a_forwarded_packet_for_a_peer_without_endpoint():
    # Recorded (03-wg-client-routing--no-keepalive, kernel): ping printed "+1 errors", and
    # the server sent client2 144 bytes more than it did without the ICMP error (748, not
    # 604): an ICMP host unreachable quoting the 84-byte echo (112 bytes) in a data message.
    network = hub("kernel")
    trip = ping(network, "c2", TUNNEL["c1"], NOW)
    drop = trip.dropped
    assert (drop.host, drop.reason, drop.errno) == ("server", trace.NO_ENDPOINT, None)
    assert drop.unreachable_from == ipaddress.IPv4Address(TUNNEL["server"])
    assert row(network, "server", "c2") == (148 + 128, 92 + 144)
    assert row(network, "c2", "server") == (92 + 144, 148 + 128)
    assert trace.icmp_error_bytes(trace.ICMP_ECHO_BYTES) == 112
    assert trace.data_bytes(112) == 144


def test_ping_prints_the_forwarding_hosts_unreachable():
    network = hub("kernel")
    c2 = Session(network=network, hostname="c2")
    result = c2.run(f"ping -c 1 -W 1 {TUNNEL['c1']}")
    # iputils-ping's output for an ICMP error from a router (the recording's statistics
    # line, word for word; the "From" line as ping prints a host unreachable).
    assert result.stdout == (
        "PING 10.9.0.2 (10.9.0.2) 56(84) bytes of data.\n"
        "From 10.9.0.1 icmp_seq=1 Destination Host Unreachable\n"
        "\n--- 10.9.0.2 ping statistics ---\n"
        "1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n\n")
    assert (result.stderr, result.status) == ("", 1)


def test_wireguard_go_stages_it_and_sends_it_once_the_peer_is_known():
    # Recorded (03-wg-client-routing--no-keepalive): the server sent client2 1020 bytes over
    # wireguard-go and 748 over kernel WireGuard, 272 more: two ICMP redirects (144 each;
    # the ICMP host unreachable is not sent) and the echo reply to client2's first ping,
    # which wireguard-go kept staged and sent once client1 made its handshake.
    go, kernel = hub("go"), hub("kernel")
    first = lab03_no_keepalive_checks(go)[0]
    assert (first.dropped.reason, first.dropped.errno, first.dropped.unreachable_from) == (
        trace.STAGED, None, None)
    lab03_no_keepalive_checks(kernel)
    assert row(go, "server", "c2")[1] - row(kernel, "server", "c2")[1] == 272
    assert row(go, "server", "c2") == (148 + 3 * 128, 92 + 2 * 144 + 3 * 128)
    # c1 got the staged echo request and answered it, and one redirect (its second, for
    # the reply to the staged request, came within 40 ms of the first).
    assert row(go, "server", "c1")[1] - row(kernel, "server", "c1")[1] == 128 + 144
    assert not go.staged


def test_redirects_are_rate_limited_per_source():
    """ip_rt_send_redirect(): the first at once, then only after 20 ms << the number sent."""
    network = hub("go")
    ping(network, "c1", TUNNEL["server"], NOW)  # the server learns c1's endpoint
    sent = []
    for at in (1.0, 1.01, 1.05, 1.06, 1.2, 2.0):
        before = row(network, "server", "c2")[1]
        assert ping(network, "c2", TUNNEL["c1"], NOW + at).ok
        # c2's request is forwarded back out of wg0: a redirect to c2 (144), or none;
        # the reply (128) comes either way, after c2's handshake (92) the first time.
        sent.append(row(network, "server", "c2")[1] - before - 128 - (92 if at == 1.0 else 0))
    assert sent == [144, 0, 144, 0, 144, 144]
    assert network.redirects[("server", ipaddress.IPv4Address(TUNNEL["c2"]))] == (4, NOW + 2.0)


def test_kernel_sends_no_redirects():
    network = hub("kernel")
    ping(network, "c1", TUNNEL["server"], NOW)
    assert ping(network, "c2", TUNNEL["c1"], NOW + 1).ok
    assert row(network, "server", "c2") == (148 + 128, 92 + 128)
    assert not network.redirects


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_received_bytes_of_a_packet_the_allowed_ips_filter_drops(implementation):
    # Recorded (01-wg-peers--wrong-allowed-ips): bob's row for alice, whose AllowedIPs
    # there is not her address, said 148 bytes received on kernel WireGuard (only the
    # handshake initiation) and 276 on wireguard-go (the dropped 128-byte ping too).
    network = hub(implementation)
    apply_change(network.hosts["server"].wireguard, "wg0", DeviceChange(peers=(PeerChange(
        public_key(KEYS["c1"]), replace_allowed_ips=True,
        allowed_ips=(ipaddress.IPv4Network("10.9.0.99/32"),)),)))
    trip = ping(network, "c1", TUNNEL["server"], NOW)
    assert trip.dropped.reason == trace.SOURCE_NOT_ALLOWED
    assert row(network, "server", "c1") == ({"kernel": 148, "go": 276}[implementation], 92)
    assert row(network, "c1", "server") == (92, 276)


def restart_server(network: Network) -> None:
    """`wg-quick down wg0` and `up`: the interface made anew from its file, which has the
    peers and their AllowedIPs but nothing learned (endpoints, sessions)."""
    server = network.hosts["server"]
    model.delete_link(server, "wg0")
    model.add_wireguard_link(server, "wg0")
    apply_change(server.wireguard, "wg0", DeviceChange(
        private_key=KEYS["server"], listen_port=51820, peers=tuple(
            PeerChange(public_key(KEYS[c]),
                       allowed_ips=(ipaddress.IPv4Network(f"{TUNNEL[c]}/32"),))
            for c in ("c1", "c2"))))
    model.add_address(server, "wg0", "10.9.0.1/24")
    model.set_link(server, "wg0", True)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_data_under_a_session_the_server_lost_is_dropped(implementation):
    # Recorded (04-wg-runtime-peers--restart, both implementations): after the server's
    # restart alice's ping failed; her row said 220 bytes received and 404 sent (her
    # handshake, the ping before the restart and the one after, which the server dropped),
    # the server's row for her 0 and 0, no endpoint, no handshake.
    network = hub(implementation)
    assert ping(network, "c1", TUNNEL["server"], NOW).ok
    restart_server(network)
    lost = ping(network, "c1", TUNNEL["server"], NOW + 1)
    assert (lost.dropped.host, lost.dropped.reason) == ("server", trace.NO_SESSION)
    assert row(network, "c1", "server") == (220, 404)
    assert row(network, "server", "c1") == (0, 0)
    server_peer = network.hosts["server"].wireguard.interfaces["wg0"].peers[0]
    assert (server_peer.endpoint, server_peer.last_handshake) == (None, 0)
    # Still lost 14 s after the first unanswered packet; at 15 s (KEEPALIVE_TIMEOUT +
    # REKEY_TIMEOUT) c1 makes a new handshake, and the server learns where it is.
    assert ping(network, "c1", TUNNEL["server"], NOW + 15).dropped.reason == (
        trace.NO_SESSION)
    again = ping(network, "c1", TUNNEL["server"], NOW + 16)
    assert again.ok
    assert any("handshake initiation" in hop.what for hop in again.hops)
    server_peer = network.hosts["server"].wireguard.interfaces["wg0"].peers[0]
    assert server_peer.endpoint is not None and server_peer.last_handshake == NOW + 16
    assert network.hosts["c1"].wireguard.interfaces["wg0"].peers[0].unanswered_since == 0


def bring_up_without_key(network: Network, host: str) -> None:
    """wg-quick's order with `PostUp = wg set %i private-key FILE`: the link comes up
    before the interface has a key."""
    model.set_link(network.hosts[host], "wg0", False)
    apply_change(network.hosts[host].wireguard, "wg0", DeviceChange(private_key=ZERO_KEY))
    model.set_link(network.hosts[host], "wg0", True)
    settle(network, NOW, brought_up=(host, "wg0"))


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_keepalive_of_a_link_whose_key_comes_after_it_is_up(implementation):
    # Recorded (03-wg-client-routing, client1 with PersistentKeepalive = 25 and its key set
    # by PostUp): client1 sent 968 bytes over wireguard-go and 820 over kernel WireGuard,
    # 148 more: the handshake initiation wireguard-go sends at link up without a key, which
    # the server drops uncounted. And (the keepalive-only variant) over wireguard-go the
    # server still had no endpoint for client1 after the key was set: the check "client2
    # reaches client1, which has not sent anything itself" failed there, passed on kernel.
    network = hub(implementation, keepalive=25)
    bring_up_without_key(network, "c1")
    assert row(network, "c1", "server") == (0, {"kernel": 0, "go": 148}[implementation])
    assert row(network, "server", "c1") == (0, 0)
    apply_change(network.hosts["c1"].wireguard, "wg0", DeviceChange(private_key=KEYS["c1"]))
    settle(network, NOW + 0.1)
    server_knows = network.hosts["server"].wireguard.interfaces["wg0"].peers[0].endpoint
    assert (server_knows is not None) == (implementation == "kernel")
    # Kernel: a handshake and its keepalive when the key was set. wireguard-go: the first
    # packet makes the handshake, then the staged keepalive and the packet go.
    assert ping(network, "c1", TUNNEL["server"], NOW + 0.2).ok
    assert row(network, "c1", "server")[1] == {"kernel": 148 + 32 + 128,
                                                "go": 148 + 148 + 32 + 128}[implementation]
    assert row(network, "server", "c1") == (148 + 32 + 128, 92 + 128)


def test_the_kernel_is_the_default():
    assert Network().wireguard_implementation == "kernel"


def netkit_lab(lab: str, variant: str | None, wireguard: str) -> dict[str, str]:
    """netkit's labsim backend (labs/netkit/sim.py) running ``lab``: each check's outcome."""
    labs = Path(__file__).resolve().parents[2] / "labs"
    if str(labs) not in sys.path:
        sys.path.insert(0, str(labs))
    import netkit
    from netkit import sim

    topology = netkit.load(lab)
    shell = sim.up(topology, wireguard)
    netkit.configure(topology, shell, variant, log=lambda text: None,
                     install=sim.installer(shell))
    _status, outcomes = netkit.validate(topology, shell, log=lambda text: None)
    return {o.check.name: o.observed for o in outcomes}


def test_netkit_simulates_the_implementation_it_is_given():
    # Recorded: lab 03's keepalive-only variant passes this check on kernel WireGuard (the
    # lab VM) and fails it over wireguard-go (tests/netlab), as labsim does with each.
    check = "client2 reaches client1, which has not sent anything itself"
    assert netkit_lab("03-wg-client-routing", "keepalive-only", "kernel")[check] == "success"
    assert netkit_lab("03-wg-client-routing", "keepalive-only", "go")[check] == "failure"


@settings(max_examples=40, deadline=None)
@given(implementation=st.sampled_from(IMPLEMENTATIONS), restart_at=st.integers(0, 5),
       pings=st.lists(st.tuples(st.sampled_from(sorted(TUNNEL)), st.sampled_from(
           sorted(TUNNEL)), st.floats(0, 30)), max_size=6))
def test_nothing_is_received_that_was_not_sent(implementation, restart_at, pings):
    """Whatever the pings and a server restart among them, each end of a tunnel has
    received at most what the other end sent: every loss (a drop, a lost session, a
    handshake nobody can answer) only takes from the receiving side."""
    network = hub(implementation)
    now = NOW
    for index, (sender, target, wait) in enumerate(pings):
        if index == restart_at:
            restart_server(network)
        now += wait
        ping(network, sender, TUNNEL[target], now)
    for client in ("c1", "c2"):
        client_rx, client_tx = row(network, client, "server")
        server_rx, server_tx = row(network, "server", client)
        assert server_rx <= client_tx
        if restart_at >= len(pings):  # the restart zeroes the server's counters
            assert client_rx <= server_tx
