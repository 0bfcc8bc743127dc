"""What happens to a ping or an HTTP request in a ``Network``, hop by hop, and why it is dropped.

``echo(network, host, address, now)`` (one ICMP echo) and ``http_get(network, host, address,
port, now, ...)`` (one TCP connection carrying a GET) are pure functions: they read the
network and return a ``Delivery`` -- the trace of hops, where and why the packet was dropped
if it was, the round trip time, and the changes the trip makes (handshakes, endpoints learned
by roaming, byte counters, NAT mappings). ``apply(network, delivery)`` writes those changes
into the network. Both are one request travelling to its destination and one answer
travelling back (``_round_trip``); they differ in the packets carried and in the answer.

The rules, with the Linux source they follow:

* Routing: an address of the host itself is delivered locally; otherwise the policy rules
  pick a table and its longest matching prefix the link (``model.route_for``). A packet of
  an application has fwmark 0; WireGuard's own UDP datagrams carry the interface's fwmark,
  which is what keeps wg-quick's 0.0.0.0/0 (table 51820, `not fwmark 51820`) from routing
  the tunnel into itself. A datagram whose route leads back into a WireGuard link is
  dropped (send4() in drivers/net/wireguard/socket.c: "Packet loop detected", ELOOP). No
  route: the sender's ping fails at connect() with ENETUNREACH, "Network is unreachable".
* Forwarding: a host that receives a packet for an address that is not its own forwards it
  only with net.ipv4.ip_forward=1 (ip_forward() in net/ipv4/ip_forward.c), decrementing TTL.
* MASQUERADE: a packet leaving by a link named in a POSTROUTING MASQUERADE rule gets that
  link's first address as its source, and the reply is rewritten back (conntrack).
* WireGuard, outbound (wg_xmit() in drivers/net/wireguard/device.c): the AllowedIPs lookup
  picks the peer; no peer -> dropped with ENOKEY, "Required key not available"; a peer
  with no endpoint -> EDESTADDRREQ, "Destination address required". For the sender's own
  packet, ping reports either as `ping: sendmsg: ...`, after the ICMP host unreachable
  wg_xmit() also sends ("From SRC icmp_seq=N Destination Host Unreachable"); a forwarded
  ICMP echo's source gets that ICMP error across the network, and its ping prints it
  ("+1 errors"). This is kernel WireGuard, as on the lab VM (the default).
* wireguard-go (``Network.wireguard_implementation`` "go") differs: it drops a packet no
  peer takes silently, keeps one for a peer without an endpoint staged and sends it once
  that peer has a session; its tun device sends ICMP redirects for what the host forwards
  back out of it (``_redirect``); it counts every decrypted packet as received; and the
  keepalive of a link whose key is set after it came up waits for the first packet
  (``settle``).
* A handshake is made when the peers have no session (none yet, older than
  REKEY_AFTER_TIME, 120 s, messages.h, or data unanswered for KEEPALIVE_TIMEOUT +
  REKEY_TIMEOUT; the model does not track which side initiated). The responder learns
  the initiator's endpoint from the packet's source (roaming, in wg_packet_receive() ->
  update_endpoint), and both sides record the handshake time: a receiver whose last
  handshake is older than the sender's (its interface was made anew) has lost the session
  and drops the data, uncounted and without learning anything from it.
* WireGuard, inbound (receive.c): a decrypted packet whose source address does not look up
  to the peer that sent it is dropped (``allowed_ips.allowed_source``); the kernel counts
  it as received only when it passed.
* TCP (an HTTP GET, for curl): the SYN travels like an echo request. A host with an HTTP
  server on the port answers SYN-ACK, and the rest of the connection takes the same paths;
  a host where nothing listens answers RST (curl: "Couldn't connect to server"). A SYN or
  SYN-ACK lost on the way is retransmitted at 1, 3, 7, ... s (TCP_TIMEOUT_INIT, doubling)
  until curl's --max-time; each retransmission crosses the same tunnels as the first.
  ``TCP_*`` and ``HTTP_*`` below are the packet sizes, recorded through wireguard-go as
  `wg show` transfer counters.
* The underlay: LAN segments, on which a host reaches another by its address directly.
  WireGuard's datagrams follow a route's gateway when a host of the network has that
  address (a router, which must forward), and leave a router under its MASQUERADE rule
  with the router's address as their source (the port kept); the router's conntrack
  takes the answers back to the host behind it for NAT_TIMEOUT seconds, and drops any
  other datagram. A host behind an implicit NAT (``Host.nat_address``, no router host)
  behaves the same way. Either way nobody can start a conversation with the host behind
  it: that is why a server cannot reach a client that has never sent anything, and why
  PersistentKeepalive helps (``settle``).
* What the model does not carry: the ICMP errors a forwarding host sends back for no
  route or an ARP failure, and kernel WireGuard's for a forwarded TCP segment, and ICMP
  rate limits other than the redirects': such a packet is lost silently, where the real
  sender would get "No route to host" or "Destination Host Unreachable" (after ARP's 3 s,
  for a neighbour that does not answer). Nor the packets kernel WireGuard stages for a
  peer whose handshake fails and sends once one succeeds.

Time: ``now`` is the session's clock (seconds since the epoch). Round trip times are the
model's fixed costs below, so ping prints the same times on every run.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from labsim.net import model
from labsim.net.model import Address, Host, IPv4, Network
from labsim.wg import allowed_ips as aips
from labsim.wg.device import (
    DeviceChange,
    Endpoint,
    Interface,
    Peer,
    PeerChange,
    apply_change,
    record_handshake,
    record_transfer,
    record_unanswered,
)

# The model's fixed costs, in milliseconds, one way.
LOOPBACK_MS = 0.020
LAN_MS = 0.150  # one packet across the LAN
WIREGUARD_MS = 0.100  # encrypting and decrypting one packet
HANDSHAKE_MS = 1.000  # a whole handshake: initiation and response across the LAN, and crypto

REKEY_AFTER_TIME = 120  # seconds: a session older than this is renewed (messages.h)
REKEY_TIMEOUT = 5  # seconds: a handshake unanswered this long is sent again (messages.h)
KEEPALIVE_TIMEOUT = 10  # seconds: data unanswered this long asks for a keepalive (messages.h)
REJECT_AFTER_TIME = 180  # seconds: a session older than this is no longer used (messages.h)
NAT_TIMEOUT = 120  # seconds a NAT keeps a UDP mapping (Linux conntrack's udp stream timeout)
DEFAULT_TTL = 64

# Sizes of WireGuard messages on the wire (UDP payload), as `wg show` counts transfer.
INITIATION_BYTES = 148
RESPONSE_BYTES = 92
KEEPALIVE_BYTES = 32  # a data message with nothing in it
ICMP_ECHO_BYTES = 84  # IP header + ICMP header + ping's 56 bytes
# An ICMP error (host unreachable, redirect): IP and ICMP headers, then as much of the packet
# it is about as fits in 576 bytes (__icmp_send() in net/ipv4/icmp.c): 112 for an echo.
ICMP_ERROR_HEADER_BYTES = 28
ICMP_ERROR_MAX_BYTES = 576
# The kernel's rate limit on ICMP redirects to one source (ip_rt_send_redirect() in
# net/ipv4/route.c, HZ/50 = 20 ms): the first at once, the next after 20 ms << the number
# sent, none after 9, and a fresh start after 20 ms << 10 of silence.
REDIRECT_LOAD = 0.020
REDIRECT_NUMBER = 9
REDIRECT_SILENCE = REDIRECT_LOAD * 2 ** 10
# Packets wireguard-go stages for one peer (QueueStagedSize, device/queueconstants_default.go).
STAGED_MAX = 128

# TCP packets, IP header included; Linux puts MSS, SACK-permitted, timestamps and window
# scale options on a SYN (20 bytes) and the timestamps option (12) on every later segment.
TCP_SYN_BYTES = 60
TCP_SEGMENT_BYTES = 52  # header of a segment after the handshake (ACK, FIN, data)
TCP_RST_BYTES = 40  # the reset a closed port answers a SYN with: no options
# What the lessons' HTTP server sends before its body: "HTTP/1.0 200 OK", Server
# ("BaseHTTP/0.6 Python/3.11.x"), Date and Content-Length headers, as Python's
# http.server.BaseHTTPRequestHandler writes them (one write; the body is a second one).
HTTP_RESPONSE_HEADER_BYTES = 112
# curl 7.88's request without the Host value: "GET / HTTP/1.1", "Host: ", "User-Agent:
# curl/7.88.1", "Accept: */*", each ended by CRLF, and the empty line.
HTTP_REQUEST_BASE_BYTES = 64
SYN_RETRANSMIT_AT = (1, 3, 7, 15, 31, 63)
"""Seconds after the first SYN at which Linux sends it again while no answer comes (initial
RTO 1 s, doubled each time; tcp_syn_retries = 6)."""


def http_body(server: str, client: IPv4) -> str:
    """What the lessons' HTTP server answers every GET with (``model.start_http_server``)."""
    return f"{server}: request from {client}\n"


def http_request_bytes(host_header: str) -> int:
    """curl's GET for ``http://HOST_HEADER/`` (Host is ADDR:PORT, or ADDR for port 80)."""
    return HTTP_REQUEST_BASE_BYTES + len(host_header)


def syns_sent(max_time: float) -> int:
    """How many SYNs a connection that is never answered sends before ``max_time``."""
    return 1 + sum(1 for at in SYN_RETRANSMIT_AT if at < max_time)


def icmp_error_bytes(about: int) -> int:
    """An ICMP error about an ``about``-byte packet."""
    return min(ICMP_ERROR_HEADER_BYTES + about, ICMP_ERROR_MAX_BYTES)


def data_bytes(inner: int) -> int:
    """A data message for an ``inner`` packet: 16 bytes of header, the packet padded to 16,
    and a 16-byte tag (message_data_len() in messages.h)."""
    return 16 + (inner + 15) // 16 * 16 + 16


# Why a packet was dropped.
NO_ROUTE = "no-route"
FORWARDING_DISABLED = "ip-forward-off"
TTL_EXCEEDED = "ttl-exceeded"
NO_LAN_HOST = "no-lan-host"
NAT_UNSOLICITED = "nat-unsolicited"
NO_KEY = "no-peer"  # ENOKEY
NO_ENDPOINT = "no-endpoint"  # EDESTADDRREQ
NO_PRIVATE_KEY = "no-private-key"
NOT_LISTENING = "port-closed"
ROUTING_LOOP = "routing-loop"  # ELOOP: a tunnel's datagram routed into a tunnel
HANDSHAKE_FAILED = "handshake-failed"
SOURCE_NOT_ALLOWED = "source-not-allowed"
NO_SESSION = "no-session"  # the receiver knows no session for the data's receiver index
STAGED = "staged"  # wireguard-go holds it until the peer can be reached
NO_SOURCE = "no-source"  # a sender with no address (not simulated: the model stops there)

ERRNO_TEXT = {
    NO_ROUTE: "Network is unreachable",
    NO_KEY: "Required key not available",
    NO_ENDPOINT: "Destination address required",
}

WHAT_ENDS_CURL = {
    NO_ROUTE: "connect() fails with ENETUNREACH",
    NO_KEY: "kernel WireGuard's ICMP host unreachable aborts the connection",
    NO_ENDPOINT: "kernel WireGuard's ICMP host unreachable aborts the connection",
}
"""The drops at the sending host that end a TCP connection at once; curl reports each as
"Couldn't connect to server" (7). Every other drop is silent, and curl times out."""


@dataclass(frozen=True)
class Hop:
    """One step of the trip: on ``host``, ``what`` happened (a sentence for the widget)."""

    host: str
    what: str


@dataclass(frozen=True)
class Drop:
    """Where and why the packet was lost. ``errno`` is the error text the sender's own
    sendmsg() (or connect()) gets, when the drop happens on the sending host before the
    packet leaves it; None when the packet is lost silently."""

    host: str
    link: str | None
    reason: str
    detail: str
    errno: str | None = None
    reply: bool = False  # lost on the way back
    # Kernel WireGuard also answers a packet it cannot send with an ICMP host unreachable
    # (icmp_ndo_send() in wg_xmit()); it comes from this address (the packet's own source
    # for the sender's own packet, the forwarding host's for a forwarded one, once it came
    # back), and ping prints "From ... Destination Host Unreachable".
    unreachable_from: IPv4 | None = None


@dataclass(frozen=True)
class PeerUpdate:
    host: str
    iface: str
    peer: bytes
    handshake: float | None = None
    endpoint: Endpoint | None = None
    rx: int = 0
    tx: int = 0
    unanswered_since: float | None = None  # None: unchanged (Peer.unanswered_since)


@dataclass(frozen=True)
class StagedPacket:
    """A packet wireguard-go holds in ``peer``'s staged queue on ``host``'s ``iface``:
    ``packet`` is None for a keepalive (a data message with nothing in it)."""

    host: str
    iface: str
    peer: bytes
    packet: Packet | None


@dataclass(frozen=True)
class Delivery:
    hops: tuple[Hop, ...]
    dropped: Drop | None
    rtt_ms: float | None = None
    reply_ttl: int | None = None
    reply_from: IPv4 | None = None
    updates: tuple[PeerUpdate, ...] = ()
    nat_mappings: tuple[tuple[tuple[str, int, Address, int], float], ...] = ()
    masquerade_mappings: tuple[tuple[tuple[str, int, Address, int], tuple[IPv4, float]], ...] = ()
    # TCP (http_get): the host that answered and the source address it saw (after any
    # NAT), and whether it answered with a reset (nothing listens on the port).
    server: str | None = None
    seen_source: IPv4 | None = None
    refused: bool = False
    # When the trip was made, the ICMP redirects it sent (``Network.redirects``) and the
    # packets wireguard-go staged on the way.
    at: float = 0.0
    redirects: tuple[tuple[tuple[str, IPv4], tuple[int, float]], ...] = ()
    staged: tuple[StagedPacket, ...] = ()

    @property
    def ok(self) -> bool:
        return self.dropped is None


@dataclass(frozen=True)
class Packet:
    """One packet, or a run of packets that take the same path (``sizes``, each counted
    separately by WireGuard): an ICMP echo, or the packets of one side of a TCP connection
    (``port``, the server's port)."""

    src: IPv4 | None  # None until the sender picks it, at its first route (``_travel``)
    dst: IPv4
    ttl: int = DEFAULT_TTL
    reply: bool = False
    sizes: tuple[int, ...] = (ICMP_ECHO_BYTES,)
    port: int | None = None

    def source(self) -> IPv4:
        """``src`` of a packet that has left its sender (``_travel`` picks it there)."""
        if self.src is None:  # pragma: no cover - a fault of the model, not of the network
            raise ValueError(f"a packet to {self.dst} that has not been sent has no source")
        return self.src


@dataclass
class _Walk:
    """The state of one trip: the network as read, plus what the trip has changed so far."""

    network: Network
    now: float
    hops: list[Hop] = field(default_factory=list)
    elapsed: float = 0.0
    handshakes: dict[tuple[str, str, bytes], float] = field(default_factory=dict)
    endpoints: dict[tuple[str, str, bytes], Endpoint] = field(default_factory=dict)
    transfer: dict[tuple[str, str, bytes], list[int]] = field(default_factory=dict)
    mappings: dict[tuple[str, int, Address, int], float] = field(default_factory=dict)
    masquerades: dict[tuple[str, int, Address, int], tuple[IPv4, float]] = field(
        default_factory=dict)
    conntrack: dict[tuple[str, IPv4], IPv4] = field(default_factory=dict)
    # Every tunnel crossing of the trip: whether it was the answer, the sending and the
    # receiving (host, interface, peer key), and whether the receiver counts what it gets
    # (see _through_wireguard). More packets along the same paths count there.
    crossings: list[tuple[bool, tuple[str, str, bytes], tuple[str, str, bytes], bool]] = field(
        default_factory=list)
    unanswered: dict[tuple[str, str, bytes], float] = field(default_factory=dict)
    redirects: dict[tuple[str, IPv4], tuple[int, float]] = field(default_factory=dict)
    staged: list[StagedPacket] = field(default_factory=list)
    # Packets the trip makes on the side, sent once it is over: (the host that sends it,
    # the packet, whether it is the ICMP error that tells the trip's sender why its packet
    # was lost).
    side: list[tuple[str, Packet, bool]] = field(default_factory=list)

    @property
    def go(self) -> bool:
        return self.network.wireguard_implementation == "go"

    def side_walk(self) -> _Walk:
        """A walk for a packet made on the side: the same changes, its own path (so that
        ``carry`` does not count more packets along it) and its own hops (the trip's end
        where it ended)."""
        return _Walk(self.network, self.now, handshakes=self.handshakes,
                     endpoints=self.endpoints, transfer=self.transfer, mappings=self.mappings,
                     masquerades=self.masquerades, conntrack=self.conntrack,
                     unanswered=self.unanswered,
                     redirects=self.redirects, staged=self.staged)

    def unanswered_since(self, host: str, iface: str, peer: Peer) -> float:
        return self.unanswered.get((host, iface, peer.public_key), peer.unanswered_since)

    def hop(self, host: str, what: str) -> None:
        self.hops.append(Hop(host, what))

    def last_handshake(self, host: str, iface: str, peer: Peer) -> float:
        return self.handshakes.get((host, iface, peer.public_key), peer.last_handshake)

    def endpoint(self, host: str, iface: str, peer: Peer) -> Endpoint | None:
        return self.endpoints.get((host, iface, peer.public_key), peer.endpoint)

    def count(self, host: str, iface: str, peer: bytes, rx: int = 0, tx: int = 0) -> None:
        entry = self.transfer.setdefault((host, iface, peer), [0, 0])
        entry[0] += rx
        entry[1] += tx

    def carry(self, request: tuple[int, ...], answer: tuple[int, ...]) -> None:
        """More packets along the paths the trip took: ``request`` the way out and
        ``answer`` the way back, through every tunnel each crossed."""
        for reply, (host, iface, peer), (to_host, to_iface, to_peer), counted in list(
                self.crossings):
            size = sum(data_bytes(s) for s in (answer if reply else request))
            self.count(host, iface, peer, tx=size)
            if counted:
                self.count(to_host, to_iface, to_peer, rx=size)

    def masqueraded(self, key: tuple[str, int, Address, int]) -> IPv4 | None:
        """The address behind a MASQUERADE router that a UDP datagram to the router's
        port answers, while the mapping is fresh."""
        found = self.masquerades.get(key, self.network.masquerade_mappings.get(key))
        if found is None or self.now - found[1] >= NAT_TIMEOUT:
            return None
        return found[0]

    def delivery(self, dropped: Drop | None, **fields) -> Delivery:
        """The trip as a Delivery: its hops, the drop, and the changes it made."""
        return Delivery(tuple(self.hops), dropped, updates=self.updates(),
                        nat_mappings=tuple(self.mappings.items()),
                        masquerade_mappings=tuple(self.masquerades.items()), at=self.now,
                        redirects=tuple(self.redirects.items()), staged=tuple(self.staged),
                        **fields)

    def mapped(self, key: tuple[str, int, Address, int]) -> bool:
        when = self.mappings.get(key, self.network.nat_mappings.get(key))
        return when is not None and self.now - when < NAT_TIMEOUT

    def updates(self) -> tuple[PeerUpdate, ...]:
        keys = list(dict.fromkeys([*self.handshakes, *self.endpoints, *self.transfer,
                                   *self.unanswered]))
        out = []
        for key in keys:
            rx, tx = self.transfer.get(key, [0, 0])
            out.append(PeerUpdate(*key, self.handshakes.get(key), self.endpoints.get(key),
                                  rx, tx, self.unanswered.get(key)))
        return tuple(out)


class _Dropped(Exception):
    def __init__(self, drop: Drop):
        self.drop = drop


def _round_trip(walk: _Walk, host: str, request: Packet,
                answer: Callable[[Host, Packet], Packet]) -> tuple[Host, Packet, Packet]:
    """``request`` from ``host`` to its destination, and the packet ``answer`` makes of it
    there back to ``host``: the host that answered, the request as it arrived and the
    answer as it came back."""
    there, arrived = _travel(walk, walk.network.hosts[host], request, origin=True)
    back, answered = _travel(walk, there, answer(there, arrived), origin=True)
    if back.name != host:  # pragma: no cover - the answer is addressed to the sender
        raise _Dropped(Drop(back.name, None, NO_ROUTE, "answer reached the wrong host",
                            reply=True))
    return there, arrived, answered


def _lost(walk: _Walk, err: _Dropped) -> Delivery:
    return walk.delivery(err.drop)


def echo(network: Network, host: str, address: IPv4 | str, now: float) -> Delivery:
    """Send one ICMP echo request from ``host`` to ``address`` and follow it and its reply."""
    walk = _Walk(network, now)

    def echo_reply(there: Host, request: Packet) -> Packet:
        walk.hop(there.name, f"echo request from {request.src} answered")
        return Packet(request.dst, request.source(), reply=True)

    try:
        _, _, answer = _round_trip(walk, host, Packet(None, ipaddress.IPv4Address(address)),
                                   echo_reply)
        walk.hop(host, f"echo reply from {answer.src} received, ttl={answer.ttl}")
    except _Dropped as err:
        warned = _send_side(walk, host)
        if warned is not None and err.drop.unreachable_from is None:
            # A forwarding host's ICMP host unreachable: ping prints it, and counts an error.
            err = _Dropped(replace(err.drop, unreachable_from=warned))
        return _lost(walk, err)
    rtt = round(walk.elapsed, 3)
    _send_side(walk, host)
    return walk.delivery(None, rtt_ms=rtt, reply_ttl=answer.ttl, reply_from=answer.src)


def http_get(network: Network, host: str, address: IPv4 | str, port: int, now: float,
             host_header: str, max_time: float = 0.0) -> Delivery:
    """One TCP connection from ``host`` to ``address``:``port`` carrying a GET, as curl
    makes it: the SYN and the server's SYN-ACK (or RST), then, when it connected, the
    request, the response and the closing packets along the same paths. ``max_time``: how
    long the client keeps retransmitting an unanswered SYN (it only changes byte counters).
    ``ok`` means a response came back: ``server`` and ``seen_source`` say who answered and
    what client address it saw; ``refused`` that a reset came back."""
    walk = _Walk(network, now)
    target = ipaddress.IPv4Address(address)

    def accept(there: Host, syn: Packet) -> Packet:
        if port in there.http_ports:
            walk.hop(there.name, f"TCP port {port}: the HTTP server accepts the connection "
                                 f"from {syn.src}")
            return Packet(syn.dst, syn.source(), reply=True, sizes=(TCP_SYN_BYTES,), port=port)
        walk.hop(there.name, f"nothing listens on TCP port {port}: answered with a reset")
        return Packet(syn.dst, syn.source(), reply=True, sizes=(TCP_RST_BYTES,), port=port)

    syn = Packet(None, target, sizes=(TCP_SYN_BYTES,), port=port)
    try:
        there, arrived, _ = _round_trip(walk, host, syn, accept)
    except _Dropped as err:
        _send_side(walk, host)
        if err.drop.errno is None:
            # Silent: the SYN is sent again until curl gives up, along the same paths.
            for _ in range(syns_sent(max_time) - 1):
                walk.carry((TCP_SYN_BYTES,), (TCP_SYN_BYTES,))
        return _lost(walk, err)
    rtt = round(walk.elapsed, 3)
    _send_side(walk, host)
    if port not in there.http_ports:
        walk.hop(host, f"reset from {target}:{port}: connection refused")
        return walk.delivery(None, rtt_ms=rtt, server=there.name, seen_source=arrived.src,
                             refused=True)
    body = http_body(there.name, arrived.source())
    walk.carry((TCP_SEGMENT_BYTES,  # the ACK that completes the handshake
                TCP_SEGMENT_BYTES + http_request_bytes(host_header),
                TCP_SEGMENT_BYTES,  # the ACK of the response's headers
                TCP_SEGMENT_BYTES),  # FIN, also acknowledging the server's body and FIN
               (TCP_SEGMENT_BYTES,  # the ACK of the request
                TCP_SEGMENT_BYTES + HTTP_RESPONSE_HEADER_BYTES,
                TCP_SEGMENT_BYTES + len(body.encode()),  # the body, with the server's FIN
                TCP_SEGMENT_BYTES))  # the ACK of the client's FIN
    walk.hop(host, f"connected; GET answered by {there.name}: {body.strip()}")
    return walk.delivery(None, rtt_ms=rtt, server=there.name, seen_source=arrived.src)


def apply(network: Network, delivery: Delivery) -> None:
    """Write what a trip changed into the network (and each host's WireGuard model), then
    send what wireguard-go staged for a peer that can be reached now."""
    for update in delivery.updates:
        wireguard = network.hosts[update.host].wireguard
        if update.iface not in wireguard.interfaces:
            continue
        if wireguard.interfaces[update.iface].peer(update.peer) is None:
            continue
        if update.endpoint is not None:
            apply_change(wireguard, update.iface, DeviceChange(
                peers=(PeerChange(update.peer, endpoint=update.endpoint),)))
        if update.handshake is not None:
            record_handshake(wireguard, update.iface, update.peer, update.handshake)
        if update.rx or update.tx:
            record_transfer(wireguard, update.iface, update.peer, rx=update.rx, tx=update.tx)
        if update.unanswered_since is not None:
            record_unanswered(wireguard, update.iface, update.peer, update.unanswered_since)
    network.nat_mappings.update(dict(delivery.nat_mappings))
    network.masquerade_mappings.update(dict(delivery.masquerade_mappings))
    network.redirects.update(dict(delivery.redirects))
    network.staged.extend(delivery.staged)
    _send_staged(network, delivery.at)


def _send_staged(network: Network, now: float) -> None:
    """wireguard-go sends a peer's staged packets as soon as it has a session with it
    (SendStagedPackets(): after the handshake it initiated, or on the first data under one
    it answered, device/receive.go): each goes on its way now (a ping's echo request gets
    its reply, long after ping gave up)."""
    ready = [s for s in network.staged if _can_send(network, s, now)]
    if not ready:
        return
    network.staged[:] = [s for s in network.staged if s not in ready]
    for staged in ready:
        walk = _Walk(network, now)
        host = network.hosts[staged.host]
        try:
            if staged.packet is None:
                _keepalive(walk, host, host.wireguard.interfaces[staged.iface], staged.peer)
            else:
                target, arrived, link = _through_wireguard(walk, host, staged.iface,
                                                           staged.packet, origin=False)
                there, arrived = _travel(walk, target, arrived, origin=False, came_in=link)
                if arrived.port is None and not arrived.reply:
                    walk.hop(there.name, f"echo request from {arrived.src} answered")
                    _travel(walk, there, Packet(arrived.dst, arrived.source(), reply=True),
                            origin=True)
        except _Dropped:
            pass
        _send_side(walk, staged.host)
        apply(network, walk.delivery(None))


def _can_send(network: Network, staged: StagedPacket, now: float) -> bool:
    iface = network.hosts[staged.host].wireguard.interfaces.get(staged.iface)
    peer = iface.peer(staged.peer) if iface is not None else None
    return (iface is not None and peer is not None and iface.up and peer.endpoint is not None
            and peer.last_handshake > 0 and now - peer.last_handshake < REKEY_AFTER_TIME)


def _keepalive(walk: _Walk, host: Host, iface: Interface, key: bytes) -> None:
    """One keepalive to the peer ``key``, counted at both ends."""
    peer = iface.peer(key)
    endpoint = walk.endpoint(host.name, iface.name, peer) if peer is not None else None
    if peer is None or endpoint is None:
        return
    target, remote, _seen = _udp(walk, host, iface, endpoint)
    theirs = remote.peer(iface.public_key) if iface.public_key else None
    walk.count(host.name, iface.name, key, tx=KEEPALIVE_BYTES)
    if theirs is not None:
        walk.count(target.name, remote.name, theirs.public_key, rx=KEEPALIVE_BYTES)


def settle(network: Network, now: float,
           brought_up: tuple[str, str] | None = None) -> list[Delivery]:
    """Run PersistentKeepalive: every up interface's peer with a keepalive interval and an
    endpoint handshakes now if it has no fresh session; with a fresh session, the
    keepalives keep its NAT mapping open. ``brought_up``: (host, interface) that `ip link
    set up` has just brought up. Returns the handshakes made, applied.

    When the first keepalive goes differs. The kernel sends one when the interface comes up
    and when the private key or the interval is set (wg_open(), set_device() and set_peer()
    in drivers/net/wireguard/netlink.c), and one without a session starts a handshake; so a
    key PostUp sets after `ip link set up` still gets it out. wireguard-go sends it only
    when the interface comes up (upLocked() in device/device.go: SendKeepalive()), and its
    timer starts with the first packet that gets through: with no private key then, the
    keepalive stays staged and the handshake it asks for carries the identity of an
    all-zero key (CreateMessageInitiation() in device/noise-protocol.go does not check),
    which the peer cannot authenticate and drops uncounted; only the sender counts its 148
    bytes."""
    made = []
    go = network.wireguard_implementation == "go"
    for host in network.hosts.values():
        for iface in list(host.wireguard.interfaces.values()):
            if not iface.up:
                continue
            came_up = brought_up == (host.name, iface.name)
            for peer in iface.peers:
                if not peer.persistent_keepalive or peer.endpoint is None:
                    continue
                walk = _Walk(network, now)
                if go and came_up and iface.private_key is None:
                    _unusable_initiation(walk, host, iface, peer)
                    apply(network, walk.delivery(None))
                    continue
                if iface.private_key is None or (go and not came_up
                                                 and not peer.last_handshake):
                    continue
                if _fresh(walk, host.name, iface, peer):
                    _refresh_mapping(walk, host, iface, peer.endpoint)
                    apply(network, walk.delivery(None))
                    continue
                try:
                    target, remote, theirs = _handshake(walk, host, iface, peer, peer.endpoint)
                    # The keepalive that started it follows, and confirms the session.
                    walk.count(host.name, iface.name, peer.public_key, tx=KEEPALIVE_BYTES)
                    walk.count(target.name, remote.name, theirs.public_key, rx=KEEPALIVE_BYTES)
                    dropped = None
                except _Dropped as err:
                    dropped = err.drop
                delivery = walk.delivery(dropped)
                apply(network, delivery)
                made.append(delivery)
    return made


def _unusable_initiation(walk: _Walk, host: Host, iface: Interface, peer: Peer) -> None:
    """wireguard-go's keepalive at link up without a private key (see ``settle``): the
    keepalive is staged, and a handshake initiation the peer cannot authenticate goes out
    (it opens the NAT mappings on its way)."""
    if not any((s.host, s.iface, s.peer) == (host.name, iface.name, peer.public_key)
               for s in walk.network.staged):
        _stage(walk, host.name, iface.name, peer.public_key, None)
    walk.hop(host.name, f"{iface.name}: no private key: a handshake initiation that "
                        f"{peer.name[:8]}... cannot authenticate")
    if peer.endpoint is None:  # no endpoint, no initiation
        return
    try:
        target, _remote, _seen = _udp(walk, host, iface, peer.endpoint)
    except _Dropped:
        return
    walk.count(host.name, iface.name, peer.public_key, tx=INITIATION_BYTES)
    walk.hop(target.name, "the initiation does not authenticate: dropped, not counted")


def _fresh(walk: _Walk, host: str, iface: Interface, peer: Peer) -> bool:
    """Whether data to ``peer`` goes under the session there is: it is younger than
    REKEY_AFTER_TIME, and no data has gone unanswered for KEEPALIVE_TIMEOUT +
    REKEY_TIMEOUT (then the new_handshake timer has made a new one, timers.c)."""
    last = walk.last_handshake(host, iface.name, peer)
    unanswered = walk.unanswered_since(host, iface.name, peer)
    if unanswered and walk.now - unanswered >= KEEPALIVE_TIMEOUT + REKEY_TIMEOUT:
        return False
    return last > 0 and walk.now - last < REKEY_AFTER_TIME


def _refresh_mapping(walk: _Walk, host: Host, iface: Interface, endpoint: Endpoint) -> None:
    """A keepalive's way to the endpoint, for the NAT mappings it renews (its bytes are
    not counted: the model does not tick keepalives one by one)."""
    if host.nat_address is not None:
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now
    with contextlib.suppress(_Dropped):
        _udp(walk, host, iface, endpoint)


def _travel(walk: _Walk, host: Host, packet: Packet, origin: bool,
            came_in: str | None = None) -> tuple[Host, Packet]:
    """Carry ``packet`` from ``host`` (which sends it when ``origin``, or has just received
    it on link ``came_in``) to the host that accepts it; raises _Dropped when it is lost."""
    while True:
        if not origin:
            packet = _undo_masquerade(walk, host, packet)
        if model.is_local(host, packet.dst):
            if origin:
                walk.elapsed += LOOPBACK_MS
                packet = replace(packet, src=packet.src or packet.dst)
                walk.hop(host.name, f"{packet.dst} is its own address: delivered by lo")
            else:
                walk.hop(host.name, f"{packet.dst} is its own address: delivered")
            return host, packet
        route = model.route_for(host, packet.dst)
        if route is None:
            raise _Dropped(Drop(host.name, None, NO_ROUTE, f"no route to {packet.dst}",
                                ERRNO_TEXT[NO_ROUTE] if origin and not packet.reply else None,
                                packet.reply))
        if origin:
            if packet.src is None:
                source = model.source_for(host, route)
                if source is None:
                    raise _Dropped(Drop(host.name, route.dev, NO_SOURCE,
                                        f"{host.name} has no address but lo's to send from: "
                                        "not simulated"))
                packet = replace(packet, src=source)
            walk.hop(host.name, f"route {route.prefix} dev {route.dev}: {packet.src} -> "
                                f"{packet.dst} leaves by {route.dev}")
        else:
            if not host.ip_forward:
                raise _Dropped(Drop(host.name, None, FORWARDING_DISABLED,
                                    f"{packet.dst} is not its address and "
                                    "net.ipv4.ip_forward = 0: not forwarded",
                                    reply=packet.reply))
            if packet.ttl <= 1:
                raise _Dropped(Drop(host.name, None, TTL_EXCEEDED, "TTL reached 0",
                                    reply=packet.reply))
            packet = replace(packet, ttl=packet.ttl - 1)
            walk.hop(host.name, f"forwarded to {route.dev} (route {route.prefix})")
            if route.dev == came_in and walk.go and model.is_wireguard(host, route.dev):
                _redirect(walk, host, route.dev, packet)
        if route.dev in model.masquerade_links(host):
            packet = _masquerade(walk, host, route.dev, packet)
        if model.is_wireguard(host, route.dev):
            host, packet, came_in = _through_wireguard(walk, host, route.dev, packet, origin)
        elif route.dev == "lo":
            walk.hop(host.name, "looped back")
            return host, packet
        else:
            host, packet = _across_lan(walk, host, route.dev, route.via or packet.dst, packet)
            came_in = None  # the model sends redirects only on WireGuard links
        origin = False


def _redirect(walk: _Walk, host: Host, dev: str, packet: Packet) -> None:
    """A host that forwards a packet out of the link it came in on tells the sender, with
    an ICMP redirect, that it could send to the next hop directly (ip_forward() in
    net/ipv4/ip_forward.c: IPSKB_DOREDIRECT, set by __mkroute_input() when the output
    device is the input device and send_redirects is on), as often as ip_rt_send_redirect()
    allows. Only over wireguard-go: kernel WireGuard turns send_redirects off for its
    device and for all (wg_open() in drivers/net/wireguard/device.c); the tun device
    wireguard-go uses keeps the default, 1. The model does it for the first packet of a
    trip only (not for the further TCP packets ``carry`` counts)."""
    key = (host.name, packet.source())
    sent, last = walk.redirects.get(key, walk.network.redirects.get(key, (0, 0.0)))
    if walk.now > last + REDIRECT_SILENCE:
        sent = 0
    if sent >= REDIRECT_NUMBER:
        walk.redirects[key] = (sent, walk.now)
        return
    if sent and walk.now <= last + REDIRECT_LOAD * 2 ** sent:
        return
    walk.redirects[key] = (sent + 1, walk.now)
    walk.hop(host.name, f"{dev}: forwarded out of the link it came in on: ICMP redirect "
                        f"sent to {packet.src}")
    error = Packet(None, packet.source(), reply=True,
                   sizes=(icmp_error_bytes(packet.sizes[0]),))
    walk.side.append((host.name, error, False))


def _send_side(walk: _Walk, origin: str) -> IPv4 | None:
    """Send the packets the trip made on the side (ICMP errors), each along its own path;
    the source of the ICMP error that reached the trip's sender ``origin`` about its own
    packet, if one did."""
    warned = None
    for _ in range(DEFAULT_TTL):
        if not walk.side:
            break
        pending, walk.side = walk.side, []
        for sender, packet, warns in pending:
            side = walk.side_walk()
            try:
                there, arrived = _travel(side, walk.network.hosts[sender], packet, origin=True)
            except _Dropped:
                continue
            finally:
                walk.side.extend(side.side)
            if warns and there.name == origin:
                warned = arrived.src
    return warned


def _masquerade(walk: _Walk, host: Host, dev: str, packet: Packet) -> Packet:
    # The new source is the link's address for the destination, as inet_select_addr() picks
    # it (nf_nat_masquerade.c): one in the destination's subnet, else the link's first.
    mine = [a for d, a in host.addresses if d == dev]
    new = next((a.ip for a in mine if packet.dst in a.network),
               mine[0].ip if mine else None)
    if new is None or new == packet.src:
        return packet
    walk.conntrack[(host.name, new)] = packet.source()
    walk.hop(host.name, f"MASQUERADE on {dev}: source {packet.src} becomes {new}")
    return replace(packet, src=new)


def _undo_masquerade(walk: _Walk, host: Host, packet: Packet) -> Packet:
    original = walk.conntrack.get((host.name, packet.dst))
    if original is None or not packet.reply:
        return packet
    walk.hop(host.name, f"conntrack: destination {packet.dst} back to {original}")
    return replace(packet, dst=original)


def _across_lan(walk: _Walk, host: Host, dev: str, next_hop: IPv4,
                packet: Packet) -> tuple[Host, Packet]:
    """A plain IP packet from ``host``'s link ``dev`` to the host that has ``next_hop``."""
    segment = host.links[dev].segment
    if host.nat_address is not None and dev == "eth0":
        walk.mappings[(host.name, 0, packet.dst, 0)] = walk.now
        walk.hop(host.name, f"its NAT sends it on from {host.nat_address}")
        packet = replace(packet, src=host.nat_address)
    target, link = _lan_owner(walk, segment, next_hop, packet.src, 0)
    walk.elapsed += LAN_MS
    if target.nat_address == next_hop and packet.dst == next_hop:
        walk.hop(target.name, f"its NAT passes the answer to {target.underlay()}")
        packet = replace(packet, dst=target.underlay())
    walk.hop(target.name, f"received on {link} from {host.name}")
    return target, packet


def _lan_owner(walk: _Walk, segment: str, address: IPv4, source: IPv4 | None,
               port: int) -> tuple[Host, str]:
    """The host, and its link, that gets a packet sent on LAN ``segment`` to ``address``;
    a host behind a NAT only for an answer to what it sent (port 0: not UDP)."""
    for host in walk.network.hosts.values():
        if segment == "lan" and host.nat_address == address:
            if source is not None and walk.mapped((host.name, port, source, port)):
                return host, "eth0"
            raise _Dropped(Drop(host.name, "eth0", NAT_UNSOLICITED,
                                f"the NAT in front of {host.name} drops a packet from "
                                f"{source} that answers nothing {host.name} sent"))
        for dev, mine in host.addresses:
            link = host.links.get(dev)
            if (link is None or link.kind != "ether" or link.segment != segment
                    or not link.up or mine.ip != address):
                continue
            if dev == "eth0" and host.nat_address is not None:
                continue  # a private address behind a NAT, not on the LAN
            return host, dev
    raise _Dropped(Drop("(LAN)", None, NO_LAN_HOST,
                        f"no host on LAN {segment} has {address}: nobody answers ARP"))


def _udp(walk: _Walk, host: Host, iface: Interface,
         endpoint: Endpoint) -> tuple[Host, Interface, Endpoint]:
    """A WireGuard UDP datagram from ``host``'s ``iface`` to ``endpoint``: the host and
    interface that receive it, and the source they see it come from."""
    address = endpoint.address
    if not isinstance(address, IPv4):
        # wg accepts an IPv6 endpoint, but labsim's networks have no IPv6 routes.
        raise _Dropped(Drop(host.name, iface.name, NO_ROUTE,
                            f"no underlay route to the endpoint {address} (IPv6 is not "
                            "simulated)"))
    # The datagram carries the interface's fwmark: the rules route it by that mark.
    route = model.route_for(host, address, iface.fwmark)
    if route is not None and model.is_wireguard(host, route.dev):
        raise _Dropped(Drop(host.name, iface.name, ROUTING_LOOP,
                            f"the route to the endpoint {endpoint.address} leads into "
                            f"{route.dev} itself: packet loop (ELOOP), dropped"))
    if route is None or route.dev not in host.links or route.dev == "lo":
        raise _Dropped(Drop(host.name, iface.name, NO_ROUTE,
                            f"no underlay route to the endpoint {endpoint.address}"))
    if host.nat_address is not None and route.dev == "eth0":
        # A port-preserving NAT: the datagram leaves from the same port.
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now
        seen = Endpoint(host.nat_address, iface.listen_port)
    else:
        source = model.source_for(host, route)
        if source is None:
            raise _Dropped(Drop(host.name, iface.name, NO_SOURCE,
                                f"{host.name} has no address but lo's to send from: "
                                "not simulated"))
        seen = Endpoint(source, iface.listen_port)
    segment = host.links[route.dev].segment
    for _ in range(DEFAULT_TTL):
        if route.via is None or route.via == endpoint.address:
            break
        # A gateway on the way (a router between the LAN and the endpoint) forwards it.
        # One that is no host of the network stands for the flat LAN's own way out (a
        # host's NAT router): the datagram goes straight to the endpoint, as before.
        try:
            router = _lan_owner(walk, segment, route.via, None, 0)[0]
        except _Dropped:
            break
        walk.elapsed += LAN_MS
        if not router.ip_forward:
            raise _Dropped(Drop(router.name, None, FORWARDING_DISABLED,
                                f"{endpoint.address} is not its address and "
                                "net.ipv4.ip_forward = 0: not forwarded"))
        route = model.route_for(router, address)
        if route is None or route.dev not in router.links or route.dev == "lo":
            raise _Dropped(Drop(router.name, None, NO_ROUTE,
                                f"no route to the endpoint {endpoint.address}"))
        walk.hop(router.name, f"forwards the datagram for {endpoint.address} to {route.dev}")
        if route.dev in model.masquerade_links(router):
            seen = _masquerade_udp(walk, router, route.dev, seen, endpoint)
        segment = router.links[route.dev].segment
    target = _lan_owner_udp(walk, segment, address, endpoint.port, seen)
    for _ in range(DEFAULT_TTL):
        # An answer to a datagram a MASQUERADE router sent on: conntrack gives it back to
        # the host behind the router that sent it.
        inner = walk.masqueraded((target.name, endpoint.port, seen.address, seen.port))
        if inner is None:
            break
        route = model.route_for(target, inner)
        if route is None or route.dev not in target.links or route.dev == "lo":
            raise _Dropped(Drop(target.name, None, NO_ROUTE, f"no route to {inner}"))
        walk.hop(target.name, f"conntrack: destination {endpoint.address}:{endpoint.port} "
                              f"back to {inner}:{endpoint.port}")
        endpoint = Endpoint(inner, endpoint.port)
        target = _lan_owner(walk, target.links[route.dev].segment, inner, None, 0)[0]
        walk.elapsed += LAN_MS
    listening = next((i for i in target.wireguard.interfaces.values()
                      if i.up and i.listen_port == endpoint.port), None)
    if listening is None and model.masquerade_links(target):
        raise _Dropped(Drop(target.name, None, NAT_UNSOLICITED,
                            f"{target.name} masquerades, and a datagram from {seen.address}:"
                            f"{seen.port} to its port {endpoint.port} answers nothing sent "
                            "through it: dropped"))
    if listening is None:
        raise _Dropped(Drop(target.name, "eth0", NOT_LISTENING,
                            f"nothing listens on UDP port {endpoint.port}"))
    walk.elapsed += LAN_MS
    return target, listening, seen


def _masquerade_udp(walk: _Walk, router: Host, dev: str, seen: Endpoint,
                    endpoint: Endpoint) -> Endpoint:
    """A WireGuard datagram leaving ``router`` by ``dev`` under MASQUERADE: its source
    becomes the link's address, the port kept (nf_nat keeps a free source port), and the
    mapping lets the answers back in (``_Walk.masqueraded``)."""
    mine = [a for d, a in router.addresses if d == dev]
    public = next((a.ip for a in mine if endpoint.address in a.network),
                  mine[0].ip if mine else None)
    if public is None or public == seen.address:
        return seen
    walk.masquerades[(router.name, seen.port, endpoint.address, endpoint.port)] = (
        IPv4(str(seen.address)), walk.now)
    walk.hop(router.name, f"MASQUERADE on {dev}: source {seen.address}:{seen.port} becomes "
                          f"{public}:{seen.port}")
    return Endpoint(public, seen.port)


def _lan_owner_udp(walk: _Walk, segment: str, address: IPv4, port: int,
                   seen: Endpoint) -> Host:
    for host in walk.network.hosts.values():
        if segment == "lan" and host.nat_address == address:
            if walk.mapped((host.name, port, seen.address, seen.port)):
                return host
            raise _Dropped(Drop(host.name, "eth0", NAT_UNSOLICITED,
                                f"the NAT in front of {host.name} drops a datagram from "
                                f"{seen.address}:{seen.port} that answers nothing "
                                f"{host.name} sent there"))
    return _lan_owner(walk, segment, address, None, port)[0]


def _handshake(walk: _Walk, host: Host, iface: Interface, peer: Peer,
               endpoint: Endpoint) -> tuple[Host, Interface, Peer]:
    """Initiation from ``host`` to ``peer`` at ``endpoint``, and the response; returns the
    responder, its interface and its peer for ``host``."""
    if iface.private_key is None:
        raise _Dropped(Drop(host.name, iface.name, NO_PRIVATE_KEY,
                            f"{iface.name} has no private key: no handshake can be made"))
    walk.hop(host.name, f"{iface.name}: no session with peer {peer.name[:8]}..., "
                        f"handshake initiation to {endpoint.address}:{endpoint.port}")
    target, remote, seen = _udp(walk, host, iface, endpoint)
    walk.count(host.name, iface.name, peer.public_key, tx=INITIATION_BYTES)
    theirs = remote.peer(iface.public_key) if iface.public_key else None
    if remote.private_key is None or remote.public_key != peer.public_key or theirs is None:
        raise _Dropped(Drop(target.name, remote.name, HANDSHAKE_FAILED,
                            f"{target.name}'s {remote.name} cannot answer: it is not the peer "
                            f"{peer.name[:8]}... or has no peer with {host.name}'s key"))
    if theirs.preshared_key != peer.preshared_key:
        raise _Dropped(Drop(host.name, iface.name, HANDSHAKE_FAILED,
                            "the preshared keys differ: the response does not authenticate"))
    walk.count(target.name, remote.name, theirs.public_key, rx=INITIATION_BYTES,
               tx=RESPONSE_BYTES)
    walk.count(host.name, iface.name, peer.public_key, rx=RESPONSE_BYTES)
    walk.endpoints[(target.name, remote.name, theirs.public_key)] = seen
    walk.handshakes[(host.name, iface.name, peer.public_key)] = walk.now
    walk.handshakes[(target.name, remote.name, theirs.public_key)] = walk.now
    for side in ((host.name, iface.name, peer), (target.name, remote.name, theirs)):
        if walk.unanswered_since(*side):
            walk.unanswered[(side[0], side[1], side[2].public_key)] = 0.0
    walk.elapsed += HANDSHAKE_MS - LAN_MS  # _udp counted the initiation's LAN crossing
    walk.hop(target.name, f"{remote.name}: handshake answered; peer endpoint is now "
                          f"{seen.address}:{seen.port}")
    return target, remote, theirs


def _wg_drop(walk: _Walk, host: Host, dev: str, reason: str, detail: str, packet: Packet,
             origin: bool) -> Drop:
    """A packet the WireGuard interface cannot send. Kernel WireGuard refuses it in wg_xmit()
    (drivers/net/wireguard/device.c) with an errno for the sender's own socket, and answers
    it with an ICMP host unreachable (icmp_ndo_send()): for the sender's own packet ping
    reads that from its error queue, a forwarded packet's source gets it across the network
    (an ICMP echo's; the model does not send it for TCP). wireguard-go took the packet from
    its tun device already and drops it without a word (RoutineReadFromTUN() in
    device/send.go)."""
    own = origin and not packet.reply
    if walk.go:
        return Drop(host.name, dev, reason, detail, reply=packet.reply)
    if not origin and packet.port is None and packet.src is not None:
        error = Packet(None, packet.src, reply=True,
                       sizes=(icmp_error_bytes(packet.sizes[0]),))
        walk.side.append((host.name, error, not packet.reply))
        walk.hop(host.name, f"{dev}: ICMP host unreachable sent back to {packet.src}")
    return Drop(host.name, dev, reason, detail, ERRNO_TEXT[reason] if own else None,
                packet.reply, packet.src if own else None)


def _stage(walk: _Walk, host: str, iface: str, peer: bytes, packet: Packet | None) -> None:
    """wireguard-go keeps a packet it cannot send yet in the peer's staged queue
    (Peer.StagePackets() in device/send.go), up to STAGED_MAX, and sends it once a session
    exists (SendStagedPackets())."""
    held = [s for s in (*walk.network.staged, *walk.staged)
            if (s.host, s.iface, s.peer) == (host, iface, peer)]
    if len(held) < STAGED_MAX:
        walk.staged.append(StagedPacket(host, iface, peer, packet))


def _has_session(walk: _Walk, host: str, iface: Interface, peer: Peer, target: str,
                 remote: Interface, sender: Peer) -> bool:
    """Whether the receiver still holds the session the sender encrypts with. Both sides
    note the time of their handshake; a receiver whose last one is older (or none: its
    interface was made anew, as `wg-quick down` and `up` do) has lost it, and drops the
    data as it finds no keypair for its receiver index (wg_packet_consume_data() in
    drivers/net/wireguard/receive.c; wireguard-go's RoutineReceiveIncoming() likewise)."""
    ours = walk.last_handshake(host, iface.name, peer)
    theirs = walk.last_handshake(target, remote.name, sender)
    return theirs > 0 and theirs >= ours


def _through_wireguard(walk: _Walk, host: Host, dev: str, packet: Packet,
                       origin: bool) -> tuple[Host, Packet, str]:
    """``packet`` through ``host``'s WireGuard link ``dev`` to the peer's host: that host,
    the packet as it came out of the tunnel and the link it came out of."""
    iface = host.wireguard.interfaces[dev]
    key = aips.lookup(iface.allowed_ips, packet.dst)
    if key is None:
        raise _Dropped(_wg_drop(walk, host, dev, NO_KEY, f"no peer of {dev} has AllowedIPs "
                                f"matching {packet.dst} (ENOKEY)", packet, origin))
    peer = next(p for p in iface.peers if p.name == key)
    endpoint = walk.endpoint(host.name, dev, peer)
    if endpoint is None:
        if walk.go:
            _stage(walk, host.name, dev, peer.public_key, packet)
            raise _Dropped(Drop(host.name, dev, STAGED, f"peer {key[:8]}... has no endpoint "
                                "yet: wireguard-go stages the packet", reply=packet.reply))
        raise _Dropped(_wg_drop(walk, host, dev, NO_ENDPOINT, f"peer {key[:8]}... has no "
                                "endpoint yet (EDESTADDRREQ)", packet, origin))
    if not _fresh(walk, host.name, iface, peer):
        _handshake(walk, host, iface, peer, endpoint)
    walk.hop(host.name, f"{dev}: encrypted for peer {key[:8]}..., sent to "
                        f"{endpoint.address}:{endpoint.port}")
    target, remote, seen = _udp(walk, host, iface, endpoint)
    size = sum(data_bytes(s) for s in packet.sizes)
    walk.count(host.name, dev, peer.public_key, tx=size)
    sender = remote.peer(iface.public_key) if iface.public_key is not None else None
    if sender is None:  # pragma: no cover - a fresh session means the peer exists
        raise _Dropped(Drop(target.name, remote.name, HANDSHAKE_FAILED, "unknown sender"))
    if not _has_session(walk, host.name, iface, peer, target.name, remote, sender):
        # Lost, uncounted, and the receiver learns nothing from it. The sender's timer
        # asks for a new handshake (wg_timers_data_sent()).
        mine = (host.name, dev, peer.public_key)
        if not walk.unanswered_since(host.name, dev, peer):
            walk.unanswered[mine] = walk.now
        raise _Dropped(Drop(target.name, remote.name, NO_SESSION,
                            f"{remote.name} has no session with {host.name} (its interface "
                            "was made anew): the data is dropped until a new handshake",
                            reply=packet.reply))
    if walk.unanswered_since(target.name, remote.name, sender):
        walk.unanswered[(target.name, remote.name, sender.public_key)] = 0.0
    allowed = aips.allowed_source(remote.allowed_ips, sender.name, packet.source())
    if walk.go or allowed:
        # The kernel counts a data packet received only once its source passed the
        # AllowedIPs check (update_rx_stats() after the routed_peer test in
        # wg_packet_consume_data_done(), receive.c); wireguard-go counts every packet it
        # decrypted (RoutineSequentialReceiver() in device/receive.go).
        walk.count(target.name, remote.name, sender.public_key, rx=size)
    walk.crossings.append((packet.reply, (host.name, dev, peer.public_key),
                           (target.name, remote.name, sender.public_key), walk.go or allowed))
    if walk.endpoint(target.name, remote.name, sender) != seen:
        walk.endpoints[(target.name, remote.name, sender.public_key)] = seen
        walk.hop(target.name, f"{remote.name}: peer {sender.name[:8]}... roamed to "
                              f"{seen.address}:{seen.port}")
    walk.elapsed += WIREGUARD_MS
    if not allowed:
        raise _Dropped(Drop(target.name, remote.name, SOURCE_NOT_ALLOWED,
                            f"source {packet.src} is not in the AllowedIPs of peer "
                            f"{sender.name[:8]}...: dropped after decryption",
                            reply=packet.reply))
    walk.hop(target.name, f"{remote.name}: decrypted {packet.src} -> {packet.dst}")
    return target, packet, remote.name
