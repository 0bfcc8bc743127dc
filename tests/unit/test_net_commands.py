"""`ip`, `ping`, `sysctl` and `iptables` on hosts of a shared Network, against recordings.

The RECORDED_* texts were recorded on Debian 12 with iproute2 6.1.0-3, iputils-ping
3:20221126-1+deb12u1, procps 4.0.2 (sysctl), iptables 1.8.9-2 (nf_tables), wireguard-tools
1.0.20210914 and wireguard-go 0.0.20220316-1+b4, in three network namespaces joined by veth
pairs, each wireguard-go with a private /run (`ip netns exec NS unshare -m sh -c 'mount -t
tmpfs tmpfs /run; ...'`): client (eth0 192.168.50.2/24, wg0 10.9.0.2/24), gateway (eth0
192.168.50.1/24, eth1 10.1.0.1/24, wg0 10.9.0.1/24 port 51820) and lan (eth0 10.1.0.2/24,
no route to 10.9.0.0/24). The same commands run here on the model.

wireguard-go's interface is a tun device, not the kernel's WireGuard link the lab VM has
(`ip -d link` says "tun type tun"), so the recorded wg0 lines differ from the kernel's in
known ways, undone by ``kernel_wg``: flags MULTICAST, qdisc pfifo_fast, qlen 500 and an
fe80:: address (the kernel's wg0 is <POINTOPOINT,NOARP>, noqueue, qlen 1000, no IPv6
address). Likewise wireguard-go drops a packet no peer's AllowedIPs cover silently, where
kernel WireGuard fails ping's sendmsg() with ENOKEY: the model prints the kernel's error.
Veth names carry "@ifN", and link-local addresses and MACs are random: ``masked`` hides those.
Ping times are masked in the comparison with the recordings and pinned exactly for the
model, whose times are fixed.
"""

from __future__ import annotations

import re

import pytest

from labsim.net.model import Network, add_ether_link, add_host
from labsim.shell.base import interleaved
from labsim.shell.session import Session

RECORDED_CLIENT_ROUTE = (
    "10.1.0.0/24 dev wg0 scope link \n"
    "10.7.0.0/24 via 10.9.0.1 dev wg0 \n"
    "10.9.0.0/24 dev wg0 proto kernel scope link src 10.9.0.2 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.2 \n"
)
RECORDED_GATEWAY_ROUTE = (
    "10.1.0.0/24 dev eth1 proto kernel scope link src 10.1.0.1 \n"
    "10.9.0.0/24 dev wg0 proto kernel scope link src 10.9.0.1 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.1 \n"
)
RECORDED_GATEWAY_ROUTE_WG_DOWN = (
    "10.1.0.0/24 dev eth1 proto kernel scope link src 10.1.0.1 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.1 \n"
)
RECORDED_GATEWAY_BRIEF = (
    "lo               UNKNOWN        127.0.0.1/8 ::1/128 \n"
    "wg0              UNKNOWN        10.9.0.1/24 fe80::6d2e:b8dc:2f6:dfae/64 \n"
    "eth0@if30        UP             192.168.50.1/24 fe80::a8c2:35ff:fe00:c100/64 \n"
    "eth1@if32        UP             10.1.0.1/24 fe80::a402:1cff:fe25:101b/64 \n"
)
RECORDED_GATEWAY_BRIEF_WG_DOWN = (
    "lo               UNKNOWN        127.0.0.1/8 ::1/128 \n"
    "wg0              DOWN           10.9.0.1/24 \n"
    "eth0@if26        UP             192.168.50.1/24 fe80::dcf4:61ff:fe2e:cf19/64 \n"
    "eth1@if28        UP             10.1.0.1/24 fe80::8815:8cff:fe69:bd02/64 \n"
)
RECORDED_WG0_SHOW = (
    "2: wg0: <POINTOPOINT,MULTICAST,NOARP,UP,LOWER_UP> mtu 1420 qdisc pfifo_fast state UNKNOWN "
    "group default qlen 500\n"
    "    link/none \n"
    "    inet 10.9.0.1/24 scope global wg0\n"
    "       valid_lft forever preferred_lft forever\n"
    "    inet6 fe80::6d2e:b8dc:2f6:dfae/64 scope link stable-privacy \n"
    "       valid_lft forever preferred_lft forever\n"
)
RECORDED_WG0_SHOW_NEW = (
    "2: wg0: <POINTOPOINT,MULTICAST,NOARP> mtu 1420 qdisc noop state DOWN group default qlen 500\n"
    "    link/none \n"
)
RECORDED_LO_SHOW = (
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n"
    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
    "    inet 127.0.0.1/8 scope host lo\n"
    "       valid_lft forever preferred_lft forever\n"
    "    inet6 ::1/128 scope host \n"
    "       valid_lft forever preferred_lft forever\n"
)
RECORDED_PING_OK = (
    "PING 10.9.0.1 (10.9.0.1) 56(84) bytes of data.\n"
    "64 bytes from 10.9.0.1: icmp_seq=1 ttl=64 time=1.52 ms\n"
    "64 bytes from 10.9.0.1: icmp_seq=2 ttl=64 time=2.44 ms\n"
    "\n"
    "--- 10.9.0.1 ping statistics ---\n"
    "2 packets transmitted, 2 received, 0% packet loss, time 1002ms\n"
    "rtt min/avg/max/mdev = 1.524/1.980/2.437/0.456 ms\n"
)
RECORDED_PING_LAN_OK = (
    "PING 10.1.0.2 (10.1.0.2) 56(84) bytes of data.\n"
    "64 bytes from 10.1.0.2: icmp_seq=1 ttl=63 time=0.469 ms\n"
    "64 bytes from 10.1.0.2: icmp_seq=2 ttl=63 time=2.08 ms\n"
    "\n"
    "--- 10.1.0.2 ping statistics ---\n"
    "2 packets transmitted, 2 received, 0% packet loss, time 1034ms\n"
    "rtt min/avg/max/mdev = 0.469/1.276/2.083/0.807 ms\n"
)
RECORDED_PING_LAN_LOST = (
    "PING 10.1.0.2 (10.1.0.2) 56(84) bytes of data.\n"
    "\n"
    "--- 10.1.0.2 ping statistics ---\n"
    "2 packets transmitted, 0 received, 100% packet loss, time 1013ms\n"
    "\n"
)
RECORDED_PING_NO_PEER = (
    "PING 10.7.0.5 (10.7.0.5) 56(84) bytes of data.\n"
    "\n"
    "--- 10.7.0.5 ping statistics ---\n"
    "2 packets transmitted, 0 received, 100% packet loss, time 1012ms\n"
    "\n"
)
RECORDED_PING_SELF = (
    "PING 10.9.0.2 (10.9.0.2) 56(84) bytes of data.\n"
    "64 bytes from 10.9.0.2: icmp_seq=1 ttl=64 time=0.064 ms\n"
    "\n"
    "--- 10.9.0.2 ping statistics ---\n"
    "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
    "rtt min/avg/max/mdev = 0.064/0.064/0.064/0.000 ms\n"
)


def masked(text: str) -> str:
    """``text`` without what differs from run to run: veth peer indexes, link-local
    addresses, MACs and times."""
    text = re.sub(r"@if\d+(?= )", lambda m: " " * len(m.group()), text)  # `-brief` columns
    text = re.sub(r"@if\d+", "", text)
    text = re.sub(r"fe80::[0-9a-f:]+/64", "fe80::*/64", text)
    text = re.sub(r"link/ether [0-9a-f:]{17}", "link/ether *", text)
    text = re.sub(r"time=[0-9.]+ ms", "time=* ms", text)
    text = re.sub(r"time \d+ms", "time *ms", text)
    return re.sub(r"rtt min/avg/max/mdev = [0-9./]+ ms", "rtt * ms", text)


def kernel_wg(text: str) -> str:
    """A recording of wireguard-go's wg0 as kernel WireGuard shows the same link."""
    text = text.replace("POINTOPOINT,MULTICAST,NOARP", "POINTOPOINT,NOARP")
    text = text.replace("qdisc pfifo_fast", "qdisc noqueue").replace("qlen 500", "qlen 1000")
    text = re.sub(r"(wg0 +\S+ +\S+) fe80::\S+ ", r"\1 ", text)
    return re.sub(r"    inet6 fe80::\S+ scope link stable-privacy \n.*\n", "", text)


def run(session: Session, line: str) -> tuple[str, str, int]:
    result = session.run(line)
    return result.stdout, result.stderr, result.status


def ok(session: Session, line: str) -> str:
    stdout, stderr, status = run(session, line)
    assert (stderr, status) == ("", 0), line
    return stdout


def lab() -> tuple[Session, Session, Session]:
    """The recorded topology: sessions on client, gateway and lan of one Network."""
    network = Network()
    add_host(network, "gateway", underlay="192.168.50.1/24")
    add_host(network, "client", underlay="192.168.50.2/24")
    add_host(network, "lan", underlay="10.1.0.2/24", segment="site")
    add_ether_link(network.hosts["gateway"], "eth1", "site", "10.1.0.1/24")
    gateway, client, lan = (Session(network=network, hostname=name)
                            for name in ("gateway", "client", "lan"))
    assert client.network is gateway.network is lan.network
    for session in (gateway, client):
        ok(session, "ip link add wg0 type wireguard")
        ok(session, "wg genkey | wg set wg0 private-key /dev/stdin")
    gateway_key = ok(gateway, "wg show wg0 public-key").strip()
    client_key = ok(client, "wg show wg0 public-key").strip()
    ok(gateway, f"wg set wg0 listen-port 51820 peer {client_key} allowed-ips 10.9.0.2/32")
    ok(client, f"wg set wg0 peer {gateway_key} allowed-ips 10.9.0.0/24,10.1.0.0/24 "
               "endpoint 192.168.50.1:51820")
    ok(gateway, "ip addr add 10.9.0.1/24 dev wg0")
    ok(gateway, "ip link set wg0 up")
    ok(client, "ip addr add 10.9.0.2/24 dev wg0")
    ok(client, "ip link set wg0 up")
    ok(client, "ip route add 10.1.0.0/24 dev wg0")
    ok(client, "ip route add 10.7.0.0/24 via 10.9.0.1")
    return client, gateway, lan


def test_sessions_of_one_network_share_it_and_keep_session_wireguard():
    client, gateway, _ = lab()
    assert gateway.wireguard is gateway.network.hosts["gateway"].wireguard
    assert "wg0" in client.wireguard.interfaces
    # Two hosts generate different keys: their generators are seeded apart.
    assert ok(client, "wg show wg0 public-key") != ok(gateway, "wg show wg0 public-key")
    # A session on its own still gets a network with just its host.
    alone = Session()
    assert list(alone.network.hosts) == ["lab"]


def test_ip_route_matches_recording():
    client, gateway, _ = lab()
    assert ok(client, "ip route") == RECORDED_CLIENT_ROUTE
    assert ok(client, "ip route show") == RECORDED_CLIENT_ROUTE
    assert ok(gateway, "ip route") == RECORDED_GATEWAY_ROUTE
    ok(gateway, "ip link set wg0 down")
    assert ok(gateway, "ip route") == RECORDED_GATEWAY_ROUTE_WG_DOWN


def test_ip_brief_addr_matches_recording():
    _, gateway, _ = lab()
    # The lab VM (like the model) numbers eth0 before wg0, the namespaces did not.
    assert sorted(masked(ok(gateway, "ip -brief addr")).splitlines()) == sorted(
        masked(kernel_wg(RECORDED_GATEWAY_BRIEF)).splitlines())
    ok(gateway, "ip link set wg0 down")
    assert sorted(masked(ok(gateway, "ip -br a")).splitlines()) == sorted(
        masked(RECORDED_GATEWAY_BRIEF_WG_DOWN).splitlines())
    assert ok(gateway, "ip -brief addr show dev wg0") == (
        "wg0              DOWN           10.9.0.1/24 \n")


def test_ip_addr_show_matches_recording():
    _, gateway, _ = lab()
    shown = ok(gateway, "ip addr show dev wg0")
    assert shown == kernel_wg(RECORDED_WG0_SHOW).replace("2: wg0", "4: wg0")
    assert shown == (
        "4: wg0: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1420 qdisc noqueue state UNKNOWN "
        "group default qlen 1000\n"
        "    link/none \n"
        "    inet 10.9.0.1/24 scope global wg0\n"
        "       valid_lft forever preferred_lft forever\n")
    assert ok(gateway, "ip addr").startswith(RECORDED_LO_SHOW)
    fresh = Session()
    ok(fresh, "ip link add wg0 type wireguard")
    assert ok(fresh, "ip addr show wg0") == kernel_wg(RECORDED_WG0_SHOW_NEW).replace(
        "2: wg0", "3: wg0").replace("noqueue", "noop")
    # After being up once, the link keeps its qdisc.
    ok(fresh, "ip link set wg0 up")
    ok(fresh, "ip link set wg0 down")
    assert "qdisc noqueue state DOWN" in ok(fresh, "ip addr show dev wg0")
    assert "inet6 fe80::5054:ff:fe12:3456/64 scope link \n" in ok(fresh, "ip a show eth0")


@pytest.mark.parametrize(("host", "line", "expected"), [
    ("gateway", "ip addr add 10.9.0.1/24 dev wg0",
     ("", "Error: ipv4: Address already assigned.\n", 2)),
    ("gateway", "ip addr add 10.9.0.1/24 dev nosuch", ("", 'Cannot find device "nosuch"\n', 1)),
    ("gateway", "ip link set nosuch up", ("", 'Cannot find device "nosuch"\n', 1)),
    ("gateway", "ip addr show dev nosuch", ("", 'Device "nosuch" does not exist.\n', 1)),
    ("gateway", "ip route add 10.5.0.0/24 dev nosuch", ("", 'Cannot find device "nosuch"\n', 1)),
    ("gateway", "ip route add 10.5.0.0/24 via 172.16.9.9",
     ("", "Error: Nexthop has invalid gateway.\n", 2)),
    ("client", "ip route add 10.1.0.0/24 dev wg0", ("", "RTNETLINK answers: File exists\n", 2)),
    ("client", "ip link del nosuch", ("", 'Cannot find device "nosuch"\n', 1)),
    ("client", "ip route add 10.1.0.1/24 dev wg0",
     ("", "Error: Invalid prefix for given prefix length.\n", 2)),
    ("client", "ip link add wg0 type wireguard", ("", "RTNETLINK answers: File exists\n", 2)),
    ("client", "ip link del lo", ("", "RTNETLINK answers: Operation not supported\n", 2)),
    ("client", "ip link add foo type nosuchtype", ("", "Error: Unknown device type.\n", 2)),
    ("client", "ip addr add foo dev wg0",
     ("", 'Error: any valid prefix is expected rather than "foo".\n', 1)),
    ("client", "ip addr add 10.0.0.1/33 dev wg0",
     ("", 'Error: any valid prefix is expected rather than "10.0.0.1/33".\n', 1)),
    ("client", "ip route add foo dev wg0",
     ("", 'Error: any valid prefix is expected rather than "foo".\n', 1)),
    ("client", "ip route add 10.5.0.0/24 via foo",
     ("", 'Error: inet address is expected rather than "foo".\n', 1)),
    ("client", "ip route del 10.5.0.0/24", ("", "RTNETLINK answers: No such process\n", 2)),
    ("client", "ip route del 10.7.0.0/24", ("", "", 0)),
    ("gateway", "sysctl net.ipv4.ip_forward", ("net.ipv4.ip_forward = 0\n", "", 0)),
    ("gateway", "sysctl -w net.ipv4.ip_forward=1", ("net.ipv4.ip_forward = 1\n", "", 0)),
    ("gateway", "sysctl net.ipv4.ip_forward=1", ("net.ipv4.ip_forward = 1\n", "", 0)),
    ("gateway", "sysctl -n net.ipv4.ip_forward", ("0\n", "", 0)),
    ("gateway", "sysctl net.ipv4.nosuch",
     ("", "sysctl: cannot stat /proc/sys/net/ipv4/nosuch: No such file or directory\n", 1)),
    ("gateway", "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE", ("", "", 0)),
    ("client", "ping -c 1 -W 1 172.16.0.9", ("", "ping: connect: Network is unreachable\n", 2)),
    ("client", "ping", ("", "ping: usage error: Destination address required\n", 1)),
    ("client", "ping -c 0 10.9.0.1",
     ("", "ping: invalid argument: '0': out of range: 1 <= value <= 9223372036854775807\n", 1)),
])
def test_messages_match_recordings(host, line, expected):
    client, gateway, _ = lab()
    session = {"client": client, "gateway": gateway}[host]
    assert run(session, line) == expected


def test_a_route_needs_an_up_device():
    # Recorded with a veth pair (iproute2 6.1): routes through a down link are refused.
    fresh = Session()
    ok(fresh, "ip link add wg0 type wireguard")
    assert run(fresh, "ip route add 10.1.0.0/24 dev wg0") == (
        "", "Error: Device for nexthop is not up.\n", 2)


def test_iptables_lists_the_rule():
    _, gateway, _ = lab()
    ok(gateway, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")
    assert ok(gateway, "iptables -t nat -S") == (
        "-P PREROUTING ACCEPT\n-P INPUT ACCEPT\n-P OUTPUT ACCEPT\n-P POSTROUTING ACCEPT\n"
        "-A POSTROUTING -o eth1 -j MASQUERADE\n")


def test_ping_through_the_tunnel_matches_recording():
    client, gateway, _ = lab()
    stdout = ok(client, "ping -c 2 10.9.0.1")
    assert masked(stdout) == masked(RECORDED_PING_OK)
    # The model's times: the first packet waits for the handshake.
    assert stdout == (
        "PING 10.9.0.1 (10.9.0.1) 56(84) bytes of data.\n"
        "64 bytes from 10.9.0.1: icmp_seq=1 ttl=64 time=1.50 ms\n"
        "64 bytes from 10.9.0.1: icmp_seq=2 ttl=64 time=0.500 ms\n"
        "\n--- 10.9.0.1 ping statistics ---\n"
        "2 packets transmitted, 2 received, 0% packet loss, time 1001ms\n"
        "rtt min/avg/max/mdev = 0.500/1.000/1.500/0.500 ms\n")
    # The same again gives the same text but for the handshake: the session is fresh.
    again = ok(client, "ping -c 2 10.9.0.1")
    assert "time=1.50" not in again
    # The gateway learned the client's endpoint from the handshake, as the recording's
    # `wg show` did (endpoint 192.168.50.2:<client's port>).
    assert "endpoint: 192.168.50.2:" in ok(gateway, "wg show")
    assert "latest handshake: " in ok(gateway, "wg show")


def test_ping_self_matches_recording():
    client, _, _ = lab()
    stdout = ok(client, "ping -c 1 10.9.0.2")
    assert masked(stdout) == masked(RECORDED_PING_SELF)
    assert "time=0.040 ms" in stdout


def kernel_enokey(recorded: str, source: str, count: int) -> str:
    """A recording of wireguard-go's silent drop as kernel WireGuard's ping shows it: wg_xmit()
    also sends an ICMP host unreachable (icmp_ndo_send()), which ping reports per packet
    and counts as an error. Not recorded here (this machine's kernel has no WireGuard):
    the text follows iputils' receive_error_msg() and finish(), and matches what users of
    kernel WireGuard posted (github.com/gravitl/netmaker/issues/2390,
    github.com/angristan/wireguard-install/issues/87)."""
    head, _, rest = recorded.partition("\n")
    lines = "".join(f"From {source} icmp_seq={n} Destination Host Unreachable\n"
                    for n in range(1, count + 1))
    rest = rest.replace(" received,", f" received, +{count} errors,")
    return f"{head}\n{lines}{rest}"


def test_ping_with_no_peer_for_the_address_is_enokey():
    client, _, _ = lab()
    stdout, stderr, status = run(client, "ping -c 2 -W 1 10.7.0.5")
    # Kernel WireGuard (the lab VM); wireguard-go, recorded, drops it silently.
    assert masked(stdout) == masked(kernel_enokey(RECORDED_PING_NO_PEER, "10.9.0.2", 2))
    assert stderr == "ping: sendmsg: Required key not available\n" * 2
    assert status == 1
    assert stdout == (
        "PING 10.7.0.5 (10.7.0.5) 56(84) bytes of data.\n"
        "From 10.9.0.2 icmp_seq=1 Destination Host Unreachable\n"
        "From 10.9.0.2 icmp_seq=2 Destination Host Unreachable\n"
        "\n--- 10.7.0.5 ping statistics ---\n"
        "2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1001ms\n\n")


def test_ping_to_a_peer_without_endpoint_is_edestaddrreq():
    _, gateway, _ = lab()
    stdout, stderr, status = run(gateway, "ping -c 1 10.9.0.2")
    assert stderr == "ping: sendmsg: Destination address required\n"
    assert stdout == (
        "PING 10.9.0.2 (10.9.0.2) 56(84) bytes of data.\n"
        "From 10.9.0.1 icmp_seq=1 Destination Host Unreachable\n"
        "\n--- 10.9.0.2 ping statistics ---\n"
        "1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n\n")
    assert status == 1


def test_forwarding_and_masquerade_on_the_gateway_match_recording():
    client, gateway, _ = lab()
    ok(client, "ping -c 1 10.9.0.1")
    # ip_forward = 0: the gateway drops what is not its own.
    stdout, stderr, status = run(client, "ping -c 2 -W 1 10.1.0.2")
    assert (masked(stdout), stderr, status) == (masked(RECORDED_PING_LAN_LOST), "", 1)
    assert client.last_ping[0].dropped.reason == "ip-forward-off"
    # Forwarding on, but lan has no route back to 10.9.0.0/24.
    ok(gateway, "sysctl -w net.ipv4.ip_forward=1")
    stdout, stderr, status = run(client, "ping -c 2 -W 1 10.1.0.2")
    assert (masked(stdout), stderr, status) == (masked(RECORDED_PING_LAN_LOST), "", 1)
    drop = client.last_ping[0].dropped
    assert (drop.host, drop.reason, drop.reply) == ("lan", "no-route", True)
    # MASQUERADE: lan answers the gateway, which passes the reply back.
    ok(gateway, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")
    stdout = ok(client, "ping -c 2 10.1.0.2")
    assert masked(stdout) == masked(RECORDED_PING_LAN_OK)
    assert "ttl=63" in stdout


def test_ping_is_deterministic_and_advances_the_clock():
    outputs = []
    for _ in range(2):
        client, _, _ = lab()
        start = client.clock
        outputs.append(ok(client, "ping -c 3 10.9.0.1"))
        assert client.clock > start + 2
    assert outputs[0] == outputs[1]


def test_lost_pings_wait_for_the_timeout():
    client, gateway, _ = lab()
    start = client.clock
    run(client, "ping -c 2 -W 1 10.1.0.2")  # silently lost: wait -W after the last
    assert client.clock == start + 2
    run(client, "ping -c 2 -W 1 10.7.0.5")  # every packet failed: nothing to wait for
    assert client.clock == start + 3


def test_persistent_keepalive_makes_a_client_behind_nat_reachable():
    network = Network()
    add_host(network, "gateway", underlay="192.168.50.1/24")
    add_host(network, "client", underlay="10.0.2.15/24", nat_address="192.168.50.200")
    gateway, client = Session(network=network, hostname="gateway"), Session(
        network=network, hostname="client")
    # The client's way out is its NAT router.
    ok(client, "ip route add default via 10.0.2.2")
    for session, address in ((gateway, "10.9.0.1/24"), (client, "10.9.0.2/24")):
        ok(session, "ip link add wg0 type wireguard")
        ok(session, "wg genkey | wg set wg0 private-key /dev/stdin listen-port 51820")
        ok(session, f"ip addr add {address} dev wg0")
        ok(session, "ip link set wg0 up")
    gateway_key = ok(gateway, "wg show wg0 public-key").strip()
    client_key = ok(client, "wg show wg0 public-key").strip()
    ok(gateway, f"wg set wg0 peer {client_key} allowed-ips 10.9.0.2/32")
    ok(client, f"wg set wg0 peer {gateway_key} allowed-ips 10.9.0.0/24 "
               "endpoint 192.168.50.1:51820")
    # Nobody has heard from the client: the gateway has no endpoint for it.
    assert run(gateway, "ping -c 1 10.9.0.2")[1] == (
        "ping: sendmsg: Destination address required\n")
    # Setting a keepalive sends one at once, which makes a handshake through the NAT.
    # Recorded over wireguard-go in two namespaces (no NAT): before, the server's `wg show`
    # had no endpoint for the client and its ping got no reply (silently, wireguard-go);
    # a second after `wg set wg0 peer KEY persistent-keepalive 25` on the client it showed
    # "endpoint: 192.168.50.2:40000" and "latest handshake: 1 second ago", and pinged.
    ok(client, f"wg set wg0 peer {gateway_key} persistent-keepalive 25")
    shown = ok(gateway, "wg show wg0")
    assert "endpoint: 192.168.50.200:51820" in shown
    assert "latest handshake: " in shown
    assert "1 received" in ok(gateway, "ping -c 1 10.9.0.2")


def test_route_order_matches_recording():
    # Recorded in a network namespace with a veth pair d0 (iproute2 6.1, kernel 6.x); here
    # on eth0, whose connected route is 192.168.50.0/24.
    recorded = (
        "0.0.0.0/1 dev d0 scope link \n"
        "default via 192.168.7.1 dev d0 \n"
        "10.0.0.0/24 dev d0 scope link \n"
        "10.0.0.0/16 via 192.168.7.9 dev d0 \n"
        "10.0.0.0/8 dev d0 scope link \n"
        "10.0.0.5 dev d0 scope link \n"
        "192.168.7.0/24 dev d0 proto kernel scope link src 192.168.7.1 \n")
    session = Session(network=Network(), hostname="lab")
    for line in ("ip route add 10.0.0.0/24 dev eth0", "ip route add 10.0.0.0/8 dev eth0",
                 "ip route add 10.0.0.0/16 via 192.168.50.9",
                 "ip route add default via 192.168.50.1", "ip route add 0.0.0.0/1 dev eth0",
                 "ip route add 10.0.0.5 dev eth0"):
        ok(session, line)
    expected = (recorded.replace("d0", "eth0").replace("192.168.7.0/24", "192.168.50.0/24")
                .replace("192.168.7.1 \n", "192.168.50.10 \n").replace("192.168.7.", "192.168.50."))
    assert ok(session, "ip route") == expected


def test_secondary_addresses_match_recording():
    # Recorded like the test above: a second address in the subnet is a secondary.
    session = Session()
    ok(session, "ip addr add 192.168.50.2/24 dev eth0")
    shown = ok(session, "ip addr show dev eth0")
    assert "    inet 192.168.50.10/24 scope global eth0\n" in shown
    assert "    inet 192.168.50.2/24 scope global secondary eth0\n" in shown
    assert "192.168.50.10/24 192.168.50.2/24 fe80::" in ok(session, "ip -br addr")


def test_a_terminal_shows_pings_errors_before_its_statistics():
    """ping writes each sendmsg error as it sends (stderr is unbuffered) and the statistics
    at the end: the terminal shows them in that order, and a page gets that order."""
    client, _, _ = lab()
    result = client.run("ping -c 2 -W 1 10.7.0.5")
    pieces = interleaved(result)  # consecutive writes to one stream joined
    assert [fd for fd, _ in pieces] == [1, 2, 1, 2, 1]
    assert pieces[1] == (2, "ping: sendmsg: Required key not available\n")
    assert pieces[-1][1].startswith("\n--- 10.7.0.5 ping statistics ---")
    assert "".join(t for fd, t in pieces if fd == 1) == result.stdout
    assert "".join(t for fd, t in pieces if fd == 2) == result.stderr
    # two commands on a line keep their order too
    both = client.run("ping -c 1 -W 1 10.7.0.5; echo done")
    assert [t for _, t in interleaved(both)][-1].endswith("ms\n\ndone\n")
    assert interleaved(both)[1][0] == 2
