"""WireGuard lessons W1-W4: follow a ping through a small network, hop by hop.

Three presets, one per lesson, with the hosts and addresses of its lab in labs/net/: two
peers on a LAN (alice and bob, W1, 01-wg-peers); a client that sends everything through a
gateway to a web server on the internet side (W2, 02-wg-gateway); a server with two clients,
client 1 behind its home router's NAT (W3, 03-wg-client-routing, without its wg1; W4
restarts its server, as 04-wg-runtime-peers's restart variant does). The reader edits what
each side lists in AllowedIPs, whether it knows the other side's endpoint,
PersistentKeepalive, forwarding and masquerading on the gateway or server, and whether the
server restarts, and picks the ping to send.

Everything is built the way a learner would build it: the hosts come from labsim.net (their
LAN addresses, the NAT), and then every setting is a command line run in the host's own
labsim Session (`ip`, `wg`, `sysctl`, `iptables`, `ping`), so the transcript is the real
commands and their real output. The ping's trip comes from labsim.net.delivery: each hop,
and where and why the packet was dropped; the diagram draws it (labsim.figures.network_diagram).

The gateway preset and the hub's server are brought up as their labs bring them up: a key
pair (`wg genkey | tee /etc/wireguard/wg0.key | wg pubkey`), a configuration file written
with `tee` with the lab's lines (the private key read by PostUp), and `wg-quick up wg0`, so
the transcript shows wg-quick's `[#]` lines: for the client's 0.0.0.0/0 the fwmark, table
51820 and the two `ip rule`s of add_default() in wireguard-tools' src/wg-quick/linux.bash.
As in lab 02, the client's main table has no default route: with AllowedIPs narrowed to the
tunnel, a request to the internet finds no route at all. The other hosts are set up by hand
(`ip link add`, `wg set`), as lesson W1 does (and as the hub's clients must be for their
keepalive: set on a running interface that has its key, it sends at once; from a file whose
key PostUp loads, it would send nothing, as lab 03 notes); their routes follow wg-quick's
add_route(): each AllowedIPs prefix that no route on wg0 covers yet gets `ip -4 route add
PREFIX dev wg0`, longest prefixes first, and a /0 gets add_default()'s command lines.

The hub preset can restart the server after its clients have connected (`wg-quick down
wg0`, `wg-quick up wg0`, lesson W4): the new interface has the file's peers and nothing it
had learned, and RESTART_WAIT seconds later (past REJECT_AFTER_TIME, when the clients' old
sessions are no longer used either) the pings show who can be reached again.
"""

from __future__ import annotations

import ipaddress
import re
import textwrap
from dataclasses import dataclass, field

from labsim.figures import (
    DiagramLink,
    DiagramMark,
    DiagramMove,
    DiagramNode,
    network_diagram,
)
from labsim.net import delivery
from labsim.net.model import Network, add_ether_link, add_host
from labsim.scenarios import controls
from labsim.scenarios.controls import read_params
from labsim.shell.session import CommandResult, Session
from labsim.wg import quick

PORT = 51820
IFACE = "wg0"
GREEN, RED, GREY = "#009E73", "#D55E00", "#7F7F7F"
LAN_NODE = "LAN"
# Seconds between the server's restart and the pings: past REJECT_AFTER_TIME (180 s) and
# one more keepalive interval of the lesson's 25 s (see _restart_hub).
RESTART_WAIT = 210
NAT_NODE = "NAT router"


@dataclass(frozen=True)
class HostPlan:
    """One host of a preset and where the diagram draws it. ``tunnel`` is its wg0 address
    (None: no WireGuard); ``underlay`` its eth0 address (None: the LAN's next one);
    ``links`` more ethernet links (dev, LAN segment, address); ``setup`` command lines it
    runs first; ``quick``: wg0 comes from /etc/wireguard/wg0.conf and `wg-quick up wg0`
    (otherwise from `ip` and `wg set` by hand)."""

    name: str
    x: float
    y: float
    tunnel: str | None
    underlay: str | None = None
    segment: str = "lan"
    nat_address: str | None = None
    links: tuple[tuple[str, str, str], ...] = ()
    setup: tuple[str, ...] = ()
    quick: bool = False


@dataclass(frozen=True)
class Send:
    """A choice of what to send: pings (from host, to address), in order."""

    value: str
    label: str
    pings: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Preset:
    label: str
    hub: str  # the peer of every client: bob, the gateway, the server
    clients: tuple[str, ...]
    hosts: tuple[HostPlan, ...]
    # LAN segments drawn as switches: segment -> (node name, label, x, y)
    lans: dict[str, tuple[str, str, float, float]]
    sends: tuple[Send, ...]
    defaults: dict[str, object]
    # Control labels for this preset; a control not named here is hidden.
    labels: dict[str, str]
    nat_at: tuple[float, float] | None = None


PRESETS: dict[str, Preset] = {
    "two-peers": Preset(
        label="Two peers: alice and bob on one LAN (W1)",
        hub="bob", clients=("alice",),
        hosts=(HostPlan("alice", 0, 1, "10.0.0.1/24", underlay="192.168.50.10/24"),
               HostPlan("bob", 4, 1, "10.0.0.2/24", underlay="192.168.50.11/24")),
        lans={"lan": (LAN_NODE, "192.168.50.0/24", 2, 0)},
        sends=(
            Send("alice-bob", "alice pings bob (10.0.0.2)", (("alice", "10.0.0.2"),)),
            Send("bob-alice", "bob pings alice (10.0.0.1)", (("bob", "10.0.0.1"),)),
            Send("alice-nobody", "alice pings 10.0.0.3 (no such peer)",
                 (("alice", "10.0.0.3"),)),
            Send("bob-then-alice", "bob pings alice, then alice pings bob",
                 (("bob", "10.0.0.1"), ("alice", "10.0.0.2"))),
        ),
        defaults={"client_allowed_ips": "10.0.0.2/32", "hub_allowed_ips": "10.0.0.1/32",
                  "client_endpoint": True, "hub_endpoint": True, "keepalive": 0,
                  "ip_forward": False, "masquerade": False},
        labels={"client_allowed_ips": "alice's AllowedIPs for bob",
                "hub_allowed_ips": "bob's AllowedIPs for alice",
                "client_endpoint": "alice knows bob's endpoint (192.168.50.11:51820)",
                "hub_endpoint": "bob knows alice's endpoint (192.168.50.10:51820)",
                "keepalive": "PersistentKeepalive on alice (0 = off)"},
    ),
    "gateway": Preset(
        label="Gateway: a client reaches the internet through a VPN gateway (W2)",
        hub="gateway", clients=("client",),
        # As in lab 02: the client's LAN has no default route (its main table has only
        # 192.168.50.0/24), so only the tunnel can take it to the internet.
        hosts=(HostPlan("client", 0, 1, "10.0.0.2/24", underlay="192.168.50.10/24",
                        quick=True),
               HostPlan("gateway", 3, 1, "10.0.0.1/24", underlay="192.168.50.1/24",
                        links=(("eth1", "inet", "198.51.100.1/24"),), quick=True),
               HostPlan("web", 6, 1, None, underlay="198.51.100.80/24", segment="inet")),
        lans={"lan": (LAN_NODE, "192.168.50.0/24", 1.5, 0),
              "inet": ("internet", "198.51.100.0/24", 4.5, 0)},
        sends=(
            Send("client-web", "the client pings the web server (198.51.100.80)",
                 (("client", "198.51.100.80"),)),
            Send("client-gateway", "the client pings the gateway (10.0.0.1)",
                 (("client", "10.0.0.1"),)),
            Send("gateway-client", "the gateway pings the client (10.0.0.2)",
                 (("gateway", "10.0.0.2"),)),
        ),
        defaults={"client_allowed_ips": "0.0.0.0/0", "hub_allowed_ips": "10.0.0.2/32",
                  "client_endpoint": True, "hub_endpoint": False, "keepalive": 0,
                  "ip_forward": True, "masquerade": True},
        labels={"client_allowed_ips": "the client's AllowedIPs for the gateway",
                "hub_allowed_ips": "the gateway's AllowedIPs for the client",
                "client_endpoint": "the client knows the gateway's endpoint",
                "hub_endpoint": "the gateway knows the client's endpoint",
                "keepalive": "PersistentKeepalive on the client (0 = off)",
                "ip_forward": "the gateway forwards (net.ipv4.ip_forward = 1)",
                "masquerade": "the gateway masquerades what leaves by eth1"},
    ),
    "hub": Preset(
        label="Hub: a server and two clients, client 1 behind a NAT router (W3)",
        hub="server", clients=("client1", "client2"),
        hosts=(HostPlan("server", 3, 1.3, "10.0.0.1/24", underlay="192.168.50.1/24",
                        quick=True),
               # client 1's home network: its router is 192.168.60.1 inside and
               # 192.168.50.2 on the LAN (labsim.net models the NAT as Host.nat_address).
               HostPlan("client1", 6.4, 0, "10.0.0.2/24", underlay="192.168.60.10/24",
                        nat_address="192.168.50.2",
                        setup=("ip route add default via 192.168.60.1",)),
               HostPlan("client2", 0, 0, "10.0.0.3/24", underlay="192.168.50.10/24")),
        lans={"lan": (LAN_NODE, "192.168.50.0/24", 3, 0)},
        nat_at=(4.8, 0),
        sends=(
            Send("client2-client1", "client 2 pings client 1 (10.0.0.2)",
                 (("client2", "10.0.0.2"),)),
            Send("client1-client2", "client 1 pings client 2 (10.0.0.3)",
                 (("client1", "10.0.0.3"),)),
            Send("server-client1", "the server pings client 1 (10.0.0.2)",
                 (("server", "10.0.0.2"),)),
            Send("client1-then-client2", "client 1 pings the server, then client 2 pings "
                 "client 1", (("client1", "10.0.0.1"), ("client2", "10.0.0.2"))),
        ),
        defaults={"client_allowed_ips": "10.0.0.0/24", "hub_allowed_ips": "10.0.0.2/32",
                  "client2_allowed_ips": "10.0.0.0/24", "hub2_allowed_ips": "10.0.0.3/32",
                  "client_endpoint": True, "hub_endpoint": False, "keepalive": 25,
                  "ip_forward": True, "masquerade": False, "server_restart": False},
        labels={"client_allowed_ips": "client 1's AllowedIPs for the server",
                "hub_allowed_ips": "the server's AllowedIPs for client 1",
                "client2_allowed_ips": "client 2's AllowedIPs for the server",
                "hub2_allowed_ips": "the server's AllowedIPs for client 2",
                "client_endpoint": "the clients know the server's endpoint",
                "hub_endpoint": "the server knows the clients' endpoints",
                "keepalive": "PersistentKeepalive on client 1, behind NAT (0 = off)",
                "ip_forward": "the server forwards (net.ipv4.ip_forward = 1)",
                "server_restart": "the server restarted (wg-quick down, up) after the "
                                  "clients connected"},
    ),
}
DEFAULT_PRESET = "two-peers"

# The per-preset controls, in the order the widget shows them, with their kind.
_FIELDS = {
    "client_allowed_ips": {"kind": "text"},
    "hub_allowed_ips": {"kind": "text"},
    "client2_allowed_ips": {"kind": "text"},
    "hub2_allowed_ips": {"kind": "text"},
    "client_endpoint": {"kind": "checkbox"},
    "hub_endpoint": {"kind": "checkbox"},
    "keepalive": {"kind": "range", "min": 0, "max": 60, "step": 5, "unit": "s"},
    "ip_forward": {"kind": "checkbox"},
    "masquerade": {"kind": "checkbox"},
    "server_restart": {"kind": "checkbox"},
}


def _controls() -> list[dict]:
    first = PRESETS[DEFAULT_PRESET]
    out: list[dict] = [
        {"name": "preset", "label": "Network", "kind": "select",
         "options": [[k, p.label] for k, p in PRESETS.items()], "default": DEFAULT_PRESET},
        {"name": "send", "label": "Send", "kind": "select",
         "options": [[s.value, s.label] for s in first.sends], "default": first.sends[0].value,
         "follows": "preset",
         "options_by": {k: [[s.value, s.label] for s in p.sends] for k, p in PRESETS.items()},
         "default_by": {k: p.sends[0].value for k, p in PRESETS.items()}},
    ]
    for name, spec in _FIELDS.items():
        # A field a preset does not use is hidden there (label None) and keeps the default
        # of the first preset that has it, which that preset never reads.
        fallback = next(p.defaults[name] for p in PRESETS.values() if name in p.defaults)
        out.append({"name": name, **spec,
                    "label": first.labels.get(name, name.replace("_", " ")),
                    "default": first.defaults.get(name, fallback),
                    "follows": "preset",
                    "default_by": {k: p.defaults.get(name, fallback)
                                   for k, p in PRESETS.items()},
                    "label_by": {k: p.labels.get(name) for k, p in PRESETS.items()}})
    return out


CONTROLS = _controls()


def describe() -> dict:
    return controls.describe("Follow a packet through WireGuard", CONTROLS)


# ------------------------------------------------------------------------------ building

@dataclass
class _Lab:
    """The preset's network, a Session per host, and the commands run so far."""

    network: Network
    sessions: dict[str, Session] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # host -> its wg0 public key

    def run(self, host: str, line: str, show: bool = True) -> CommandResult:
        # The hosts share one clock: a command runs at the latest time any host has reached.
        now = max(s.clock for s in self.sessions.values())
        session = self.sessions[host]
        session.clock = now
        result = session.run(line)
        if show:
            # A line with a quoted text of several lines shows as bash shows it, each
            # further line after its continuation prompt (PS2, "> ").
            shown = line.replace("\n", "\n> ")
            self.lines.append(f"root@{host}:~# {shown}\n{result.stdout}{result.stderr}")
        if result.status != 0 and not line.startswith("ping "):
            # wg-quick's `[#] ...` lines say what it ran; the error is in the others.
            errors = [e for e in result.stderr.splitlines() if not e.startswith("[#] ")]
            self.failures.append(f"{host}: `{line.splitlines()[0]}` failed: "
                                 f"{' '.join(errors).strip()}")
        return result

    def note(self, text: str) -> None:
        self.lines.append(f"# {text}\n")


ALLOWED_IPS_TEXT = re.compile(r"[0-9./,\s]*")


def _allowed_words(text: str, fallback: str, label: str, notes: list[str]) -> list[str]:
    """The prefixes of a text field; text that is not IPv4 prefixes is refused here (the
    preset's value is used), so nothing but addresses reaches the shell."""
    if not ALLOWED_IPS_TEXT.fullmatch(text):
        notes.append(f"{label}: only IPv4 addresses and prefixes, separated by commas "
                     f"(using {fallback})")
        text = fallback
    return [w for w in re.split(r"[\s,]+", text) if w]


def _allowed_ips(words: list[str]) -> str:
    """The prefixes as `wg set ... allowed-ips` takes them (comma-separated, no spaces)."""
    return ",".join(words) if words else "''"


@dataclass(frozen=True)
class _PeerLines:
    """One [Peer] of a configuration file (wg(8) CONFIGURATION FILE FORMAT)."""

    public_key: str
    allowed_ips: list[str]
    endpoint: str | None = None

    def text(self) -> str:
        lines = ["", "[Peer]", f"PublicKey = {self.public_key}"]
        if self.endpoint is not None:
            lines.append(f"Endpoint = {self.endpoint}")
        if self.allowed_ips:  # no line at all for an empty field: the peer routes nothing
            lines.append(f"AllowedIPs = {', '.join(self.allowed_ips)}")
        return "\n".join(lines)


def _wg_quick_up(lab: _Lab, plan: HostPlan, listen_port: bool,
                 peers: list[_PeerLines]) -> None:
    """The lab's way: /etc/wireguard/wg0.conf written with tee (the private key stays in
    wg0.key, which PostUp loads, as the labs' files do), then `wg-quick up wg0`."""
    lines = ["[Interface]", f"Address = {plan.tunnel}"]
    if listen_port:
        lines.append(f"ListenPort = {PORT}")
    lines.append("PostUp = wg set %i private-key /etc/wireguard/%i.key")
    config = "\n".join(lines) + "".join("\n" + peer.text() for peer in peers)
    # The text is the lab's keys, addresses and the checked AllowedIPs: no quote in it.
    lab.run(plan.name, f"echo '{config}' | tee /etc/wireguard/{IFACE}.conf")
    lab.run(plan.name, f"wg-quick up {IFACE}")


def _build(preset: Preset, p: dict, notes: list[str]) -> _Lab:
    network = Network()
    lab = _Lab(network)
    for plan in preset.hosts:
        host = add_host(network, plan.name, underlay=plan.underlay,
                        nat_address=plan.nat_address, segment=plan.segment)
        for dev, segment, address in plan.links:
            add_ether_link(host, dev, segment, address)
        lab.sessions[plan.name] = Session(network=network, hostname=plan.name)
        where = ", ".join(f"{dev} {a}" for dev, a in host.addresses if dev != "lo")
        nat = f", behind a NAT router seen as {plan.nat_address}" if plan.nat_address else ""
        lab.note(f"{plan.name}: {where}{nat}")
    for plan in preset.hosts:
        for line in plan.setup:
            lab.run(plan.name, line)
    keys = lab.keys
    for plan in preset.hosts:
        if plan.tunnel is None:
            continue
        if plan.quick:
            lab.run(plan.name, "mkdir -p /etc/wireguard")
            keys[plan.name] = lab.run(plan.name, f"wg genkey | tee /etc/wireguard/{IFACE}.key"
                                                 " | wg pubkey").stdout.strip()
            continue
        lab.run(plan.name, f"ip link add {IFACE} type wireguard")
        lab.run(plan.name, f"wg genkey | wg set {IFACE} listen-port {PORT} "
                           "private-key /dev/stdin")
        lab.run(plan.name, f"ip addr add {plan.tunnel} dev {IFACE}")
        lab.run(plan.name, f"ip link set {IFACE} up")
        keys[plan.name] = lab.run(plan.name, f"wg show {IFACE} public-key").stdout.strip()

    hub = preset.hub
    if "ip_forward" in preset.labels:
        if p["ip_forward"]:
            lab.run(hub, "sysctl -w net.ipv4.ip_forward=1")
        else:
            lab.run(hub, "sysctl net.ipv4.ip_forward")
    if "masquerade" in preset.labels and p["masquerade"]:
        lab.run(hub, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")

    plans = {plan.name: plan for plan in preset.hosts}
    # A client brought up by wg-quick has no ListenPort (the kernel picks one), as in the
    # labs, unless the hub is to reach it at a known endpoint.
    client_port = {c: PORT if not plans[c].quick or p["hub_endpoint"] else None
                   for c in preset.clients}
    # The hub first: a client's keepalive handshakes as soon as it is set, if the hub
    # already knows the client's key.
    hub_peers = []
    for n, client in enumerate(preset.clients):
        suffix = "" if n == 0 else str(n + 1)
        field_name = f"hub{suffix}_allowed_ips"
        words = _allowed_words(p[field_name], preset.defaults[field_name],
                               preset.labels[field_name], notes)
        endpoint = None
        if p["hub_endpoint"]:
            endpoint = f"{plans[client].nat_address or _underlay(network, client)}:{PORT}"
        hub_peers.append(_PeerLines(keys[client], words, endpoint))
    if plans[hub].quick:
        _wg_quick_up(lab, plans[hub], True, hub_peers)
    else:
        for peer in hub_peers:
            line = f"wg set {IFACE} peer {peer.public_key} allowed-ips " \
                   f"{_allowed_ips(peer.allowed_ips)}"
            if peer.endpoint is not None:
                line += f" endpoint {peer.endpoint}"
            lab.run(hub, line)
    for n, client in enumerate(preset.clients):
        suffix = "" if n == 0 else str(n + 1)
        field_name = f"client{suffix}_allowed_ips"
        words = _allowed_words(p[field_name], preset.defaults[field_name],
                               preset.labels[field_name], notes)
        # Only client 1 has the keepalive control (the one behind NAT in the hub preset).
        keepalive = int(p["keepalive"]) if n == 0 else 0
        if plans[client].quick:
            # The endpoint by name, as the lab's file has it (labsim resolves a host's
            # name to its address, as the lab's /etc/hosts does).
            endpoint = f"{hub}:{PORT}" if p["client_endpoint"] else None
            _wg_quick_up(lab, plans[client], client_port[client] is not None,
                         [_PeerLines(keys[hub], words, endpoint)])
            if keepalive:
                lab.note(f"{client}: PersistentKeepalive set now: in the file it would send "
                         "nothing before the first packet, as the key comes later, from "
                         "PostUp (lesson W3)")
                lab.run(client, f"wg set {IFACE} peer {keys[hub]} "
                                f"persistent-keepalive {keepalive}")
            # What lab 02's client looks at next: the rules, the main table, and wg-quick's
            # table when there is one (without a /0 there is none: `ip` fails).
            lab.run(client, "ip rule")
            lab.run(client, "ip route")
            if any(_is_default(word) for word in words):
                lab.run(client, f"ip route show table {quick.DEFAULT_TABLE}")
            continue
        line = f"wg set {IFACE} peer {keys[hub]}"
        if p["client_endpoint"]:
            line += f" endpoint {_underlay(network, hub)}:{PORT}"
        line += f" allowed-ips {_allowed_ips(words)}"
        if keepalive:
            line += f" persistent-keepalive {keepalive}"
        lab.run(client, line)
    for name in keys:
        if not plans[name].quick:
            _wg_quick_routes(lab, name)
    if "server_restart" in preset.labels and p["server_restart"]:
        _restart_hub(lab, preset)
    return lab


def _is_default(word: str) -> bool:
    """Whether an AllowedIPs entry is a /0 (what makes wg-quick call add_default())."""
    try:
        return ipaddress.IPv4Network(word, strict=False).prefixlen == 0
    except ValueError:
        return False


def _restart_hub(lab: _Lab, preset: Preset) -> None:
    """Lesson W4's restart: every client sends to the hub (so the hub has learned where
    each is), then the hub's interface is deleted and made again from its file, and time
    passes beyond REJECT_AFTER_TIME, when the clients' old sessions are no longer used
    (messages.h): a client's next packet makes a new handshake. A client with
    PersistentKeepalive has made one by then: its keepalives renew a session older than
    REKEY_AFTER_TIME (keep_key_fresh() in drivers/net/wireguard/send.c), and the first
    keepalive after REJECT_AFTER_TIME finds no usable session at all. The hub cannot decrypt
    what the clients send with their old sessions, so it learns nothing from it; the other
    clients stay unknown to it until they send. (Sooner, a client's data under its old
    session would be dropped by the hub until the client's next handshake, which
    labsim.net.delivery models too.)"""
    hub_address = str(ipaddress.IPv4Interface(
        next(p.tunnel for p in preset.hosts if p.name == preset.hub)).ip)
    lab.note("the clients connect: each sends a packet to the server")
    for client in preset.clients:
        lab.run(client, f"ping -c 1 -W 1 {hub_address}")
    lab.run(preset.hub, f"wg show {IFACE} endpoints")
    lab.note("the server restarts its interface (a new peer in its file, say)")
    lab.run(preset.hub, f"wg-quick down {IFACE}")
    lab.run(preset.hub, f"wg-quick up {IFACE}")
    lab.run(preset.hub, f"wg show {IFACE} endpoints")
    lab.note(f"{RESTART_WAIT} s later: the clients' old sessions have expired")
    lab.run(preset.hub, f"sleep {RESTART_WAIT}")


def _underlay(network: Network, host: str) -> str:
    return str(network.hosts[host].underlay())


def _wg_quick_routes(lab: _Lab, host: str) -> None:
    """What wg-quick's add_route() does for each AllowedIPs prefix of the interface, longest
    first: a /0 goes to add_default(); any other prefix gets `ip -4 route add PREFIX dev
    wg0` unless a route on wg0 covers it already (`ip -4 route show dev wg0 match PREFIX`
    is not empty)."""
    listing = lab.run(host, f"wg show {IFACE} allowed-ips", show=False).stdout
    prefixes = {ipaddress.IPv4Network(word) for line in listing.splitlines()
                for word in line.split()[1:] if "/" in word}
    for prefix in sorted(prefixes, key=lambda n: -n.prefixlen):
        routes = lab.network.hosts[host].routes
        if prefix.prefixlen == 0:
            _wg_quick_default(lab, host)
        elif not any(r.dev == IFACE and prefix.subnet_of(r.prefix) for r in routes):
            lab.run(host, f"ip route add {prefix} dev {IFACE}")


def _wg_quick_default(lab: _Lab, host: str) -> None:
    """add_default() for 0.0.0.0/0, as wg-quick prints it: the tunnel's own packets get
    fwmark 51820 and keep the main table; everything else goes to table 51820, except what
    a more specific route of the main table covers (suppress_prefixlength 0 ignores only
    the main table's default route)."""
    table = quick.DEFAULT_TABLE
    lab.note(f"{host}: what wg-quick does for 0.0.0.0/0 (add_default; its firewall rules, "
             "an nft table of its own or iptables-restore's where nft is missing, change "
             "nothing for these pings)")
    for line in (f"wg set {IFACE} fwmark {table}",
                 f"ip -4 route add 0.0.0.0/0 dev {IFACE} table {table}",
                 f"ip -4 rule add not fwmark {table} table {table}",
                 "ip -4 rule add table main suppress_prefixlength 0",
                 "sysctl -q net.ipv4.conf.all.src_valid_mark=1"):
        lab.run(host, line)


# --------------------------------------------------------------------------------- running

def run(params: object) -> dict:
    p, notes = read_params(CONTROLS, params)
    preset = PRESETS[p["preset"]]
    lab = _build(preset, p, notes)
    send = next(s for s in preset.sends if s.value == p["send"])
    trips = []
    for sender, address in send.pings:
        result = lab.run(sender, f"ping -c 1 -W 1 {address}")
        trip = lab.sessions[sender].last_ping[-1] if lab.sessions[sender].last_ping else None
        trips.append((sender, address, trip, result))
    for plan in preset.hosts:
        if plan.tunnel is not None:
            lab.run(plan.name, "wg show")
    names = _key_names(lab)
    sender, address, trip, result = trips[-1]
    figure = _figure(preset, lab, sender, address, trip, result, names)
    restarted = ["After the server's restart (wg-quick down, up), which forgot every endpoint "
                 f"it had learned, and {RESTART_WAIT} s:"] \
        if "server_restart" in preset.labels and p["server_restart"] else []
    summary = " ".join(restarted + [_outcome(lab, s, a, t, r, names) for s, a, t, r in trips]
                       + [f + "." for f in lab.failures] + [n + "." for n in notes])
    return {"figure": figure, "summary": summary, "transcript": "".join(lab.lines)}


def _key_names(lab: _Lab) -> dict[str, str]:
    """The first 8 characters of each host's public key and "..." (how the delivery model
    names a peer) -> the host's name."""
    return {key[:8] + "...": name for name, key in lab.keys.items()}


def _named(text: str, names: dict[str, str]) -> str:
    for short, name in names.items():
        text = text.replace(short, name)
    return text


def _owner(lab: _Lab, address: str) -> str | None:
    target = ipaddress.IPv4Address(address)
    return next((name for name, host in lab.network.hosts.items()
                 if any(a.ip == target for _, a in host.addresses)), None)


def _where(drop: delivery.Drop) -> str:
    if drop.reason == delivery.NAT_UNSOLICITED:
        place = f"at {drop.host}'s NAT router"
    elif drop.host == "(LAN)":
        place = "on the LAN"
    else:
        place = f"at {drop.host}"
    return place + (" on the way back" if drop.reply else "")


def _outcome(lab: _Lab, sender: str, address: str, trip: delivery.Delivery | None,
             result: CommandResult, names: dict[str, str]) -> str:
    owner = _owner(lab, address)
    what = f"{sender} pings {address}" + (f" ({owner})" if owner else "")
    if trip is None:
        return f"{what}: {result.stderr.strip()}."
    if trip.ok:
        return f"{what}: answered, round trip {trip.rtt_ms:.2f} ms."
    drop = trip.dropped
    said = f" ping prints \"{result.stderr.strip()}\"." if result.stderr.strip() else ""
    why = ""
    if drop.reason == delivery.NO_ROUTE and drop.host == sender and not drop.reply:
        # Lab 02's client: its main table has no default route, so the tunnel's routes
        # (its AllowedIPs) are the only way off the LAN.
        why = (f" None of {sender}'s routes covers it: its main table has only its LAN and "
               "the tunnel's routes, which cover only its AllowedIPs.")
    return f"{what}: dropped {_where(drop)}: {_named(drop.detail, names)}.{said}{why}"


# --------------------------------------------------------------------------------- drawing

def _nodes(preset: Preset, lab: _Lab) -> list[DiagramNode]:
    nodes = []
    for plan in preset.hosts:
        host = lab.network.hosts[plan.name]
        lines = [f"{dev} {a}" for dev, a in host.addresses if dev != "lo"]
        nodes.append(DiagramNode(plan.name, plan.x, plan.y, "<br>".join(lines),
                                 hover="<br>".join([plan.name, *lines])))
    for name, label, x, y in preset.lans.values():
        nodes.append(DiagramNode(name, x, y, label, shape="switch"))
    if preset.nat_at is not None:
        nat = next(plan.nat_address for plan in preset.hosts if plan.nat_address)
        nodes.append(DiagramNode(NAT_NODE, *preset.nat_at, f"LAN side {nat}", shape="nat",
                                 hover="NAT router: lets in only answers to what went out"))
    return nodes


def _links(preset: Preset) -> list[DiagramLink]:
    links = []
    for plan in preset.hosts:
        lan = preset.lans[plan.segment][0]
        if plan.nat_address:
            links += [DiagramLink(plan.name, NAT_NODE), DiagramLink(NAT_NODE, lan)]
        else:
            links.append(DiagramLink(plan.name, lan))
        for _, segment, _ in plan.links:
            links.append(DiagramLink(plan.name, preset.lans[segment][0]))
    links += [DiagramLink(preset.hub, client, "tunnel") for client in preset.clients]
    return links


def _hover(hops: list[delivery.Hop], names: dict[str, str]) -> str:
    return "<br>".join(f"<b>{h.host}</b>: {_named(h.what, names)}" for h in hops)


def _moves(trip: delivery.Delivery, colour: str,
           names: dict[str, str]) -> list[DiagramMove]:
    """One arrow per change of host in the trip's hops: the request above the line, the
    reply below it, a handshake (initiation and response) as one grey two-headed arrow."""
    hops = list(trip.hops)
    legs: list[tuple[str, str, str, list[delivery.Hop]]] = []  # (from, to, kind, hops)
    start, reply = 0, False
    for i in range(1, len(hops)):
        if hops[i - 1].what.startswith("echo request from"):
            reply = True
        if hops[i].host == hops[i - 1].host:
            continue
        if "handshake answered" in hops[i].what:
            kind = "handshake"
        elif "handshake answered" in hops[i - 1].what:
            kind = "response"
        else:
            kind = "reply" if reply else "request"
        legs.append((hops[i - 1].host, hops[i].host, kind, hops[start:i + 1]))
        start = i
    moves = []
    for a, b, kind, leg_hops in legs:
        if kind == "response":
            continue  # drawn with its initiation, as one two-headed arrow
        number = len(moves) + 1
        if kind == "handshake":
            moves.append(DiagramMove(a, b, GREY, number, _hover(leg_hops, names), side=2.5,
                                     both_ways=True))
        else:
            # Left of the direction of travel: a reply runs beside its request.
            moves.append(DiagramMove(a, b, colour, number, _hover(leg_hops, names), side=1))
    return moves


def _figure(preset: Preset, lab: _Lab, sender: str, address: str,
            trip: delivery.Delivery | None, result: CommandResult,
            names: dict[str, str]) -> dict:
    owner = _owner(lab, address)
    target = f"{owner} ({address})" if owner else address
    nodes, links = _nodes(preset, lab), _links(preset)
    if trip is None:  # ping stopped before sending (no route: connect() failed)
        text = result.stderr.strip()
        return network_diagram(
            nodes, links, [], [DiagramMark(sender, hover=text, colour=RED)],
            title=f"{sender} pings {target}: not sent", caption=_wrap(f"✗ {text}"),
            caption_colour=RED, legend=[("dropped", RED)], height=_height(nodes))
    colour = GREEN if trip.ok else RED
    moves = _moves(trip, colour, names)
    marks = []
    legend = [("echo request and reply" if trip.ok else "the packet, until it is lost", colour)]
    if any(m.colour == GREY for m in moves):
        legend.append(("handshake", GREY))
    if trip.ok:
        title = f"{sender} pings {target}: answered"
        caption = f"answered by {trip.reply_from}, round trip {trip.rtt_ms:.2f} ms"
    else:
        drop = trip.dropped
        last = trip.hops[-1].host if trip.hops else sender
        detail = _named(drop.detail, names)
        if drop.reason == delivery.NAT_UNSOLICITED and preset.nat_at is not None:
            moves.append(DiagramMove(last, NAT_NODE, RED, len(moves) + 1, detail, side=1))
            marks.append(DiagramMark(NAT_NODE, hover=detail))
        elif drop.host == "(LAN)" or drop.host not in lab.network.hosts:
            lan = preset.lans[next(p.segment for p in preset.hosts if p.name == last)][0]
            marks.append(DiagramMark(last, lan, 0.5, hover=detail))
        else:
            if drop.host != last:
                # It arrived (and was refused there: a source outside the sender's
                # AllowedIPs, a handshake nobody can answer, a closed port).
                moves.append(DiagramMove(last, drop.host, RED, len(moves) + 1, detail,
                                         side=1))
            marks.append(DiagramMark(drop.host, hover=detail))
        title = f"{sender} pings {target}: dropped {_where(drop)}"
        caption = f"✗ dropped {_where(drop)}: {detail}"
        if result.stderr.strip():
            caption += f"\n{result.stderr.strip()}"
    return network_diagram(nodes, links, moves, marks, title=title,
                           caption=_wrap(caption), caption_colour=colour, legend=legend,
                           height=_height(nodes))


def _height(nodes: list[DiagramNode]) -> int:
    """Pixels for the diagram: room for the title, legend and caption, and for the rows."""
    ys = [n.y for n in nodes]
    return round(300 + 80 * (max(ys) - min(ys)))


def _wrap(text: str, width: int = 90) -> str:
    """Plotly does not wrap annotation text: break it into lines joined by <br>."""
    return "<br>".join(line for part in text.splitlines()
                       for line in textwrap.wrap(part, width) or [""])
