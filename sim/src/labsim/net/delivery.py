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
  ``TCP_*`` and ``HTTP_*`` (labsim.net.trace) are the packet sizes, recorded through wireguard-go as
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
model's fixed costs (labsim.net.trace), so ping prints the same times on every run.

This module is the IP path (routing, forwarding, MASQUERADE, redirects) and the entry points;
the trace a trip makes and the model's constants are labsim.net.trace, a LAN segment
labsim.net.lan, and WireGuard's datapath (handshakes, sessions, keepalives, its UDP across
the underlay) labsim.net.wireguard_path.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import replace

from labsim.net import model
from labsim.net.lan import across_lan
from labsim.net.model import Host, IPv4, Network
from labsim.net.trace import (
    DEFAULT_TTL,
    ERRNO_TEXT,
    FORWARDING_DISABLED,
    HTTP_RESPONSE_HEADER_BYTES,
    KEEPALIVE_BYTES,
    LOOPBACK_MS,
    NO_ROUTE,
    NO_SOURCE,
    REDIRECT_LOAD,
    REDIRECT_NUMBER,
    REDIRECT_SILENCE,
    TCP_RST_BYTES,
    TCP_SEGMENT_BYTES,
    TCP_SYN_BYTES,
    TTL_EXCEEDED,
    Delivery,
    Drop,
    Dropped,
    Packet,
    Walk,
    http_body,
    http_request_bytes,
    icmp_error_bytes,
    syns_sent,
)
from labsim.net.wireguard_path import (
    can_send,
    fresh,
    handshake,
    keepalive,
    refresh_mapping,
    through_wireguard,
    unusable_initiation,
)
from labsim.wg.device import (
    DeviceChange,
    PeerChange,
    apply_change,
    record_handshake,
    record_transfer,
    record_unanswered,
)


def _round_trip(walk: Walk, host: str, request: Packet,
                answer: Callable[[Host, Packet], Packet]) -> tuple[Host, Packet, Packet]:
    """``request`` from ``host`` to its destination, and the packet ``answer`` makes of it
    there back to ``host``: the host that answered, the request as it arrived and the
    answer as it came back."""
    there, arrived = _travel(walk, walk.network.hosts[host], request, origin=True)
    back, answered = _travel(walk, there, answer(there, arrived), origin=True)
    if back.name != host:  # pragma: no cover - the answer is addressed to the sender
        raise Dropped(Drop(back.name, None, NO_ROUTE, "answer reached the wrong host",
                            reply=True))
    return there, arrived, answered


def _lost(walk: Walk, err: Dropped) -> Delivery:
    return walk.delivery(err.drop)


def echo(network: Network, host: str, address: IPv4 | str, now: float) -> Delivery:
    """Send one ICMP echo request from ``host`` to ``address`` and follow it and its reply."""
    walk = Walk(network, now)

    def echo_reply(there: Host, request: Packet) -> Packet:
        walk.hop(there.name, f"echo request from {request.src} answered")
        return Packet(request.dst, request.source(), reply=True)

    try:
        _, _, answer = _round_trip(walk, host, Packet(None, ipaddress.IPv4Address(address)),
                                   echo_reply)
        walk.hop(host, f"echo reply from {answer.src} received, ttl={answer.ttl}")
    except Dropped as err:
        warned = _send_side(walk, host)
        if warned is not None and err.drop.unreachable_from is None:
            # A forwarding host's ICMP host unreachable: ping prints it, and counts an error.
            err = Dropped(replace(err.drop, unreachable_from=warned))
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
    walk = Walk(network, now)
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
    except Dropped as err:
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
    ready = [s for s in network.staged if can_send(network, s, now)]
    if not ready:
        return
    network.staged[:] = [s for s in network.staged if s not in ready]
    for staged in ready:
        walk = Walk(network, now)
        host = network.hosts[staged.host]
        try:
            if staged.packet is None:
                keepalive(walk, host, host.wireguard.interfaces[staged.iface], staged.peer)
            else:
                target, arrived, link = through_wireguard(walk, host, staged.iface,
                                                           staged.packet, origin=False)
                there, arrived = _travel(walk, target, arrived, origin=False, came_in=link)
                if arrived.port is None and not arrived.reply:
                    walk.hop(there.name, f"echo request from {arrived.src} answered")
                    _travel(walk, there, Packet(arrived.dst, arrived.source(), reply=True),
                            origin=True)
        except Dropped:
            pass
        _send_side(walk, staged.host)
        apply(network, walk.delivery(None))


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
                walk = Walk(network, now)
                if go and came_up and iface.private_key is None:
                    unusable_initiation(walk, host, iface, peer)
                    apply(network, walk.delivery(None))
                    continue
                if iface.private_key is None or (go and not came_up
                                                 and not peer.last_handshake):
                    continue
                if fresh(walk, host.name, iface, peer):
                    refresh_mapping(walk, host, iface, peer.endpoint)
                    apply(network, walk.delivery(None))
                    continue
                try:
                    target, remote, theirs = handshake(walk, host, iface, peer, peer.endpoint)
                    # The keepalive that started it follows, and confirms the session.
                    walk.count(host.name, iface.name, peer.public_key, tx=KEEPALIVE_BYTES)
                    walk.count(target.name, remote.name, theirs.public_key, rx=KEEPALIVE_BYTES)
                    dropped = None
                except Dropped as err:
                    dropped = err.drop
                delivery = walk.delivery(dropped)
                apply(network, delivery)
                made.append(delivery)
    return made


def _travel(walk: Walk, host: Host, packet: Packet, origin: bool,
            came_in: str | None = None) -> tuple[Host, Packet]:
    """Carry ``packet`` from ``host`` (which sends it when ``origin``, or has just received
    it on link ``came_in``) to the host that accepts it; raises Dropped when it is lost."""
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
            raise Dropped(Drop(host.name, None, NO_ROUTE, f"no route to {packet.dst}",
                                ERRNO_TEXT[NO_ROUTE] if origin and not packet.reply else None,
                                packet.reply))
        if origin:
            if packet.src is None:
                source = model.source_for(host, route)
                if source is None:
                    raise Dropped(Drop(host.name, route.dev, NO_SOURCE,
                                        f"{host.name} has no address but lo's to send from: "
                                        "not simulated"))
                packet = replace(packet, src=source)
            walk.hop(host.name, f"route {route.prefix} dev {route.dev}: {packet.src} -> "
                                f"{packet.dst} leaves by {route.dev}")
        else:
            if not host.ip_forward:
                raise Dropped(Drop(host.name, None, FORWARDING_DISABLED,
                                    f"{packet.dst} is not its address and "
                                    "net.ipv4.ip_forward = 0: not forwarded",
                                    reply=packet.reply))
            if packet.ttl <= 1:
                raise Dropped(Drop(host.name, None, TTL_EXCEEDED, "TTL reached 0",
                                    reply=packet.reply))
            packet = replace(packet, ttl=packet.ttl - 1)
            walk.hop(host.name, f"forwarded to {route.dev} (route {route.prefix})")
            if route.dev == came_in and walk.go and model.is_wireguard(host, route.dev):
                _redirect(walk, host, route.dev, packet)
        if route.dev in model.masquerade_links(host):
            packet = _masquerade(walk, host, route.dev, packet)
        if model.is_wireguard(host, route.dev):
            host, packet, came_in = through_wireguard(walk, host, route.dev, packet, origin)
        elif route.dev == "lo":
            walk.hop(host.name, "looped back")
            return host, packet
        else:
            host, packet = across_lan(walk, host, route.dev, route.via or packet.dst, packet)
            came_in = None  # the model sends redirects only on WireGuard links
        origin = False


def _redirect(walk: Walk, host: Host, dev: str, packet: Packet) -> None:
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


def _send_side(walk: Walk, origin: str) -> IPv4 | None:
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
            except Dropped:
                continue
            finally:
                walk.side.extend(side.side)
            if warns and there.name == origin:
                warned = arrived.src
    return warned


def _masquerade(walk: Walk, host: Host, dev: str, packet: Packet) -> Packet:
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


def _undo_masquerade(walk: Walk, host: Host, packet: Packet) -> Packet:
    original = walk.conntrack.get((host.name, packet.dst))
    if original is None or not packet.reply:
        return packet
    walk.hop(host.name, f"conntrack: destination {packet.dst} back to {original}")
    return replace(packet, dst=original)
