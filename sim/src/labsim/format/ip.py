"""What `ip -brief addr`, `ip addr show`, `ip -o addr`, `ip link show`, `ip route`,
`ip route get` and `ip rule` of iproute2 6.1 (Debian 12) print.

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
from labsim.net.model import Host, IPv4, Route, Rule


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


def _header(host: Host, name: str, mode: bool = False) -> str:
    kind, up = _kind(host, name), model.link_up(host, name)
    flags = {"loopback": ["LOOPBACK"], "ether": ["BROADCAST", "MULTICAST"],
             "wireguard": ["POINTOPOINT", "NOARP"]}[kind]
    if up:
        flags += ["UP", "LOWER_UP"]
    mtu = link_mtu(host, name)
    qdisc = "noqueue" if name in host.ever_up else "noop"
    if kind == "ether":
        qdisc = "fq_codel"
    index = host.ifindex[name]
    # `ip link` also prints the link mode (print_linkinfo() in ip/ipaddress.c).
    shown_mode = " mode DEFAULT" if mode else ""
    head = (f"{index}: {name}: <{','.join(flags)}> mtu {mtu} qdisc {qdisc} state "
            f"{_state(host, name)}{shown_mode} group default qlen 1000\n")
    if kind == "loopback":
        return head + "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
    if kind == "ether":
        return head + f"    link/ether {host.links[name].mac} brd ff:ff:ff:ff:ff:ff\n"
    return head + "    link/none \n"


def link_mtu(host: Host, name: str) -> int:
    if name in host.mtus:
        return host.mtus[name]
    return {"loopback": 65536, "ether": 1500, "wireguard": 1420}[_kind(host, name)]


def link_show(host: Host, names: list[str]) -> str:
    """`ip link show`: the header of `ip addr show`, with the link mode."""
    return "".join(_header(host, name, mode=True) for name in names)


def _address_blocks(host: Host, name: str, inet6: bool = True) -> list[str]:
    """The lines `ip addr show` prints for each address of a link, one string each."""
    blocks: list[str] = []
    for address, secondary in _inet(host, name):
        scope = "host" if address.ip.is_loopback else "global"
        extra = " secondary" if secondary else ""
        blocks.append(f"    inet {address} scope {scope}{extra} {name}\n"
                      "       valid_lft forever preferred_lft forever\n")
    for address6, scope in _inet6(host, name) if inet6 else []:
        blocks.append(f"    inet6 {address6} scope {scope} \n"
                      "       valid_lft forever preferred_lft forever\n")
    return blocks


def addr_show(host: Host, names: list[str]) -> str:
    """`ip addr show`: a block per link."""
    return "".join(_header(host, name) + "".join(_address_blocks(host, name))
                   for name in names)


def addr_oneline(host: Host, names: list[str], inet6: bool = True) -> str:
    """`ip -o addr show`: one line per address, "INDEX: NAME" and the address's block of
    `ip addr show` with its inner newlines printed as backslashes (the -oneline mode of
    iproute2's print_addrinfo()). Recorded: "3: wg0    inet 10.0.0.2/24 scope global
    wg0\\       valid_lft forever preferred_lft forever"."""
    lines = []
    for name in names:
        for block in _address_blocks(host, name, inet6):
            lines.append(f"{host.ifindex[name]}: {name}" + block[:-1].replace("\n", "\\")
                         + "\n")
    return "".join(lines)


def _prefix(route: Route) -> str:
    if route.prefix.prefixlen == 0:
        return "default"
    if route.prefix.prefixlen == 32:
        return str(route.prefix.network_address)
    return str(route.prefix)


def table_name(table: int) -> str:
    return model.TABLE_NAMES.get(table, str(table))


def route_show(host: Host, table: int = model.MAIN_TABLE, routes: list[Route] | None = None,
               dev: str | None = None) -> str:
    """`ip route [show table N] [dev DEV]`: one route a line, each ending in a space;
    ``routes`` (default: the whole table) in the table's order. A table that is listed
    on its own is not named on its lines, nor the link a `dev` filter names."""
    lines = []
    for route in routes if routes is not None else model.sorted_routes(host, table):
        shown_dev = "" if dev is not None else f" dev {route.dev}"
        if route.via is not None:
            lines.append(f"{_prefix(route)} via {route.via}{shown_dev} \n")
        elif route.kernel:
            lines.append(f"{_prefix(route)}{shown_dev} proto kernel scope link "
                         f"src {route.src} \n")
        else:
            lines.append(f"{_prefix(route)}{shown_dev} scope link \n")
    return "".join(lines)


def route_get(host: Host, address: IPv4, route: Route | None, mark: int) -> str:
    """`ip route get ADDRESS [mark N]` for a route found (None: a local address): the
    route's gateway, link, table unless main, the source address, the mark if not 0, and
    the cache line. Recorded: "10.99.0.2 dev wg0 table 51820 src 10.0.0.2 uid 0 "."""
    shown_mark = f" mark 0x{mark:x}" if mark else ""
    if route is None:
        return (f"local {address} dev lo table local src {address}{shown_mark} uid 0 \n"
                "    cache <local> \n")
    via = f" via {route.via}" if route.via is not None else ""
    table = f" table {table_name(route.table)}" if route.table != model.MAIN_TABLE else ""
    return (f"{address}{via} dev {route.dev}{table} src {model.source_for(host, route)}"
            f"{shown_mark} uid 0 \n    cache \n")


def _rule(rule: Rule) -> str:
    """One line of `ip rule` (print_rule() in ip/iprule.c): priority, a tab, `not` for an
    inverted rule, the selectors, the table and suppress_prefixlength."""
    words = ["not"] if rule.invert else []
    words.append("from all")
    if rule.fwmark is not None:
        mask = f"/0x{rule.fwmask:x}" if rule.fwmask != 0xFFFFFFFF else ""
        words.append(f"fwmark 0x{rule.fwmark:x}{mask}")
    words.append(f"lookup {table_name(rule.table)}")
    if rule.suppress_prefixlength is not None:
        words.append(f"suppress_prefixlength {rule.suppress_prefixlength}")
    return f"{rule.priority}:\t{' '.join(words)}\n"


def rule_show(host: Host) -> str:
    """`ip rule`: the host's rules in priority order."""
    return "".join(_rule(rule) for rule in host.rules)


RULE_SHOW_IPV6 = "0:\tfrom all lookup local\n32766:\tfrom all lookup main\n"
"""`ip -6 rule`: the model routes no IPv6, so its rules are always the kernel's two."""
