"""What a packet's trip through a ``Network`` is made of (labsim.net.delivery): the packet,
the hops it takes, where and why it is dropped, the changes its trip makes, and the model's
fixed costs and packet sizes. ``Walk`` is the trip being made: the trace so far and the
changes to apply.

Time: round trip times are the model's fixed costs below, so ping prints the same times on
every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labsim.net.model import Address, IPv4, Network
from labsim.wg.device import Endpoint, Peer

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
class Walk:
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
    # (see through_wireguard). More packets along the same paths count there.
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

    def side_walk(self) -> Walk:
        """A walk for a packet made on the side: the same changes, its own path (so that
        ``carry`` does not count more packets along it) and its own hops (the trip's end
        where it ended)."""
        return Walk(self.network, self.now, handshakes=self.handshakes,
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


class Dropped(Exception):
    def __init__(self, drop: Drop):
        self.drop = drop
