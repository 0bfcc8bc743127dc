"""Hosts, links, addresses and routes: the part of Linux networking the WireGuard lessons use.

A ``Network`` holds named ``Host``s. Each host has a loopback link ``lo`` (127.0.0.1/8), an
ethernet-like link ``eth0`` with an underlay address, and the WireGuard links of its
``WireGuardHost`` (the wg device model: a WireGuard link exists, and is up or down, exactly
when ``host.wireguard.interfaces`` says so, so `wg` and `ip` act on one state).

The underlay is one flat LAN: every host's ``eth0`` is on the same segment, and a host
reaches another by its underlay address directly (no routers, no ARP timing). A host may sit
behind a NAT (``Host.nat_address``): the others then see its UDP traffic coming from that
public address, and can only answer it (see ``labsim.net.delivery``).

Routes live in the main table, IPv4 only (what `ip route` shows). As in Linux, adding an
address to an up link adds its connected route ("proto kernel scope link src ADDR"), bringing
a link up adds the connected routes of its addresses, and taking it down or deleting it
removes every route through it (fib_disable_ip() in net/ipv4/fib_frontend.c flushes them).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from labsim.wg.device import WireGuardHost, add_interface, remove_interface, set_link_up

IPv4 = ipaddress.IPv4Address
Net4 = ipaddress.IPv4Network

UNDERLAY = Net4("192.168.50.0/24")
"""The flat LAN every host's eth0 is on, unless a host is given another address."""
FIRST_UNDERLAY_HOST = 10
"""The first host added gets 192.168.50.10, the next .11, and so on."""

# Error texts, as iproute2 6.1 (Debian 12) prints them; recorded in tests/unit/test_net_*.py.
FILE_EXISTS = "RTNETLINK answers: File exists"
ADDRESS_ASSIGNED = "Error: ipv4: Address already assigned."
INVALID_GATEWAY = "Error: Nexthop has invalid gateway."
INVALID_PREFIX = "Error: Invalid prefix for given prefix length."
NOT_SUPPORTED = "RTNETLINK answers: Operation not supported"
NO_SUCH_PROCESS = "RTNETLINK answers: No such process"


class NetError(Exception):
    """A change the kernel or `ip` refuses: ``message`` is what `ip` prints, ``status`` its
    exit status (1 for errors `ip` finds itself, 2 for ones the kernel answers)."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.message = message
        self.status = status


def no_device(name: str) -> NetError:
    return NetError(f'Cannot find device "{name}"', 1)


@dataclass
class Link:
    """A link that is not WireGuard: ``kind`` is "loopback" or "ether"."""

    name: str
    kind: str
    up: bool = True
    mac: str = "00:00:00:00:00:00"
    # The LAN segment an ethernet link is plugged into: links on one segment reach each
    # other directly. Every eth0 is on "lan", the flat underlay.
    segment: str = "lan"


@dataclass(frozen=True)
class Route:
    """A route of the main table. Connected routes (added by the kernel for an address) have
    ``kernel`` set and ``src`` the address; routes from `ip route add` have neither."""

    prefix: Net4
    dev: str
    via: IPv4 | None = None
    kernel: bool = False
    src: IPv4 | None = None


@dataclass
class Host:
    name: str
    wireguard: WireGuardHost
    links: dict[str, Link] = field(default_factory=dict)
    # Addresses in the order they were added, each with its link: (dev, address/prefix).
    addresses: list[tuple[str, ipaddress.IPv4Interface]] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    # ifindex of every link, WireGuard ones included; never reused, as in the kernel.
    ifindex: dict[str, int] = field(default_factory=dict)
    next_ifindex: int = 1
    # Links that have been up at least once: their qdisc stays attached (ip shows "noqueue"
    # instead of "noop" for a WireGuard link once it has been up).
    ever_up: set[str] = field(default_factory=set)
    # net.ipv4.ip_forward as written (the kernel keeps the integer; nonzero forwards).
    ip_forward: int = 0
    # Outgoing links of `iptables -t nat -A POSTROUTING -o IF -j MASQUERADE` rules, in order.
    masquerade: list[str] = field(default_factory=list)
    # The public address of the NAT this host is behind, or None if it is on the LAN itself.
    nat_address: IPv4 | None = None

    def underlay(self) -> IPv4:
        """The host's own address on the LAN (its first eth0 address)."""
        return next(a.ip for dev, a in self.addresses if dev == "eth0")


@dataclass
class Network:
    hosts: dict[str, Host] = field(default_factory=dict)
    # NAT mappings, (host behind NAT, its port, remote address, remote port) -> when the host
    # last sent through it: the NAT lets answers from that remote back in for a while
    # (``labsim.net.delivery.NAT_TIMEOUT``).
    nat_mappings: dict[tuple[str, int, IPv4, int], float] = field(default_factory=dict)


def add_host(network: Network, name: str, underlay: str | None = None,
             wireguard: WireGuardHost | None = None, nat_address: str | None = None,
             segment: str = "lan") -> Host:
    """A new host with lo and eth0 up; eth0 is on LAN ``segment`` and gets ``underlay``
    (address/prefix) or the next free address of 192.168.50.0/24. ``wireguard`` is the
    host's WireGuard state (a new one, seeded from the host's position, when not given).
    With ``nat_address``, the host is behind a NAT with that public address."""
    if name in network.hosts:
        raise ValueError(f"host {name} exists already")
    position = len(network.hosts)
    if wireguard is None:
        wireguard = WireGuardHost(seed=position)
    host = Host(name, wireguard, nat_address=IPv4(nat_address) if nat_address else None)
    _new_link(host, Link("lo", "loopback"))
    # QEMU's locally administered prefix, as on the lab VM; the rest is the host's position.
    _new_link(host, Link("eth0", "ether", mac=f"52:54:00:12:34:{0x56 + position:02x}",
                         segment=segment))
    add_address(host, "lo", "127.0.0.1/8")
    if underlay is None:
        address = UNDERLAY.network_address + FIRST_UNDERLAY_HOST + position
        underlay = f"{address}/{UNDERLAY.prefixlen}"
    add_address(host, "eth0", underlay)
    network.hosts[name] = host
    return host


def add_ether_link(host: Host, name: str, segment: str, address: str | None = None) -> Link:
    """Another ethernet link, up, plugged into LAN ``segment`` (a second network behind a
    gateway, say), with ``address`` (address/prefix) if given."""
    if has_link(host, name):
        raise NetError(FILE_EXISTS)
    position = host.next_ifindex
    link = Link(name, "ether", mac=f"52:54:00:ab:{len(host.name) % 256:02x}:{position:02x}",
                segment=segment)
    _new_link(host, link)
    if address is not None:
        add_address(host, name, address)
    return link


def _new_link(host: Host, link: Link) -> None:
    host.links[link.name] = link
    _index(host, link.name)
    if link.up:
        host.ever_up.add(link.name)


def _index(host: Host, name: str) -> int:
    if name not in host.ifindex:
        host.ifindex[name] = host.next_ifindex
        host.next_ifindex += 1
    return host.ifindex[name]


def link_names(host: Host) -> list[str]:
    """Every link of the host in ifindex order. WireGuard interfaces made directly in the wg
    model (not with `ip link add`) get their ifindex here, the first time they are seen."""
    for name in host.wireguard.interfaces:
        _index(host, name)
    names = list(host.links) + [n for n in host.wireguard.interfaces if n not in host.links]
    return sorted(names, key=lambda n: host.ifindex[n])


def has_link(host: Host, name: str) -> bool:
    return name in host.links or name in host.wireguard.interfaces


def is_wireguard(host: Host, name: str) -> bool:
    return name in host.wireguard.interfaces


def link_up(host: Host, name: str) -> bool:
    if name in host.links:
        return host.links[name].up
    iface = host.wireguard.interfaces.get(name)
    return iface is not None and iface.up


def add_wireguard_link(host: Host, name: str) -> None:
    """`ip link add NAME type wireguard`."""
    if has_link(host, name):
        raise NetError(FILE_EXISTS)
    add_interface(host.wireguard, name)
    _index(host, name)


def delete_link(host: Host, name: str) -> None:
    """`ip link del NAME`: only WireGuard links can go (lo and eth0 are not virtual)."""
    if not has_link(host, name):
        raise no_device(name)
    if not is_wireguard(host, name):
        raise NetError(NOT_SUPPORTED)
    remove_interface(host.wireguard, name)
    host.addresses = [(dev, a) for dev, a in host.addresses if dev != name]
    host.routes = [r for r in host.routes if r.dev != name]
    host.ever_up.discard(name)
    host.ifindex.pop(name, None)


def set_link(host: Host, name: str, up: bool) -> None:
    """`ip link set NAME up|down`."""
    if not has_link(host, name):
        raise no_device(name)
    was_up = link_up(host, name)
    if is_wireguard(host, name):
        set_link_up(host.wireguard, name, up)
    else:
        host.links[name].up = up
    if up and not was_up:
        host.ever_up.add(name)
        for dev, address in host.addresses:
            if dev == name:
                _add_connected(host, dev, address)
    elif not up:
        host.routes = [r for r in host.routes if r.dev != name]


def add_address(host: Host, dev: str, text: str) -> ipaddress.IPv4Interface:
    """`ip addr add A/N dev DEV` (an address without /N is a /32)."""
    if not has_link(host, dev):
        raise no_device(dev)
    address = ipaddress.IPv4Interface(text)
    if any(a == address and d == dev for d, a in host.addresses):
        raise NetError(ADDRESS_ASSIGNED)
    host.addresses.append((dev, address))
    if link_up(host, dev):
        _add_connected(host, dev, address)
    return address


def _add_connected(host: Host, dev: str, address: ipaddress.IPv4Interface) -> None:
    # A /32 has no prefix route; lo's addresses go to the local table, which `ip route`
    # does not show.
    if address.network.prefixlen == 32 or dev == "lo":
        return
    route = Route(address.network, dev, kernel=True, src=address.ip)
    if not any(r.prefix == route.prefix and r.dev == dev for r in host.routes):
        host.routes.append(route)


def add_route(host: Host, prefix: str, dev: str | None = None, via: str | None = None) -> Route:
    """`ip route add PREFIX dev DEV` or `... via GW [dev DEV]`."""
    try:
        network = Net4("0.0.0.0/0" if prefix == "default" else prefix)
    except ValueError:
        if "/" in prefix:
            raise NetError(INVALID_PREFIX) from None
        raise
    gateway = IPv4(via) if via is not None else None
    if dev is not None and not has_link(host, dev):
        raise no_device(dev)
    if gateway is not None:
        # The gateway must be on a connected network (fib_check_nh() in fib_semantics.c).
        on_link = [r for r in host.routes if r.via is None and gateway in r.prefix
                   and (dev is None or r.dev == dev)]
        if not on_link:
            raise NetError(INVALID_GATEWAY)
        dev = dev or max(on_link, key=lambda r: r.prefix.prefixlen).dev
    if dev is None:
        raise NetError("RTNETLINK answers: No such device")
    if not link_up(host, dev):
        raise NetError("Error: Device for nexthop is not up.")
    if any(r.prefix == network for r in host.routes):
        raise NetError(FILE_EXISTS)
    route = Route(network, dev, via=gateway)
    host.routes.append(route)
    return route


def delete_route(host: Host, prefix: str) -> None:
    """`ip route del PREFIX`: the first route to exactly that prefix."""
    network = Net4("0.0.0.0/0" if prefix == "default" else prefix, strict=False)
    for route in host.routes:
        if route.prefix == network:
            host.routes.remove(route)
            return
    raise NetError(NO_SUCH_PROCESS)


def sorted_routes(host: Host) -> list[Route]:
    """The main table in the order `ip route` lists it: by network address, and of routes
    to one address the longest prefix first (the kernel walks its trie in key order, and a
    leaf keeps its prefixes longest first: fib_insert_alias() in fib_trie.c). Recorded:
    0.0.0.0/1 before default, 10.0.0.0/24 before 10.0.0.0/16 before 10.0.0.0/8."""
    return sorted(host.routes,
                  key=lambda r: (int(r.prefix.network_address), -r.prefix.prefixlen))


def lookup_route(routes: list[Route], address: IPv4) -> Route | None:
    """The route the kernel picks for ``address``: the longest matching prefix; of equal
    ones, the first added (they would differ by metric, which the model does not set)."""
    best: Route | None = None
    for route in routes:
        if address in route.prefix and (best is None
                                        or route.prefix.prefixlen > best.prefix.prefixlen):
            best = route
    return best


def local_addresses(host: Host) -> list[IPv4]:
    """Addresses the host answers on: those of its up links (and all of 127/8 on lo)."""
    return [a.ip for dev, a in host.addresses if link_up(host, dev)]


def is_local(host: Host, address: IPv4) -> bool:
    if address in Net4("127.0.0.0/8"):
        return link_up(host, "lo")
    return address in local_addresses(host)


def source_for(host: Host, route: Route) -> IPv4 | None:
    """The source address of a packet the host sends by ``route`` (inet_select_addr()): the
    route's preferred source, else the first address of its link, else any address."""
    if route.src is not None:
        return route.src
    for dev, address in host.addresses:
        if dev == route.dev:
            return address.ip
    for dev, address in host.addresses:
        if dev != "lo":
            return address.ip
    return None


def set_ip_forward(host: Host, value: int) -> None:
    host.ip_forward = value


def add_masquerade(host: Host, dev: str) -> None:
    """`iptables -t nat -A POSTROUTING -o DEV -j MASQUERADE` (DEV need not exist yet)."""
    host.masquerade.append(dev)
