"""Hosts, links, addresses and routes: the part of Linux networking the WireGuard lessons use.

A ``Network`` holds named ``Host``s. Each host has a loopback link ``lo`` (127.0.0.1/8), an
ethernet-like link ``eth0`` with an underlay address, and the WireGuard links of its
``WireGuardHost`` (the wg device model: a WireGuard link exists, and is up or down, exactly
when ``host.wireguard.interfaces`` says so, so `wg` and `ip` act on one state).

The underlay is made of LAN segments: ``eth0`` is on "lan" unless told otherwise, more
ethernet links join other segments (``add_ether_link``), and a host reaches another on its
segment by its address directly (no ARP timing). A host with links on two segments, IP
forwarding and a MASQUERADE rule is a router with NAT; a host may also sit behind an
implicit NAT (``Host.nat_address``): either way the others see its UDP traffic coming from
the NAT's address, and can only answer it (see ``labsim.net.delivery``). Each host can run
an HTTP server (``start_http_server``), which `curl` reaches through the model.

Routes are IPv4 only. Each belongs to a routing table by number: the main table (254, what
`ip route` shows) unless `ip route add ... table N` put it elsewhere, as wg-quick does with
AllowedIPs = 0.0.0.0/0 (table 51820). As in Linux, adding an address to an up link adds its
connected route to main ("proto kernel scope link src ADDR"), bringing a link up adds the
connected routes of its addresses, and taking it down or deleting it removes every route
through it, in every table (fib_disable_ip() in net/ipv4/fib_frontend.c flushes them).

Which table a packet is routed by is decided by the policy routing rules (`ip rule`,
net/core/fib_rules.c and net/ipv4/fib_rules.c): tried in priority order, each may select
packets by their fwmark (``not`` inverts the selection) and names a table; the first table
with a matching route wins, unless the rule's suppress_prefixlength rejects that route (a
route whose prefix is that long or shorter). A host starts with the kernel's three rules
(0 local, 32766 main, 32767 default). WireGuard's own UDP datagrams carry the interface's
fwmark (``Interface.fwmark``, `wg set wg0 fwmark N`), which is how wg-quick's
`not fwmark 51820 table 51820` sends everything into the tunnel except the tunnel itself.

Local addresses are delivered before the rules are read (the model's stand-in for rule 0
and the local table, which nobody changes in the lessons).

Firewall rules are kept as iptables-save prints them (``Host.firewall``), and the tables `nft`
made as labsim.net.nftables keeps them (``Host.nf_tables``); only MASQUERADE (and, for ssh, a
DROP of DNS) changes what the model delivers. Whether the hosts have `nft` at all is the
network's ``firewall_backend``, which decides how wg-quick writes its rules.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Literal

from labsim.net.nftables import Ruleset
from labsim.wg.device import WireGuardHost, add_interface, remove_interface, set_link_up

IPv4 = ipaddress.IPv4Address
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
"""An address a WireGuard endpoint may have (wg set accepts both); the network is IPv4."""
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
NO_SUCH_FILE = "RTNETLINK answers: No such file or directory"
NO_SUCH_TABLE = "Error: FIB table does not exist."
NETWORK_UNREACHABLE = "RTNETLINK answers: Network is unreachable"

# Routing tables by number, and the names iproute2 prints for the reserved ones
# (/etc/iproute2/rt_tables; include/uapi/linux/rtnetlink.h enum rt_class_t).
DEFAULT_TABLE = 253
MAIN_TABLE = 254
LOCAL_TABLE = 255
TABLE_NAMES = {DEFAULT_TABLE: "default", MAIN_TABLE: "main", LOCAL_TABLE: "local"}


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
    """A route of routing table ``table``. Connected routes (added by the kernel for an
    address) have ``kernel`` set and ``src`` the address; routes from `ip route add` have
    neither."""

    prefix: Net4
    dev: str
    via: IPv4 | None = None
    kernel: bool = False
    src: IPv4 | None = None
    table: int = MAIN_TABLE


@dataclass(frozen=True)
class Rule:
    """A policy routing rule (struct fib_rule): packets whose fwmark matches (all packets
    when ``fwmark`` is None; ``invert`` is iproute2's `not`) look up ``table``. A route found
    there whose prefix length is at most ``suppress_prefixlength`` is ignored, and the next
    rule tried (fib4_rule_suppress() in net/ipv4/fib_rules.c)."""

    priority: int
    table: int
    fwmark: int | None = None
    fwmask: int = 0xFFFFFFFF
    invert: bool = False
    suppress_prefixlength: int | None = None

    def selects(self, mark: int) -> bool:
        """fib_rule_match(): the fwmark selector, inverted by FIB_RULE_INVERT."""
        matched = self.fwmark is None or (mark ^ self.fwmark) & self.fwmask == 0
        return matched != self.invert


DEFAULT_RULES = (Rule(0, LOCAL_TABLE), Rule(32766, MAIN_TABLE), Rule(32767, DEFAULT_TABLE))
"""The rules every network namespace starts with (fib_default_rules_init())."""

SYSCTL_DEFAULTS = {"net.ipv4.conf.all.src_valid_mark": 0}
"""The sysctls the model keeps besides ip_forward, with their defaults. src_valid_mark=1
(set by wg-quick) lets the reverse-path filter use a packet's fwmark; the model has no
reverse-path filter, so the value is only stored and read back."""

FIREWALL_CHAINS = {
    "mangle": ("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"),
    "raw": ("PREROUTING", "OUTPUT"),
    "filter": ("INPUT", "FORWARD", "OUTPUT"),
    "nat": ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"),
}
"""The built-in chains of each iptables table, in the order iptables lists them; the tables
in the order iptables-save prints them (enum nft_table_type in iptables/nft.h: mangle,
security, raw, filter, nat)."""


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
    # iptables rules, as iptables-save prints them without "-A CHAIN ": table -> chain ->
    # rules in order. A table is listed once something has put a rule in it.
    firewall: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # Every nf_tables table in the order it was made (iptables-nft's, whose rules are in
    # ``firewall``, and nft's, with their chains and rules): labsim.net.nftables.
    nf_tables: Ruleset = field(default_factory=Ruleset)
    # Routing tables that exist: main and local always, another once a route is added to it
    # (it stays when its last route goes, as in the kernel).
    tables: set[int] = field(default_factory=lambda: {MAIN_TABLE, LOCAL_TABLE})
    rules: list[Rule] = field(default_factory=lambda: list(DEFAULT_RULES))
    sysctls: dict[str, int] = field(default_factory=lambda: dict(SYSCTL_DEFAULTS))
    # TCP ports an HTTP server listens on (``start_http_server``).
    http_ports: set[int] = field(default_factory=set)
    # Whether Debian's openssh-server runs sshd here as the package starts it (every host of
    # a page); a netkit lab host (a namespace) runs none until its script starts one
    # (labsim.shell.commands.sshd).
    package_sshd: bool = True
    # MTUs set with `ip link set mtu N` (a link not named here has its kind's default).
    mtus: dict[str, int] = field(default_factory=dict)
    # The public address of the NAT this host is behind, or None if it is on the LAN itself.
    nat_address: IPv4 | None = None

    def underlay(self) -> IPv4:
        """The host's own address on the LAN (its first eth0 address)."""
        return next(a.ip for dev, a in self.addresses if dev == "eth0")


@dataclass
class HostFiles:
    """A host's own files as its shell sessions keep them (labsim.shell.base: path ->
    HostFile, and the directories that exist). Every session of one host shares them (a
    page's setup line and its terminal are two sessions), and a command on one host can
    read another host's (ssh reads the server's sshd_config and /etc/hosts)."""

    files: dict = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)


class FirewallBackend(Enum):
    """Whether the machine has `nft` (the nftables package), which decides how wg-quick
    installs and removes its firewall rules for a default route: add_default() and
    remove_firewall() in wireguard-tools' src/wg-quick/linux.bash test `type -p nft`, and
    with nft write a table of their own (`nft -f`, table ip wg-quick-IF, see
    labsim.net.nftables), without it rules in iptables' raw and mangle tables
    (`iptables-restore -n`, ip6tables-restore for IPv6). The lab VM has nftables (Debian
    13's default firewall; Debian 12 installs it as a recommendation of wireguard-tools), so
    NFT is the default; a machine with only the iptables package is IPTABLES. Either way
    iptables itself is there (iptables-nft), and without nft a command `nft` is not
    found."""

    NFT = "nft"
    IPTABLES = "iptables"


WireGuardImplementation = Literal["kernel", "go"]
"""Which WireGuard the hosts of a network run: the Linux module ("kernel", as on the lab VM
and a learner's Linux) or wireguard-go ("go", on a tun device, as on a machine without the
module). They differ in what they do with a packet they cannot send, in what they count,
and in when they send a keepalive (``labsim.net.delivery`` says where and why)."""


@dataclass
class Network:
    hosts: dict[str, Host] = field(default_factory=dict)
    wireguard_implementation: WireGuardImplementation = "kernel"
    # Whether the hosts have nft (every host of a network runs the same machine image, and
    # netkit's namespaces share one machine's programs).
    firewall_backend: FirewallBackend = FirewallBackend.NFT
    # Each host's files, by host name (registered by the host's first shell session).
    files: dict[str, HostFiles] = field(default_factory=dict)
    # NAT mappings, (host behind NAT, its port, remote address, remote port) -> when the host
    # last sent through it: the NAT lets answers from that remote back in for a while
    # (``labsim.net.trace.NAT_TIMEOUT``).
    nat_mappings: dict[tuple[str, int, Address, int], float] = field(default_factory=dict)
    # UDP mappings of hosts that MASQUERADE (a router with `iptables -t nat -A POSTROUTING
    # -o IF -j MASQUERADE`): (router, port, remote address, remote port) -> (the address
    # behind the router that sent from that port, when it last did).
    masquerade_mappings: dict[tuple[str, int, Address, int], tuple[IPv4, float]] = field(
        default_factory=dict)
    # ICMP redirects a host sent, by (host, the source address of the packets redirected)
    # -> (how many in a row, when the last was sent): the kernel's rate limit (inet_peer's
    # n_redirects and rate_last, ip_rt_send_redirect() in net/ipv4/route.c).
    redirects: dict[tuple[str, IPv4], tuple[int, float]] = field(default_factory=dict)
    # Packets wireguard-go holds for a peer it cannot send to yet (no endpoint, or no
    # session): its staged queue (peer.queue.staged), sent once a session exists
    # (``labsim.net.trace.StagedPacket``).
    staged: list = field(default_factory=list)


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
    host.mtus.pop(name, None)


# Largest MTU of each kind of link: a veth takes up to 65535 (ETH_MAX_MTU); WireGuard's
# max_mtu is SKB_MAX_MTU minus its overhead (drivers/net/wireguard/device.c, wg_setup()),
# more than any lab needs, so the model stops at the same 65535. The minimum is ETH_MIN_MTU.
MIN_MTU, MAX_MTU = 68, 65535


def set_mtu(host: Host, name: str, mtu: int) -> None:
    """`ip link set NAME mtu N`."""
    if not has_link(host, name):
        raise no_device(name)
    if not MIN_MTU <= mtu <= MAX_MTU:
        raise NetError("Error: mtu less than device minimum." if mtu < MIN_MTU
                       else "Error: mtu greater than device maximum.")
    host.mtus[name] = mtu


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


def add_route(host: Host, prefix: str, dev: str | None = None, via: str | None = None,
              table: int = MAIN_TABLE) -> Route:
    """`ip route add PREFIX dev DEV [table N]` or `... via GW [dev DEV] [table N]`."""
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
                   and (dev is None or r.dev == dev) and r.table in (table, MAIN_TABLE)]
        if not on_link:
            raise NetError(INVALID_GATEWAY)
        dev = dev or max(on_link, key=lambda r: r.prefix.prefixlen).dev
    if dev is None:
        raise NetError("RTNETLINK answers: No such device")
    if not link_up(host, dev):
        raise NetError("Error: Device for nexthop is not up.")
    if any(r.prefix == network and r.table == table for r in host.routes):
        raise NetError(FILE_EXISTS)
    route = Route(network, dev, via=gateway, table=table)
    host.routes.append(route)
    # fib_new_table(): the first route into a table makes it.
    host.tables.add(table)
    return route


def delete_route(host: Host, prefix: str, dev: str | None = None,
                 table: int = MAIN_TABLE) -> None:
    """`ip route del PREFIX [dev DEV] [table N]`: the first route of the table to exactly
    that prefix (and through DEV, if given)."""
    if table not in host.tables:
        raise NetError(NO_SUCH_TABLE)
    network = Net4("0.0.0.0/0" if prefix == "default" else prefix, strict=False)
    for route in host.routes:
        if route.prefix == network and route.table == table and dev in (None, route.dev):
            host.routes.remove(route)
            return
    raise NetError(NO_SUCH_PROCESS)


def sorted_routes(host: Host, table: int = MAIN_TABLE) -> list[Route]:
    """A table in the order `ip route` lists it: by network address, and of routes to one
    address the longest prefix first (the kernel walks its trie in key order, and a leaf
    keeps its prefixes longest first: fib_insert_alias() in fib_trie.c). Recorded:
    0.0.0.0/1 before default, 10.0.0.0/24 before 10.0.0.0/16 before 10.0.0.0/8."""
    return sorted((r for r in host.routes if r.table == table),
                  key=lambda r: (int(r.prefix.network_address), -r.prefix.prefixlen))


def lookup_route(routes: list[Route], address: IPv4) -> Route | None:
    """The route of ``routes`` (one table) the kernel picks for ``address``: the longest
    matching prefix; of equal ones, the first added (they would differ by metric, which the
    model does not set)."""
    best: Route | None = None
    for route in routes:
        if address in route.prefix and (best is None
                                        or route.prefix.prefixlen > best.prefix.prefixlen):
            best = route
    return best


def route_for(host: Host, address: IPv4, mark: int = 0) -> Route | None:
    """The route a packet to ``address`` with fwmark ``mark`` takes: the rules in priority
    order (fib_rules_lookup()), each looking up its table if it selects the packet; a
    table that does not exist or has no matching route passes to the next rule, and so
    does a route the rule's suppress_prefixlength rejects. None: no route
    (ENETUNREACH)."""
    for rule in host.rules:
        if rule.table == LOCAL_TABLE or rule.table not in host.tables:
            continue
        if not rule.selects(mark):
            continue
        route = lookup_route([r for r in host.routes if r.table == rule.table], address)
        if route is None:
            continue
        if (rule.suppress_prefixlength is not None
                and route.prefix.prefixlen <= rule.suppress_prefixlength):
            continue
        return route
    return None


def table_exists(host: Host, table: int) -> bool:
    return table in host.tables


def add_rule(host: Host, rule: Rule, priority_given: bool) -> Rule:
    """`ip rule add ...`. Without a priority the kernel gives the new rule one less than the
    second rule's, or 0 (fib_default_rule_pref() in net/core/fib_rules.c): 32765, 32764, ...
    as long as the local rule is first. An identical rule at the same priority is refused
    (rule_exists(), iproute2 asks with NLM_F_EXCL). The rule goes after every rule of
    lower or equal priority (fib_nl_newrule())."""
    if not priority_given:
        second = host.rules[1].priority if len(host.rules) > 1 else 0
        rule = replace(rule, priority=second - 1 if second else 0)
    if rule in host.rules:
        raise NetError(FILE_EXISTS)
    position = sum(1 for r in host.rules if r.priority <= rule.priority)
    host.rules.insert(position, rule)
    return rule


def delete_rule(host: Host, *, priority: int | None = None, table: int | None = None,
                fwmark: int | None = None, suppress_prefixlength: int | None = None) -> Rule:
    """`ip rule del ...`: the first rule, in priority order, that has every attribute given
    (rule_find() in net/core/fib_rules.c compares only those; `not` is not compared)."""
    for rule in host.rules:
        if ((priority is None or rule.priority == priority)
                and (table is None or rule.table == table)
                and (fwmark is None or rule.fwmark == fwmark)
                and (suppress_prefixlength is None
                     or rule.suppress_prefixlength == suppress_prefixlength)):
            host.rules.remove(rule)
            return rule
    raise NetError(NO_SUCH_FILE)


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


def set_sysctl(host: Host, key: str, value: int) -> None:
    """One of SYSCTL_DEFAULTS' keys (net.ipv4.ip_forward has its own field)."""
    if key not in host.sysctls:
        raise KeyError(key)
    host.sysctls[key] = value


def nft_installed(network: Network) -> bool:
    """`type -p nft` on the network's hosts."""
    return network.firewall_backend is FirewallBackend.NFT


def _firewall_table(host: Host, table: str) -> dict[str, list[str]]:
    """An iptables table, made (by iptables-nft, as nf_tables table ip TABLE) if it does
    not exist yet."""
    if table not in host.firewall:
        host.firewall[table] = {}
        host.nf_tables.order.append(("ip", table))
    return host.firewall[table]


def firewall_rules(host: Host, table: str, chain: str) -> list[str]:
    """The rules of an iptables chain, as iptables-save prints them after "-A CHAIN "; a
    table that did not exist is made (call this only to add a rule)."""
    return _firewall_table(host, table).setdefault(chain, [])


def set_firewall_rules(host: Host, table: str, chains: dict[str, list[str]]) -> None:
    """Every chain of an iptables table at once (what iptables-restore commits)."""
    _firewall_table(host, table)
    host.firewall[table] = chains


def add_masquerade(host: Host, dev: str) -> None:
    """`iptables -t nat -A POSTROUTING -o DEV -j MASQUERADE` (DEV need not exist yet)."""
    firewall_rules(host, "nat", "POSTROUTING").append(f"-o {dev} -j MASQUERADE")


def masquerade_links(host: Host) -> list[str]:
    """The outgoing links of the nat table's `-o DEV -j MASQUERADE` rules, in order. The
    other rules the model stores (wg-quick's raw and mangle rules) change nothing in it."""
    links = []
    for rule in host.firewall.get("nat", {}).get("POSTROUTING", []):
        words = rule.split()
        if len(words) == 4 and words[0] == "-o" and words[2:] == ["-j", "MASQUERADE"]:
            links.append(words[1])
    return links


def start_http_server(network: Network, host_name: str, port: int) -> None:
    """An HTTP server on ``host_name`` listening on TCP ``port`` of every address: it
    answers every GET with "HOST: request from CLIENT_IP\n" (``labsim.net.delivery``)."""
    network.hosts[host_name].http_ports.add(port)
