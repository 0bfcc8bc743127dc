"""`curl` to an HTTP server through routing, WireGuard, forwarding and MASQUERADE
(labsim.net.delivery.http_get), with wg-quick's policy routing on the client, against
recordings.

Recorded on Debian 12 with curl 7.88.1-10+deb12u14, iproute2 6.1.0-3, iptables 1.8.9-2
(nf_tables), wireguard-tools 1.0.20210914 and wireguard-go 0.0.20220316, in network
namespaces made inside `unshare -Urnm`: client (eth0 192.168.50.10/24; `wg-quick up` of
wg0 = 10.0.0.2/24 with one peer, AllowedIPs = 0.0.0.0/0, Endpoint = 192.168.50.11:51820),
gw (eth0 192.168.50.11/24, eth1 10.99.0.1/24, wgs = 10.0.0.1/24 on port 51820 with the
client as peer, AllowedIPs 10.0.0.2/32, net.ipv4.ip_forward = 1) and web (eth0 10.99.0.2/24
on a veth to gw's eth1, no default route), where a Python http.server
(BaseHTTPRequestHandler, HTTP/1.0) answered every GET with "web: request from CLIENT_IP\\n".
The server's interface is called wgs there because every wireguard-go of one mount namespace
shares /var/run/wireguard.

Byte counters (`wg show IF transfer`: peer, received, sent) were read after each step: the
model's packet sizes reproduce them exactly. curl's "after N ms" and "after N milliseconds"
are the times it measured: the connection failures came after 0 ms, the time-outs after
2000 or 2001 ms for --max-time 2 (the model prints 2000).

Kernel WireGuard (the lab VM's) could not be recorded here. For a packet no peer's AllowedIPs
cover it fails the send with ENOKEY and answers the sender with an ICMP host unreachable
(wg_xmit(), drivers/net/wireguard/device.c), which aborts a TCP connection in SYN-SENT
(tcp_v4_err()). The same ICMP error, made by `iptables -A OUTPUT -d 10.99.0.3 -j REJECT
--reject-with icmp-host-unreachable`, gave RECORDED_HOST_UNREACHABLE.
"""

from __future__ import annotations

import ipaddress

from labsim.net import delivery, trace
from labsim.net.model import Network, add_ether_link, add_host, start_http_server
from labsim.shell.session import Session

RECORDED_BODY = "web: request from 10.99.0.1\n"
RECORDED_TIMEOUT = "curl: (28) Connection timed out after 2000 milliseconds\n"
RECORDED_REFUSED = ("curl: (7) Failed to connect to 10.99.0.2 port 8081 after 0 ms: "
                    "Couldn't connect to server\n")
RECORDED_NO_ROUTE = ("curl: (7) Failed to connect to 10.0.0.2 port 8080 after 0 ms: "
                     "Couldn't connect to server\n")
RECORDED_HOST_UNREACHABLE = ("curl: (7) Failed to connect to 10.99.0.3 port 8080 after 0 ms: "
                             "Couldn't connect to server\n")
RECORDED_NO_HOST = "curl: (6) Could not resolve host: web\n"
# (received, sent) on the client's wg0 and on gw's wgs after each step.
RECORDED_AFTER_TIMEOUT = ("92\t340", "340\t92")
RECORDED_AFTER_BODY = ("700\t900", "900\t700")
RECORDED_AFTER_REFUSED = ("780\t996", "996\t780")

WG_QUICK_UP = [
    "ip link add wg0 type wireguard",
    "ip -4 address add 10.0.0.2/24 dev wg0",
    "ip link set mtu 1420 up dev wg0",
    "wg set wg0 fwmark 51820",
    "ip -4 route add 0.0.0.0/0 dev wg0 table 51820",
    "ip -4 rule add not fwmark 51820 table 51820",
    "ip -4 rule add table main suppress_prefixlength 0",
    "sysctl -q net.ipv4.conf.all.src_valid_mark=1",
]


def ok(session: Session, line: str) -> str:
    result = session.run(line)
    assert (result.stderr, result.status) == ("", 0), (line, result.stderr)
    return result.stdout


def curl(session: Session, line: str) -> tuple[str, str, int]:
    result = session.run(line)
    return result.stdout, result.stderr, result.status


def lab(client_allowed: str = "0.0.0.0/0", fwmark: bool = True,
        masquerade: bool = False) -> tuple[Session, Session, Session]:
    """The recorded topology; the client set up with wg-quick's commands for
    ``client_allowed`` (without ``fwmark``, leaving out `wg set wg0 fwmark 51820`)."""
    network = Network()
    add_host(network, "client", underlay="192.168.50.10/24")
    gw = add_host(network, "gw", underlay="192.168.50.11/24")
    add_host(network, "web", underlay="10.99.0.2/24", segment="site")
    add_ether_link(gw, "eth1", "site", "10.99.0.1/24")
    start_http_server(network, "web", 8080)
    client, gateway, web = (Session(network=network, hostname=name)
                            for name in ("client", "gw", "web"))
    ok(gateway, "ip link add wgs type wireguard")
    ok(gateway, "wg genkey | wg set wgs private-key /dev/stdin listen-port 51820")
    for line in WG_QUICK_UP:
        if fwmark or "fwmark 51820" not in line or "rule" in line:
            ok(client, line)
    ok(client, "wg genkey | wg set wg0 private-key /dev/stdin")
    client_key = ok(client, "wg show wg0 public-key").strip()
    gateway_key = ok(gateway, "wg show wgs public-key").strip()
    ok(client, f"wg set wg0 peer {gateway_key} allowed-ips {client_allowed} "
               "endpoint 192.168.50.11:51820")
    ok(gateway, f"wg set wgs peer {client_key} allowed-ips 10.0.0.2/32")
    ok(gateway, "ip addr add 10.0.0.1/24 dev wgs")
    ok(gateway, "ip link set wgs up")
    ok(gateway, "sysctl -q net.ipv4.ip_forward=1")
    if masquerade:
        ok(gateway, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")
    return client, gateway, web


def transfer(client: Session, gateway: Session) -> tuple[str, str]:
    return (ok(client, "wg show wg0 transfer").split("\t", 1)[1].strip(),
            ok(gateway, "wg show wgs transfer").split("\t", 1)[1].strip())


def test_the_recorded_session_through_the_gateway():
    client, gateway, _ = lab()
    # No NAT: web answers 10.0.0.2, for which it has no route; curl gives up.
    assert curl(client, "curl -sS --max-time 2 http://10.99.0.2:8080/") == (
        "", RECORDED_TIMEOUT, 28)
    assert transfer(client, gateway) == RECORDED_AFTER_TIMEOUT
    ok(gateway, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")
    assert curl(client, "curl -s http://10.99.0.2:8080/") == (RECORDED_BODY, "", 0)
    assert transfer(client, gateway) == RECORDED_AFTER_BODY
    assert curl(client, "curl -sS --max-time 2 http://10.99.0.2:8081/") == (
        "", RECORDED_REFUSED, 7)
    assert transfer(client, gateway) == RECORDED_AFTER_REFUSED
    # The gateway's LAN address is reached over the LAN, not the tunnel.
    assert "1 received" in ok(client, "ping -c1 192.168.50.11")
    assert transfer(client, gateway) == RECORDED_AFTER_REFUSED


def test_the_trace_shows_the_tunnel_the_nat_and_the_lan_endpoint():
    client, _, _ = lab(masquerade=True)
    network = client.network
    trip = delivery.http_get(network, "client", "10.99.0.2", 8080, client.now(),
                             host_header="10.99.0.2:8080", max_time=2)
    assert trip.ok and not trip.refused
    assert (trip.server, trip.seen_source) == ("web", ipaddress.IPv4Address("10.99.0.1"))
    whats = [f"{hop.host}: {hop.what}" for hop in trip.hops]
    assert whats[0] == ("client: route 0.0.0.0/0 dev wg0: 10.0.0.2 -> 10.99.0.2 leaves by "
                        "wg0")
    # WireGuard's own datagrams carry the fwmark and so go by main's LAN route.
    assert any("handshake initiation to 192.168.50.11:51820" in w for w in whats)
    assert "gw: MASQUERADE on eth1: source 10.0.0.2 becomes 10.99.0.1" in whats
    assert "web: TCP port 8080: the HTTP server accepts the connection from 10.99.0.1" in whats
    assert "gw: conntrack: destination 10.99.0.1 back to 10.0.0.2" in whats
    assert whats[-1] == "client: connected; GET answered by web: web: request from 10.99.0.1"
    # Pure until applied.
    assert delivery.http_get(network, "client", "10.99.0.2", 8080, client.now(),
                             host_header="10.99.0.2:8080", max_time=2) == trip


def test_without_nat_the_answer_is_lost_at_the_server():
    client, _, _ = lab()
    trip = delivery.http_get(client.network, "client", "10.99.0.2", 8080, client.now(),
                             host_header="10.99.0.2:8080", max_time=2)
    assert trip.dropped is not None
    assert (trip.dropped.host, trip.dropped.reason, trip.dropped.reply) == (
        "web", trace.NO_ROUTE, True)
    assert trip.dropped.errno is None  # silent: curl waits


def test_without_the_fwmark_an_endpoint_on_the_lan_still_works():
    """The suppress_prefixlength rule alone sends the handshake by main's LAN route."""
    client, gateway, _ = lab(fwmark=False, masquerade=True)
    assert curl(client, "curl -s http://10.99.0.2:8080/") == (RECORDED_BODY, "", 0)
    # The initiation (148 bytes) and the connection (560), as in RECORDED_AFTER_BODY.
    assert transfer(client, gateway) == ("700\t708", "708\t700")


def routed_lab(fwmark: bool) -> Session:
    """A client whose endpoint is beyond a router, reached by main's default route: the
    router 192.168.50.1 forwards to 203.0.113.0/24, where the VPN server is."""
    network = Network()
    add_host(network, "client", underlay="192.168.50.10/24")
    router = add_host(network, "router", underlay="192.168.50.1/24")
    add_ether_link(router, "eth1", "wan", "203.0.113.1/24")
    router.ip_forward = 1
    add_host(network, "vpn", underlay="203.0.113.5/24", segment="wan")
    start_http_server(network, "vpn", 8080)
    client, vpn = (Session(network=network, hostname=name) for name in ("client", "vpn"))
    ok(vpn, "ip route add default via 203.0.113.1")
    ok(vpn, "ip link add wg0 type wireguard")
    ok(vpn, "wg genkey | wg set wg0 private-key /dev/stdin listen-port 51820")
    ok(client, "ip route add default via 192.168.50.1")
    for line in WG_QUICK_UP:
        if fwmark or line != "wg set wg0 fwmark 51820":
            ok(client, line)
    ok(client, "wg genkey | wg set wg0 private-key /dev/stdin")
    client_key = ok(client, "wg show wg0 public-key").strip()
    ok(client, f"wg set wg0 peer {ok(vpn, 'wg show wg0 public-key').strip()} "
               "allowed-ips 0.0.0.0/0 endpoint 203.0.113.5:51820")
    ok(vpn, f"wg set wg0 peer {client_key} allowed-ips 10.0.0.2/32")
    ok(vpn, "ip addr add 10.0.0.1/24 dev wg0")
    ok(vpn, "ip link set wg0 up")
    return client


def test_the_fwmark_keeps_the_tunnel_out_of_its_own_default_route():
    client = routed_lab(fwmark=True)
    trip = delivery.http_get(client.network, "client", "10.0.0.1", 8080, client.now(),
                             host_header="10.0.0.1:8080", max_time=2)
    assert trip.ok
    whats = [f"{hop.host}: {hop.what}" for hop in trip.hops]
    assert "router: forwards the datagram for 203.0.113.5 to eth1" in whats
    assert "router: forwards the datagram for 192.168.50.10 to eth0" in whats
    assert curl(client, "curl -s http://10.0.0.1:8080/") == (
        "vpn: request from 10.0.0.2\n", "", 0)
    peer = client.network.hosts["client"].wireguard.interfaces["wg0"].peers[0]
    assert peer.last_handshake > 0


def test_without_the_fwmark_the_tunnel_routes_into_itself():
    """Without `wg set wg0 fwmark 51820` the handshake matches `not fwmark 51820` too, is
    routed into wg0 and dropped (ELOOP); curl times out."""
    client = routed_lab(fwmark=False)
    trip = delivery.http_get(client.network, "client", "10.0.0.1", 8080, client.now(),
                             host_header="10.0.0.1:8080", max_time=2)
    assert trip.dropped is not None
    assert (trip.dropped.reason, trip.dropped.host) == (trace.ROUTING_LOOP, "client")
    assert "leads into wg0 itself" in trip.dropped.detail
    assert curl(client, "curl -sS --max-time 2 http://10.0.0.1:8080/") == (
        "", RECORDED_TIMEOUT.replace("10.99.0.2", "10.0.0.1"), 28)


def test_kernel_wireguard_enokey_fails_the_connection_at_once():
    client, _, _ = lab(client_allowed="10.0.0.1/32", masquerade=True)
    before = client.clock
    assert curl(client, "curl -sS --max-time 2 http://10.99.0.3:8080/") == (
        "", RECORDED_HOST_UNREACHABLE, 7)
    assert client.clock == before


def test_no_route_fails_at_once():
    _, _, web = lab()
    assert curl(web, "curl -sS --max-time 2 http://10.0.0.2:8080/") == (
        "", RECORDED_NO_ROUTE, 7)
    assert curl(web, "curl -s --max-time 2 http://10.0.0.2:8080/") == ("", "", 7)


def test_a_host_name_does_not_resolve():
    client, _, _ = lab()
    assert curl(client, "curl -sS --max-time 2 http://web:8080/") == ("", RECORDED_NO_HOST, 6)
    assert curl(client, "curl -s http://web:8080/") == ("", "", 6)


def test_the_server_sees_the_clients_own_address_without_nat():
    network = Network()
    add_host(network, "client")
    add_host(network, "server")
    start_http_server(network, "server", 80)
    client = Session(network=network, hostname="client")
    assert curl(client, "curl -s http://192.168.50.11/") == (
        "server: request from 192.168.50.10\n", "", 0)
    assert curl(client, "curl -s --max-time 1 http://192.168.50.11:80/index.html") == (
        "server: request from 192.168.50.10\n", "", 0)
    server = Session(network=network, hostname="server")
    assert curl(server, "curl -s http://127.0.0.1/") == ("server: request from 127.0.0.1\n",
                                                          "", 0)


def test_a_timeout_advances_the_clock_by_max_time():
    client, _, _ = lab()
    before = client.clock
    assert curl(client, "curl -sS -m 3 http://10.99.0.2:8080/") == (
        "", "curl: (28) Connection timed out after 3000 milliseconds\n", 28)
    assert client.clock == before + 3


def test_syn_retransmissions_within_max_time():
    assert [trace.syns_sent(t) for t in (0.5, 1, 2, 3, 4, 8, 100)] == [1, 1, 2, 2, 3, 4, 7]


def test_request_size_follows_the_host_header():
    # "GET / HTTP/1.1", "Host: 10.0.0.1:8080", "User-Agent: curl/7.88.1", "Accept: */*".
    assert trace.http_request_bytes("10.0.0.1:8080") == 77


def test_unmodelled_forms_say_so():
    client, _, _ = lab(masquerade=True)
    for line in ("curl http://10.99.0.2:8080/", "curl -s https://10.99.0.2:8080/",
                 "curl -s -X POST http://10.99.0.2:8080/", "curl -s"):
        stdout, stderr, status = curl(client, line)
        assert status == 2 and "is not simulated" in stderr, line
    _, stderr, status = curl(client, "curl -s http://10.99.0.2:8080/")
    assert (stderr, status) == ("", 0)
    # Nobody has 10.99.0.9: without --max-time curl would wait for the kernel.
    stdout, stderr, status = curl(client, "curl -s http://10.99.0.9:8080/")
    assert status == 2 and "--max-time" in stderr


def test_nothing_listening_on_the_hosts_own_address_is_refused():
    # Recorded in an empty network namespace with lo up.
    _, gateway, web = lab()
    assert curl(gateway, "curl -sS --max-time 2 http://127.0.0.1:8080/") == (
        "", "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect "
        "to server\n", 7)
    assert curl(gateway, "curl -s --max-time 2 http://127.0.0.1:8080/") == ("", "", 7)
    # web's own server, by its own address.
    assert curl(web, "curl -s http://10.99.0.2:8080/") == ("web: request from 10.99.0.2\n",
                                                            "", 0)
