"""What `ip -brief addr`, `ip addr show` and `ip route` of iproute2 6.1 (Debian 12) print.

Recorded from the real tools (tests/unit/test_net_commands.py names the versions). A
WireGuard link is shown as the kernel module makes it (the lab VM runs kernel WireGuard):
flags POINTOPOINT,NOARP, mtu 1420, qdisc noqueue once it has been up, qlen 1000, link/none
and no IPv6 link-local address (the kernel generates none for a link without a hardware
address). wireguard-go's tun device, which the recordings had to use, differs in exactly
those details (MULTICAST, pfifo_fast, qlen 500, an fe80:: address): the tests say which
lines were adjusted. eth0 is shown as the VM's virtio NIC (qdisc fq_codel, Debian's
default_qdisc); the recordings had veth pairs, shown as eth0@ifN.
"""

from __future__ import annotations

import ipaddress

from labsim.net import model
from labsim.net.model import Host, Route


def _kind(host: Host, name: str) -> str:
    return "wireguard" if model.is_wireguard(host, name) else host.links[name].kind


def _state(host: Host, name: str) -> str:
    if not model.link_up(host, name):
        return "DOWN"
    return "UP" if _kind(host, name) == "ether" else "UNKNOWN"


def _inet(host: Host, name: str) -> list[tuple[ipaddress.IPv4Interface, bool]]:
    """The link's IPv4 addresses, each with whether it is a secondary (an earlier address of
    the link is in the same subnet), primaries first as the kernel lists them."""
    seen: list[ipaddress.IPv4Network] = []
    result = []
    for dev, address in host.addresses:
        if dev != name:
            continue
        secondary = address.network in seen
        seen.append(address.network)
        result.append((address, secondary))
    return [r for r in result if not r[1]] + [r for r in result if r[1]]


def _inet6(host: Host, name: str) -> list[tuple[str, str]]:
    """IPv6 addresses (text, scope): ::1 on lo and the EUI-64 link-local address on an
    ethernet link, while the link is up (IPv6 drops them when it goes down)."""
    if not model.link_up(host, name):
        return []
    kind = _kind(host, name)
    if kind == "loopback":
        return [("::1/128", "host")]
    if kind == "ether":
        octets = [int(part, 16) for part in host.links[name].mac.split(":")]
        octets[0] ^= 0x02
        eui = octets[:3] + [0xFF, 0xFE] + octets[3:]
        address = ipaddress.IPv6Address(bytes([0xFE, 0x80] + [0] * 6 + eui))
        return [(f"{address}/64", "link")]
    return []


def brief_addr(host: Host, names: list[str]) -> str:
    """`ip -brief addr`: name, state, then every address and a space."""
    lines = []
    for name in names:
        addresses = [str(a) for a, _ in _inet(host, name)] + [a for a, _ in _inet6(host, name)]
        shown = "".join(f"{a} " for a in addresses)
        lines.append(f"{name:<16} {_state(host, name):<14} {shown}\n")
    return "".join(lines)


def _header(host: Host, name: str) -> str:
    kind, up = _kind(host, name), model.link_up(host, name)
    flags = {"loopback": ["LOOPBACK"], "ether": ["BROADCAST", "MULTICAST"],
             "wireguard": ["POINTOPOINT", "NOARP"]}[kind]
    if up:
        flags += ["UP", "LOWER_UP"]
    mtu = {"loopback": 65536, "ether": 1500, "wireguard": 1420}[kind]
    qdisc = "noqueue" if name in host.ever_up else "noop"
    if kind == "ether":
        qdisc = "fq_codel"
    index = host.ifindex[name]
    head = (f"{index}: {name}: <{','.join(flags)}> mtu {mtu} qdisc {qdisc} state "
            f"{_state(host, name)} group default qlen 1000\n")
    if kind == "loopback":
        return head + "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
    if kind == "ether":
        return head + f"    link/ether {host.links[name].mac} brd ff:ff:ff:ff:ff:ff\n"
    return head + "    link/none \n"


def addr_show(host: Host, names: list[str]) -> str:
    """`ip addr show`: a block per link."""
    out = []
    for name in names:
        out.append(_header(host, name))
        for address, secondary in _inet(host, name):
            scope = "host" if address.ip.is_loopback else "global"
            extra = " secondary" if secondary else ""
            out.append(f"    inet {address} scope {scope}{extra} {name}\n"
                       "       valid_lft forever preferred_lft forever\n")
        for address, scope in _inet6(host, name):
            out.append(f"    inet6 {address} scope {scope} \n"
                       "       valid_lft forever preferred_lft forever\n")
    return "".join(out)


def _prefix(route: Route) -> str:
    if route.prefix.prefixlen == 0:
        return "default"
    if route.prefix.prefixlen == 32:
        return str(route.prefix.network_address)
    return str(route.prefix)


def route_show(host: Host) -> str:
    """`ip route`: the main table, one route a line, each ending in a space."""
    lines = []
    for route in model.sorted_routes(host):
        if route.via is not None:
            lines.append(f"{_prefix(route)} via {route.via} dev {route.dev} \n")
        elif route.kernel:
            lines.append(f"{_prefix(route)} dev {route.dev} proto kernel scope link "
                         f"src {route.src} \n")
        else:
            lines.append(f"{_prefix(route)} dev {route.dev} scope link \n")
    return "".join(lines)
