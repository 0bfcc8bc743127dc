"""WireGuard lessons W1-W4: follow a ping through a small network, hop by hop.

Three presets, one per lesson, with the hosts and addresses of its lab in labs/net/ (the
table of labsim.scenarios.wg_presets). The reader edits what
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
from labsim.net import trace
from labsim.net.model import Network, add_ether_link, add_host
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.scenarios.wg_presets import (
    DEFAULT_PRESET,
    PRESETS,
    HostPlan,
    Preset,
    Setting,
    preset_fields,
)
from labsim.shell.base import CommandResult
from labsim.shell.session import Session
from labsim.wg import quick

PORT = 51820
IFACE = "wg0"
GREEN, RED, GREY = "#009E73", "#D55E00", "#7F7F7F"
# Seconds between the server's restart and the pings: past REJECT_AFTER_TIME (180 s) and
# one more keepalive interval of the lesson's 25 s (see _restart_hub).
RESTART_WAIT = 210
NAT_NODE = "NAT router"


# The per-preset controls, in the order the widget shows them, with their kind.
_FIELDS: dict[str, Control] = {
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


def _controls() -> list[Control]:
    first = PRESETS[DEFAULT_PRESET]
    values = {name: preset_fields(preset) for name, preset in PRESETS.items()}
    out: list[Control] = [
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
        given = {k: v[name] for k, v in values.items() if name in v}
        fallback = next(iter(given.values())).default
        shown = given.get(DEFAULT_PRESET, Setting(fallback))
        out.append({"name": name, **spec,
                    "label": shown.label or name.replace("_", " "),
                    "default": shown.default,
                    "follows": "preset",
                    "default_by": {k: given[k].default if k in given else fallback
                                   for k in PRESETS},
                    "label_by": {k: given[k].label if k in given else None
                                 for k in PRESETS}})
    return out


CONTROLS = _controls()


@dataclass(frozen=True)
class Params:
    preset: str
    send: str
    client_allowed_ips: str
    hub_allowed_ips: str
    client2_allowed_ips: str
    hub2_allowed_ips: str
    client_endpoint: bool
    hub_endpoint: bool
    keepalive: int
    ip_forward: bool
    masquerade: bool
    server_restart: bool
    notes: tuple[str, ...] = ()

    def allowed_ips(self, control: str) -> str:
        """The text of one of the AllowedIPs controls (a Tunnel names its two)."""
        texts = {"client_allowed_ips": self.client_allowed_ips,
                 "hub_allowed_ips": self.hub_allowed_ips,
                 "client2_allowed_ips": self.client2_allowed_ips,
                 "hub2_allowed_ips": self.hub2_allowed_ips}
        return texts[control]


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


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


def _build(preset: Preset, p: Params, notes: list[str]) -> _Lab:
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
    settings = preset.settings
    if _used(settings.ip_forward):
        if p.ip_forward:
            lab.run(hub, "sysctl -w net.ipv4.ip_forward=1")
        else:
            lab.run(hub, "sysctl net.ipv4.ip_forward")
    if _used(settings.masquerade) and p.masquerade:
        lab.run(hub, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")

    plans = {plan.name: plan for plan in preset.hosts}
    # A client brought up by wg-quick has no ListenPort (the kernel picks one), as in the
    # labs, unless the hub is to reach it at a known endpoint.
    client_port = {c: PORT if not plans[c].quick or p.hub_endpoint else None
                   for c in preset.clients}
    # The hub first: a client's keepalive handshakes as soon as it is set, if the hub
    # already knows the client's key.
    hub_peers = []
    for tunnel in preset.tunnels:
        client = tunnel.client
        words = _allowed_words(p.allowed_ips(tunnel.hub_control), tunnel.hub_allowed_ips,
                               tunnel.hub_label, notes)
        endpoint = None
        if p.hub_endpoint:
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
    for n, tunnel in enumerate(preset.tunnels):
        client = tunnel.client
        words = _allowed_words(p.allowed_ips(tunnel.client_control),
                               tunnel.client_allowed_ips, tunnel.client_label, notes)
        # Only client 1 has the keepalive control (the one behind NAT in the hub preset).
        keepalive = p.keepalive if n == 0 else 0
        if plans[client].quick:
            # The endpoint by name, as the lab's file has it (labsim resolves a host's
            # name to its address, as the lab's /etc/hosts does).
            endpoint = f"{hub}:{PORT}" if p.client_endpoint else None
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
        if p.client_endpoint:
            line += f" endpoint {_underlay(network, hub)}:{PORT}"
        line += f" allowed-ips {_allowed_ips(words)}"
        if keepalive:
            line += f" persistent-keepalive {keepalive}"
        lab.run(client, line)
    for name in keys:
        if not plans[name].quick:
            _wg_quick_routes(lab, name)
    if _restarts(preset, p):
        _restart_hub(lab, preset)
    return lab


def _used(setting: Setting) -> bool:
    """Whether a preset has the setting (a control it shows): one it hides is not read."""
    return setting.label is not None


def _restarts(preset: Preset, p: Params) -> bool:
    return _used(preset.settings.server_restart) and p.server_restart


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
    hub_tunnel = preset.plan(preset.hub).tunnel
    if hub_tunnel is None:  # pragma: no cover - every preset's hub has a tunnel address
        raise ValueError(f"{preset.hub} has no wg0 address")
    hub_address = str(ipaddress.IPv4Interface(hub_tunnel).ip)
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

def run(p: Params) -> ScenarioResult:
    notes = list(p.notes)
    preset = PRESETS[p.preset]
    lab = _build(preset, p, notes)
    send = next(s for s in preset.sends if s.value == p.send)
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
        if _restarts(preset, p) else []
    summary = " ".join(restarted + [_outcome(lab, s, a, t, r, names) for s, a, t, r in trips]
                       + [f + "." for f in lab.failures] + [n + "." for n in notes])
    return ScenarioResult(figure, summary, "".join(lab.lines))


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


def _where(drop: trace.Drop) -> str:
    if drop.reason == trace.NAT_UNSOLICITED:
        place = f"at {drop.host}'s NAT router"
    elif drop.host == "(LAN)":
        place = "on the LAN"
    else:
        place = f"at {drop.host}"
    return place + (" on the way back" if drop.reply else "")


def _outcome(lab: _Lab, sender: str, address: str, trip: trace.Delivery | None,
             result: CommandResult, names: dict[str, str]) -> str:
    owner = _owner(lab, address)
    what = f"{sender} pings {address}" + (f" ({owner})" if owner else "")
    if trip is None:
        return f"{what}: {result.stderr.strip()}."
    drop = trip.dropped
    if drop is None:
        return f"{what}: answered, round trip {trip.rtt_ms:.2f} ms."
    said = f" ping prints \"{result.stderr.strip()}\"." if result.stderr.strip() else ""
    why = ""
    if drop.reason == trace.NO_ROUTE and drop.host == sender and not drop.reply:
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
    for lan in preset.lans:
        nodes.append(DiagramNode(lan.node, lan.x, lan.y, lan.label, shape="switch"))
    if preset.nat_at is not None:
        nat = next(plan.nat_address for plan in preset.hosts if plan.nat_address)
        nodes.append(DiagramNode(NAT_NODE, *preset.nat_at, f"LAN side {nat}", shape="nat",
                                 hover="NAT router: lets in only answers to what went out"))
    return nodes


def _links(preset: Preset) -> list[DiagramLink]:
    links = []
    for plan in preset.hosts:
        lan = preset.lan(plan.segment).node
        if plan.nat_address:
            links += [DiagramLink(plan.name, NAT_NODE), DiagramLink(NAT_NODE, lan)]
        else:
            links.append(DiagramLink(plan.name, lan))
        for _, segment, _ in plan.links:
            links.append(DiagramLink(plan.name, preset.lan(segment).node))
    links += [DiagramLink(preset.hub, client, "tunnel") for client in preset.clients]
    return links


def _hover(hops: list[trace.Hop], names: dict[str, str]) -> str:
    return "<br>".join(f"<b>{h.host}</b>: {_named(h.what, names)}" for h in hops)


def _moves(trip: trace.Delivery, colour: str,
           names: dict[str, str]) -> list[DiagramMove]:
    """One arrow per change of host in the trip's hops: the request above the line, the
    reply below it, a handshake (initiation and response) as one grey two-headed arrow."""
    hops = list(trip.hops)
    legs: list[tuple[str, str, str, list[trace.Hop]]] = []  # (from, to, kind, hops)
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
    moves: list[DiagramMove] = []
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
            trip: trace.Delivery | None, result: CommandResult,
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
    drop = trip.dropped
    if drop is None:
        title = f"{sender} pings {target}: answered"
        caption = f"answered by {trip.reply_from}, round trip {trip.rtt_ms:.2f} ms"
    else:
        last = trip.hops[-1].host if trip.hops else sender
        detail = _named(drop.detail, names)
        if drop.reason == trace.NAT_UNSOLICITED and preset.nat_at is not None:
            moves.append(DiagramMove(last, NAT_NODE, RED, len(moves) + 1, detail, side=1))
            marks.append(DiagramMark(NAT_NODE, hover=detail))
        elif drop.host == "(LAN)" or drop.host not in lab.network.hosts:
            lan = preset.lan(preset.plan(last).segment).node
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


SCENARIO = Simulation("wg-topology", "Follow a packet through WireGuard", CONTROLS, read, run)
