"""What happens to one ICMP echo (a ping) in a ``Network``, hop by hop, and why it is dropped.

``echo(network, host, address, now)`` is a pure function: it reads the network and returns a
``Delivery`` -- the trace of hops, where and why the packet was dropped if it was, the round
trip time, and the changes the trip makes (handshakes, endpoints learned by roaming, byte
counters, NAT mappings). ``apply(network, delivery)`` writes those changes into the network.

The rules, with the Linux source they follow:

* Routing: an address of the host itself is delivered locally; otherwise the main table's
  longest matching prefix picks the link (``model.lookup_route``). No route: the sender's
  ping fails at connect() with ENETUNREACH, "Network is unreachable".
* Forwarding: a host that receives a packet for an address that is not its own forwards it
  only with net.ipv4.ip_forward=1 (ip_forward() in net/ipv4/ip_forward.c), decrementing TTL.
* MASQUERADE: a packet leaving by a link named in a POSTROUTING MASQUERADE rule gets that
  link's first address as its source, and the reply is rewritten back (conntrack).
* WireGuard, outbound (wg_xmit() in drivers/net/wireguard/device.c): the AllowedIPs lookup
  picks the peer; no peer -> dropped with ENOKEY, "Required key not available"; a peer
  with no endpoint -> EDESTADDRREQ, "Destination address required". For the sender's own
  packet, ping reports either as `ping: sendmsg: ...`, after the ICMP host unreachable
  wg_xmit() also sends ("From SRC icmp_seq=N Destination Host Unreachable"). This is
  kernel WireGuard, as on the lab VM: wireguard-go drops both silently.
* A handshake is made when the peers have no session (none yet, or older than
  REKEY_AFTER_TIME, 120 s, messages.h; the model does not track which side initiated).
  The responder learns the initiator's endpoint from the packet's source (roaming, in
  wg_packet_receive() -> update_endpoint), and both sides record the handshake time.
* WireGuard, inbound (receive.c): a decrypted packet whose source address does not look up
  to the peer that sent it is dropped (``allowed_ips.allowed_source``).
* The underlay is one flat LAN. A host behind a NAT (``Host.nat_address``) can send out,
  and the NAT then lets the other side's answers back in for NAT_TIMEOUT seconds; nobody
  can start a conversation with it. That is why a server cannot reach a client that has
  never sent anything, and why PersistentKeepalive helps (``settle``).

Time: ``now`` is the session's clock (seconds since the epoch). Round trip times are the
model's fixed costs below, so ping prints the same times on every run.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace

from labsim.net import model
from labsim.net.model import Host, IPv4, Network
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
)

# The model's fixed costs, in milliseconds, one way.
LOOPBACK_MS = 0.020
LAN_MS = 0.150  # one packet across the LAN
WIREGUARD_MS = 0.100  # encrypting and decrypting one packet
HANDSHAKE_MS = 1.000  # a whole handshake: initiation and response across the LAN, and crypto

REKEY_AFTER_TIME = 120  # seconds: a session older than this is renewed (messages.h)
REJECT_AFTER_TIME = 180  # seconds: a session older than this is no longer used (messages.h)
NAT_TIMEOUT = 120  # seconds a NAT keeps a UDP mapping (Linux conntrack's udp stream timeout)
DEFAULT_TTL = 64

# Sizes of WireGuard messages on the wire (UDP payload), as `wg show` counts transfer.
INITIATION_BYTES = 148
RESPONSE_BYTES = 92
KEEPALIVE_BYTES = 32  # a data message with nothing in it
ICMP_ECHO_BYTES = 84  # IP header + ICMP header + ping's 56 bytes


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
HANDSHAKE_FAILED = "handshake-failed"
SOURCE_NOT_ALLOWED = "source-not-allowed"

ERRNO_TEXT = {
    NO_ROUTE: "Network is unreachable",
    NO_KEY: "Required key not available",
    NO_ENDPOINT: "Destination address required",
}


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
    # (icmp_ndo_send() in wg_xmit()); for the sender's own packet it comes from this, the
    # packet's source address, and ping prints "From ... Destination Host Unreachable".
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


@dataclass(frozen=True)
class Delivery:
    hops: tuple[Hop, ...]
    dropped: Drop | None
    rtt_ms: float | None = None
    reply_ttl: int | None = None
    reply_from: IPv4 | None = None
    updates: tuple[PeerUpdate, ...] = ()
    nat_mappings: tuple[tuple[tuple[str, int, IPv4, int], float], ...] = ()

    @property
    def ok(self) -> bool:
        return self.dropped is None


@dataclass(frozen=True)
class Packet:
    src: IPv4 | None
    dst: IPv4
    ttl: int = DEFAULT_TTL
    reply: bool = False


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
    mappings: dict[tuple[str, int, IPv4, int], float] = field(default_factory=dict)
    conntrack: dict[tuple[str, IPv4], IPv4] = field(default_factory=dict)

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

    def mapped(self, key: tuple[str, int, IPv4, int]) -> bool:
        when = self.mappings.get(key, self.network.nat_mappings.get(key))
        return when is not None and self.now - when < NAT_TIMEOUT

    def updates(self) -> tuple[PeerUpdate, ...]:
        keys = list(dict.fromkeys([*self.handshakes, *self.endpoints, *self.transfer]))
        return tuple(
            PeerUpdate(host, iface, peer, self.handshakes.get((host, iface, peer)),
                       self.endpoints.get((host, iface, peer)),
                       *self.transfer.get((host, iface, peer), [0, 0]))
            for host, iface, peer in keys)


class _Dropped(Exception):
    def __init__(self, drop: Drop):
        self.drop = drop


def echo(network: Network, host: str, address: IPv4 | str, now: float) -> Delivery:
    """Send one ICMP echo request from ``host`` to ``address`` and follow it and its reply."""
    walk = _Walk(network, now)
    target = ipaddress.IPv4Address(address)
    try:
        there, request = _travel(walk, network.hosts[host], Packet(None, target), origin=True)
        walk.hop(there.name, f"echo request from {request.src} answered")
        reply = Packet(request.dst, request.src, reply=True)
        back, answer = _travel(walk, there, reply, origin=True)
        if back.name != host:  # pragma: no cover - the reply is addressed to the sender
            raise _Dropped(Drop(back.name, None, NO_ROUTE, "reply reached the wrong host",
                                reply=True))
        walk.hop(host, f"echo reply from {answer.src} received, ttl={answer.ttl}")
    except _Dropped as err:
        return Delivery(tuple(walk.hops), err.drop, updates=walk.updates(),
                        nat_mappings=tuple(walk.mappings.items()))
    return Delivery(tuple(walk.hops), None, rtt_ms=round(walk.elapsed, 3), reply_ttl=answer.ttl,
                    reply_from=answer.src, updates=walk.updates(),
                    nat_mappings=tuple(walk.mappings.items()))


def apply(network: Network, delivery: Delivery) -> None:
    """Write what a trip changed into the network (and each host's WireGuard model)."""
    for update in delivery.updates:
        wireguard = network.hosts[update.host].wireguard
        if update.iface not in wireguard.interfaces:
            continue
        if update.endpoint is not None:
            apply_change(wireguard, update.iface, DeviceChange(
                peers=(PeerChange(update.peer, endpoint=update.endpoint),)))
        if update.handshake is not None:
            record_handshake(wireguard, update.iface, update.peer, update.handshake)
        if update.rx or update.tx:
            record_transfer(wireguard, update.iface, update.peer, rx=update.rx, tx=update.tx)
    network.nat_mappings.update(dict(delivery.nat_mappings))


def settle(network: Network, now: float) -> list[Delivery]:
    """Run PersistentKeepalive: every up interface's peer with a keepalive interval and an
    endpoint handshakes now if it has no fresh session (the kernel sends a keepalive when
    the interface comes up or the interval is set, wg_open() and set_peer() in netlink.c,
    and a keepalive without a session starts a handshake); with a fresh session, the
    keepalives keep its NAT mapping open. Returns the handshakes made, applied."""
    made = []
    for host in network.hosts.values():
        for iface in list(host.wireguard.interfaces.values()):
            if not iface.up or iface.private_key is None:
                continue
            for peer in iface.peers:
                if not peer.persistent_keepalive or peer.endpoint is None:
                    continue
                walk = _Walk(network, now)
                if _fresh(walk, host.name, iface, peer):
                    _refresh_mapping(walk, host, iface, peer.endpoint)
                    network.nat_mappings.update(walk.mappings)
                    continue
                try:
                    target, remote, theirs = _handshake(walk, host, iface, peer, peer.endpoint)
                    # The keepalive that started it follows, and confirms the session.
                    walk.count(host.name, iface.name, peer.public_key, tx=KEEPALIVE_BYTES)
                    walk.count(target.name, remote.name, theirs.public_key, rx=KEEPALIVE_BYTES)
                    dropped = None
                except _Dropped as err:
                    dropped = err.drop
                delivery = Delivery(tuple(walk.hops), dropped, updates=walk.updates(),
                                    nat_mappings=tuple(walk.mappings.items()))
                apply(network, delivery)
                made.append(delivery)
    return made


def _fresh(walk: _Walk, host: str, iface: Interface, peer: Peer) -> bool:
    last = walk.last_handshake(host, iface.name, peer)
    return last > 0 and walk.now - last < REKEY_AFTER_TIME


def _refresh_mapping(walk: _Walk, host: Host, iface: Interface, endpoint: Endpoint) -> None:
    if host.nat_address is not None:
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now


def _travel(walk: _Walk, host: Host, packet: Packet, origin: bool) -> tuple[Host, Packet]:
    """Carry ``packet`` from ``host`` (which sends it when ``origin``, or has just received
    it) to the host that accepts it; raises _Dropped when it is lost."""
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
        route = model.lookup_route(host.routes, packet.dst)
        if route is None:
            raise _Dropped(Drop(host.name, None, NO_ROUTE, f"no route to {packet.dst}",
                                ERRNO_TEXT[NO_ROUTE] if origin and not packet.reply else None,
                                packet.reply))
        if origin:
            if packet.src is None:
                packet = replace(packet, src=model.source_for(host, route))
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
        if route.dev in host.masquerade:
            packet = _masquerade(walk, host, route.dev, packet)
        if model.is_wireguard(host, route.dev):
            host, packet = _through_wireguard(walk, host, route.dev, packet, origin)
        elif route.dev == "lo":
            walk.hop(host.name, "looped back")
            return host, packet
        else:
            host, packet = _across_lan(walk, host, route.dev, route.via or packet.dst, packet)
        origin = False


def _masquerade(walk: _Walk, host: Host, dev: str, packet: Packet) -> Packet:
    # The new source is the link's address for the destination, as inet_select_addr() picks
    # it (nf_nat_masquerade.c): one in the destination's subnet, else the link's first.
    mine = [a for d, a in host.addresses if d == dev]
    new = next((a.ip for a in mine if packet.dst in a.network),
               mine[0].ip if mine else None)
    if new is None or new == packet.src:
        return packet
    walk.conntrack[(host.name, new)] = packet.src
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
    route = model.lookup_route(host.routes, endpoint.address)
    if route is None or route.dev not in host.links or route.dev == "lo":
        raise _Dropped(Drop(host.name, iface.name, NO_ROUTE,
                            f"no underlay route to the endpoint {endpoint.address}"))
    if host.nat_address is not None and route.dev == "eth0":
        # A port-preserving NAT: the datagram leaves from the same port.
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now
        seen = Endpoint(host.nat_address, iface.listen_port)
    else:
        seen = Endpoint(model.source_for(host, route), iface.listen_port)
    target = _lan_owner_udp(walk, host.links[route.dev].segment, endpoint, seen)
    listening = next((i for i in target.wireguard.interfaces.values()
                      if i.up and i.listen_port == endpoint.port), None)
    if listening is None:
        raise _Dropped(Drop(target.name, "eth0", NOT_LISTENING,
                            f"nothing listens on UDP port {endpoint.port}"))
    walk.elapsed += LAN_MS
    return target, listening, seen


def _lan_owner_udp(walk: _Walk, segment: str, endpoint: Endpoint, seen: Endpoint) -> Host:
    for host in walk.network.hosts.values():
        if segment == "lan" and host.nat_address == endpoint.address:
            if walk.mapped((host.name, endpoint.port, seen.address, seen.port)):
                return host
            raise _Dropped(Drop(host.name, "eth0", NAT_UNSOLICITED,
                                f"the NAT in front of {host.name} drops a datagram from "
                                f"{seen.address}:{seen.port} that answers nothing "
                                f"{host.name} sent there"))
    return _lan_owner(walk, segment, endpoint.address, None, endpoint.port)[0]


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
    walk.elapsed += HANDSHAKE_MS - LAN_MS  # _udp counted the initiation's LAN crossing
    walk.hop(target.name, f"{remote.name}: handshake answered; peer endpoint is now "
                          f"{seen.address}:{seen.port}")
    return target, remote, theirs


def _wg_drop(host: Host, dev: str, reason: str, detail: str, packet: Packet,
             origin: bool) -> Drop:
    """A packet wg_xmit() refuses. The sender's own gets the errno and the ICMP error; a
    forwarded one is dropped silently here (the model does not carry the ICMP error the
    kernel sends back to its source)."""
    own = origin and not packet.reply
    return Drop(host.name, dev, reason, detail, ERRNO_TEXT[reason] if own else None,
                packet.reply, packet.src if own else None)


def _through_wireguard(walk: _Walk, host: Host, dev: str, packet: Packet,
                       origin: bool) -> tuple[Host, Packet]:
    iface = host.wireguard.interfaces[dev]
    key = aips.lookup(iface.allowed_ips, packet.dst)
    if key is None:
        raise _Dropped(_wg_drop(host, dev, NO_KEY, f"no peer of {dev} has AllowedIPs "
                                f"matching {packet.dst} (ENOKEY)", packet, origin))
    peer = next(p for p in iface.peers if p.name == key)
    endpoint = walk.endpoint(host.name, dev, peer)
    if endpoint is None:
        raise _Dropped(_wg_drop(host, dev, NO_ENDPOINT, f"peer {key[:8]}... has no endpoint "
                                "yet (EDESTADDRREQ)", packet, origin))
    if not _fresh(walk, host.name, iface, peer):
        _handshake(walk, host, iface, peer, endpoint)
    walk.hop(host.name, f"{dev}: encrypted for peer {key[:8]}..., sent to "
                        f"{endpoint.address}:{endpoint.port}")
    target, remote, seen = _udp(walk, host, iface, endpoint)
    size = data_bytes(ICMP_ECHO_BYTES)
    walk.count(host.name, dev, peer.public_key, tx=size)
    sender = remote.peer(iface.public_key)
    if sender is None:  # pragma: no cover - a fresh session means the peer exists
        raise _Dropped(Drop(target.name, remote.name, HANDSHAKE_FAILED, "unknown sender"))
    walk.count(target.name, remote.name, sender.public_key, rx=size)
    if walk.endpoint(target.name, remote.name, sender) != seen:
        walk.endpoints[(target.name, remote.name, sender.public_key)] = seen
        walk.hop(target.name, f"{remote.name}: peer {sender.name[:8]}... roamed to "
                              f"{seen.address}:{seen.port}")
    walk.elapsed += WIREGUARD_MS
    if not aips.allowed_source(remote.allowed_ips, sender.name, packet.src):
        raise _Dropped(Drop(target.name, remote.name, SOURCE_NOT_ALLOWED,
                            f"source {packet.src} is not in the AllowedIPs of peer "
                            f"{sender.name[:8]}...: dropped after decryption",
                            reply=packet.reply))
    walk.hop(target.name, f"{remote.name}: decrypted {packet.src} -> {packet.dst}")
    return target, packet
