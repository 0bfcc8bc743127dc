"""A LAN segment of the underlay: who on it has an address (a host, or the router or
implicit NAT in front of one), and a packet crossing it (labsim.net.delivery).
"""

from __future__ import annotations

from dataclasses import replace

from labsim.net.model import Host, IPv4
from labsim.net.trace import (
    LAN_MS,
    NAT_UNSOLICITED,
    NO_LAN_HOST,
    Drop,
    Dropped,
    Packet,
    Walk,
)


def across_lan(walk: Walk, host: Host, dev: str, next_hop: IPv4,
                packet: Packet) -> tuple[Host, Packet]:
    """A plain IP packet from ``host``'s link ``dev`` to the host that has ``next_hop``."""
    segment = host.links[dev].segment
    if host.nat_address is not None and dev == "eth0":
        walk.mappings[(host.name, 0, packet.dst, 0)] = walk.now
        walk.hop(host.name, f"its NAT sends it on from {host.nat_address}")
        packet = replace(packet, src=host.nat_address)
    target, link = lan_owner(walk, segment, next_hop, packet.src, 0)
    walk.elapsed += LAN_MS
    if target.nat_address == next_hop and packet.dst == next_hop:
        walk.hop(target.name, f"its NAT passes the answer to {target.underlay()}")
        packet = replace(packet, dst=target.underlay())
    walk.hop(target.name, f"received on {link} from {host.name}")
    return target, packet


def lan_owner(walk: Walk, segment: str, address: IPv4, source: IPv4 | None,
               port: int) -> tuple[Host, str]:
    """The host, and its link, that gets a packet sent on LAN ``segment`` to ``address``;
    a host behind a NAT only for an answer to what it sent (port 0: not UDP)."""
    for host in walk.network.hosts.values():
        if segment == "lan" and host.nat_address == address:
            if source is not None and walk.mapped((host.name, port, source, port)):
                return host, "eth0"
            raise Dropped(Drop(host.name, "eth0", NAT_UNSOLICITED,
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
    raise Dropped(Drop("(LAN)", None, NO_LAN_HOST,
                        f"no host on LAN {segment} has {address}: nobody answers ARP"))
