"""WireGuard's datapath in the network model (labsim.net.delivery): a packet routed into a
WireGuard link is encrypted for the peer whose AllowedIPs take it, after a handshake when the
peers have no session, and carried as a UDP datagram across the underlay (LAN segments,
routers and NAT) to the peer's endpoint, which decrypts it and checks its source; keepalives
and the NAT mappings they keep. The rules and the Linux and wireguard-go source they follow
are in labsim.net.delivery's docstring.
"""

from __future__ import annotations

import contextlib

from labsim.net import model
from labsim.net.lan import lan_owner
from labsim.net.model import Host, IPv4, Network
from labsim.net.trace import (
    DEFAULT_TTL,
    ERRNO_TEXT,
    FORWARDING_DISABLED,
    HANDSHAKE_FAILED,
    HANDSHAKE_MS,
    INITIATION_BYTES,
    KEEPALIVE_BYTES,
    KEEPALIVE_TIMEOUT,
    LAN_MS,
    NAT_UNSOLICITED,
    NO_ENDPOINT,
    NO_KEY,
    NO_PRIVATE_KEY,
    NO_ROUTE,
    NO_SESSION,
    NO_SOURCE,
    NOT_LISTENING,
    REKEY_AFTER_TIME,
    REKEY_TIMEOUT,
    RESPONSE_BYTES,
    ROUTING_LOOP,
    SOURCE_NOT_ALLOWED,
    STAGED,
    STAGED_MAX,
    WIREGUARD_MS,
    Drop,
    Dropped,
    Packet,
    StagedPacket,
    Walk,
    data_bytes,
    icmp_error_bytes,
)
from labsim.wg import allowed_ips as aips
from labsim.wg.device import (
    Endpoint,
    Interface,
    Peer,
)


def can_send(network: Network, staged: StagedPacket, now: float) -> bool:
    iface = network.hosts[staged.host].wireguard.interfaces.get(staged.iface)
    peer = iface.peer(staged.peer) if iface is not None else None
    return (iface is not None and peer is not None and iface.up and peer.endpoint is not None
            and peer.last_handshake > 0 and now - peer.last_handshake < REKEY_AFTER_TIME)


def keepalive(walk: Walk, host: Host, iface: Interface, key: bytes) -> None:
    """One keepalive to the peer ``key``, counted at both ends."""
    peer = iface.peer(key)
    endpoint = walk.endpoint(host.name, iface.name, peer) if peer is not None else None
    if peer is None or endpoint is None:
        return
    target, remote, _seen = udp_datagram(walk, host, iface, endpoint)
    theirs = remote.peer(iface.public_key) if iface.public_key else None
    walk.count(host.name, iface.name, key, tx=KEEPALIVE_BYTES)
    if theirs is not None:
        walk.count(target.name, remote.name, theirs.public_key, rx=KEEPALIVE_BYTES)


def unusable_initiation(walk: Walk, host: Host, iface: Interface, peer: Peer) -> None:
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
        target, _remote, _seen = udp_datagram(walk, host, iface, peer.endpoint)
    except Dropped:
        return
    walk.count(host.name, iface.name, peer.public_key, tx=INITIATION_BYTES)
    walk.hop(target.name, "the initiation does not authenticate: dropped, not counted")


def fresh(walk: Walk, host: str, iface: Interface, peer: Peer) -> bool:
    """Whether data to ``peer`` goes under the session there is: it is younger than
    REKEY_AFTER_TIME, and no data has gone unanswered for KEEPALIVE_TIMEOUT +
    REKEY_TIMEOUT (then the new_handshake timer has made a new one, timers.c)."""
    last = walk.last_handshake(host, iface.name, peer)
    unanswered = walk.unanswered_since(host, iface.name, peer)
    if unanswered and walk.now - unanswered >= KEEPALIVE_TIMEOUT + REKEY_TIMEOUT:
        return False
    return last > 0 and walk.now - last < REKEY_AFTER_TIME


def refresh_mapping(walk: Walk, host: Host, iface: Interface, endpoint: Endpoint) -> None:
    """A keepalive's way to the endpoint, for the NAT mappings it renews (its bytes are
    not counted: the model does not tick keepalives one by one)."""
    if host.nat_address is not None:
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now
    with contextlib.suppress(Dropped):
        udp_datagram(walk, host, iface, endpoint)


def udp_datagram(walk: Walk, host: Host, iface: Interface,
         endpoint: Endpoint) -> tuple[Host, Interface, Endpoint]:
    """A WireGuard UDP datagram from ``host``'s ``iface`` to ``endpoint``: the host and
    interface that receive it, and the source they see it come from."""
    address = endpoint.address
    if not isinstance(address, IPv4):
        # wg accepts an IPv6 endpoint, but labsim's networks have no IPv6 routes.
        raise Dropped(Drop(host.name, iface.name, NO_ROUTE,
                            f"no underlay route to the endpoint {address} (IPv6 is not "
                            "simulated)"))
    # The datagram carries the interface's fwmark: the rules route it by that mark.
    route = model.route_for(host, address, iface.fwmark)
    if route is not None and model.is_wireguard(host, route.dev):
        raise Dropped(Drop(host.name, iface.name, ROUTING_LOOP,
                            f"the route to the endpoint {endpoint.address} leads into "
                            f"{route.dev} itself: packet loop (ELOOP), dropped"))
    if route is None or route.dev not in host.links or route.dev == "lo":
        raise Dropped(Drop(host.name, iface.name, NO_ROUTE,
                            f"no underlay route to the endpoint {endpoint.address}"))
    if host.nat_address is not None and route.dev == "eth0":
        # A port-preserving NAT: the datagram leaves from the same port.
        walk.mappings[(host.name, iface.listen_port, endpoint.address, endpoint.port)] = walk.now
        seen = Endpoint(host.nat_address, iface.listen_port)
    else:
        source = model.source_for(host, route)
        if source is None:
            raise Dropped(Drop(host.name, iface.name, NO_SOURCE,
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
            router = lan_owner(walk, segment, route.via, None, 0)[0]
        except Dropped:
            break
        walk.elapsed += LAN_MS
        if not router.ip_forward:
            raise Dropped(Drop(router.name, None, FORWARDING_DISABLED,
                                f"{endpoint.address} is not its address and "
                                "net.ipv4.ip_forward = 0: not forwarded"))
        route = model.route_for(router, address)
        if route is None or route.dev not in router.links or route.dev == "lo":
            raise Dropped(Drop(router.name, None, NO_ROUTE,
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
            raise Dropped(Drop(target.name, None, NO_ROUTE, f"no route to {inner}"))
        walk.hop(target.name, f"conntrack: destination {endpoint.address}:{endpoint.port} "
                              f"back to {inner}:{endpoint.port}")
        endpoint = Endpoint(inner, endpoint.port)
        target = lan_owner(walk, target.links[route.dev].segment, inner, None, 0)[0]
        walk.elapsed += LAN_MS
    listening = next((i for i in target.wireguard.interfaces.values()
                      if i.up and i.listen_port == endpoint.port), None)
    if listening is None and model.masquerade_links(target):
        raise Dropped(Drop(target.name, None, NAT_UNSOLICITED,
                            f"{target.name} masquerades, and a datagram from {seen.address}:"
                            f"{seen.port} to its port {endpoint.port} answers nothing sent "
                            "through it: dropped"))
    if listening is None:
        raise Dropped(Drop(target.name, "eth0", NOT_LISTENING,
                            f"nothing listens on UDP port {endpoint.port}"))
    walk.elapsed += LAN_MS
    return target, listening, seen


def _masquerade_udp(walk: Walk, router: Host, dev: str, seen: Endpoint,
                    endpoint: Endpoint) -> Endpoint:
    """A WireGuard datagram leaving ``router`` by ``dev`` under MASQUERADE: its source
    becomes the link's address, the port kept (nf_nat keeps a free source port), and the
    mapping lets the answers back in (``Walk.masqueraded``)."""
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


def _lan_owner_udp(walk: Walk, segment: str, address: IPv4, port: int,
                   seen: Endpoint) -> Host:
    for host in walk.network.hosts.values():
        if segment == "lan" and host.nat_address == address:
            if walk.mapped((host.name, port, seen.address, seen.port)):
                return host
            raise Dropped(Drop(host.name, "eth0", NAT_UNSOLICITED,
                                f"the NAT in front of {host.name} drops a datagram from "
                                f"{seen.address}:{seen.port} that answers nothing "
                                f"{host.name} sent there"))
    return lan_owner(walk, segment, address, None, port)[0]


def handshake(walk: Walk, host: Host, iface: Interface, peer: Peer,
               endpoint: Endpoint) -> tuple[Host, Interface, Peer]:
    """Initiation from ``host`` to ``peer`` at ``endpoint``, and the response; returns the
    responder, its interface and its peer for ``host``."""
    if iface.private_key is None:
        raise Dropped(Drop(host.name, iface.name, NO_PRIVATE_KEY,
                            f"{iface.name} has no private key: no handshake can be made"))
    walk.hop(host.name, f"{iface.name}: no session with peer {peer.name[:8]}..., "
                        f"handshake initiation to {endpoint.address}:{endpoint.port}")
    target, remote, seen = udp_datagram(walk, host, iface, endpoint)
    walk.count(host.name, iface.name, peer.public_key, tx=INITIATION_BYTES)
    theirs = remote.peer(iface.public_key) if iface.public_key else None
    if remote.private_key is None or remote.public_key != peer.public_key or theirs is None:
        raise Dropped(Drop(target.name, remote.name, HANDSHAKE_FAILED,
                            f"{target.name}'s {remote.name} cannot answer: it is not the peer "
                            f"{peer.name[:8]}... or has no peer with {host.name}'s key"))
    if theirs.preshared_key != peer.preshared_key:
        raise Dropped(Drop(host.name, iface.name, HANDSHAKE_FAILED,
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
    walk.elapsed += HANDSHAKE_MS - LAN_MS  # udp_datagram counted the initiation's LAN crossing
    walk.hop(target.name, f"{remote.name}: handshake answered; peer endpoint is now "
                          f"{seen.address}:{seen.port}")
    return target, remote, theirs


def _wg_drop(walk: Walk, host: Host, dev: str, reason: str, detail: str, packet: Packet,
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


def _stage(walk: Walk, host: str, iface: str, peer: bytes, packet: Packet | None) -> None:
    """wireguard-go keeps a packet it cannot send yet in the peer's staged queue
    (Peer.StagePackets() in device/send.go), up to STAGED_MAX, and sends it once a session
    exists (SendStagedPackets())."""
    held = [s for s in (*walk.network.staged, *walk.staged)
            if (s.host, s.iface, s.peer) == (host, iface, peer)]
    if len(held) < STAGED_MAX:
        walk.staged.append(StagedPacket(host, iface, peer, packet))


def _has_session(walk: Walk, host: str, iface: Interface, peer: Peer, target: str,
                 remote: Interface, sender: Peer) -> bool:
    """Whether the receiver still holds the session the sender encrypts with. Both sides
    note the time of their handshake; a receiver whose last one is older (or none: its
    interface was made anew, as `wg-quick down` and `up` do) has lost it, and drops the
    data as it finds no keypair for its receiver index (wg_packet_consume_data() in
    drivers/net/wireguard/receive.c; wireguard-go's RoutineReceiveIncoming() likewise)."""
    ours = walk.last_handshake(host, iface.name, peer)
    theirs = walk.last_handshake(target, remote.name, sender)
    return theirs > 0 and theirs >= ours


def through_wireguard(walk: Walk, host: Host, dev: str, packet: Packet,
                       origin: bool) -> tuple[Host, Packet, str]:
    """``packet`` through ``host``'s WireGuard link ``dev`` to the peer's host: that host,
    the packet as it came out of the tunnel and the link it came out of."""
    iface = host.wireguard.interfaces[dev]
    key = aips.lookup(iface.allowed_ips, packet.dst)
    if key is None:
        raise Dropped(_wg_drop(walk, host, dev, NO_KEY, f"no peer of {dev} has AllowedIPs "
                                f"matching {packet.dst} (ENOKEY)", packet, origin))
    peer = next(p for p in iface.peers if p.name == key)
    endpoint = walk.endpoint(host.name, dev, peer)
    if endpoint is None:
        if walk.go:
            _stage(walk, host.name, dev, peer.public_key, packet)
            raise Dropped(Drop(host.name, dev, STAGED, f"peer {key[:8]}... has no endpoint "
                                "yet: wireguard-go stages the packet", reply=packet.reply))
        raise Dropped(_wg_drop(walk, host, dev, NO_ENDPOINT, f"peer {key[:8]}... has no "
                                "endpoint yet (EDESTADDRREQ)", packet, origin))
    if not fresh(walk, host.name, iface, peer):
        handshake(walk, host, iface, peer, endpoint)
    walk.hop(host.name, f"{dev}: encrypted for peer {key[:8]}..., sent to "
                        f"{endpoint.address}:{endpoint.port}")
    target, remote, seen = udp_datagram(walk, host, iface, endpoint)
    size = sum(data_bytes(s) for s in packet.sizes)
    walk.count(host.name, dev, peer.public_key, tx=size)
    sender = remote.peer(iface.public_key) if iface.public_key is not None else None
    if sender is None:  # pragma: no cover - a fresh session means the peer exists
        raise Dropped(Drop(target.name, remote.name, HANDSHAKE_FAILED, "unknown sender"))
    if not _has_session(walk, host.name, iface, peer, target.name, remote, sender):
        # Lost, uncounted, and the receiver learns nothing from it. The sender's timer
        # asks for a new handshake (wg_timers_data_sent()).
        mine = (host.name, dev, peer.public_key)
        if not walk.unanswered_since(host.name, dev, peer):
            walk.unanswered[mine] = walk.now
        raise Dropped(Drop(target.name, remote.name, NO_SESSION,
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
        raise Dropped(Drop(target.name, remote.name, SOURCE_NOT_ALLOWED,
                            f"source {packet.src} is not in the AllowedIPs of peer "
                            f"{sender.name[:8]}...: dropped after decryption",
                            reply=packet.reply))
    walk.hop(target.name, f"{remote.name}: decrypted {packet.src} -> {packet.dst}")
    return target, packet, remote.name
