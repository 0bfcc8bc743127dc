"""The networks of the WireGuard widget (labsim.scenarios.wg_topology), as data: one
``Preset`` per lesson, with the hosts and addresses of its lab in labs/net/, each client's
tunnel to the hub with the AllowedIPs both sides list, the settings the reader can change
there, and the pings the reader can send. The widget's controls are made from this table
(``wg_topology.CONTROLS``): a control a preset does not label is hidden there.

Two peers on a LAN (alice and bob, W1, 01-wg-peers); a client that sends everything through
a gateway to a web server on the internet side (W2, 02-wg-gateway); a server with two
clients, client 1 behind its home router's NAT (W3, 03-wg-client-routing, without its wg1;
W4 restarts its server, as 04-wg-runtime-peers's restart variant does)."""

from __future__ import annotations

from dataclasses import dataclass, fields

LAN_NODE = "LAN"


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
class Lan:
    """A LAN segment, drawn as a switch: its node's name, label and place."""

    segment: str
    node: str
    label: str
    x: float
    y: float


@dataclass(frozen=True)
class Tunnel:
    """One client's tunnel to the preset's hub: the AllowedIPs the client lists for the
    hub and the hub for the client, as they start (each is a text control, named and
    labelled here)."""

    client: str
    client_allowed_ips: str
    hub_allowed_ips: str
    client_label: str
    hub_label: str
    client_control: str = "client_allowed_ips"
    hub_control: str = "hub_allowed_ips"


@dataclass(frozen=True)
class Setting:
    """A control's value as the preset starts, and its label there (None: the preset does
    not use it, and the control is hidden)."""

    default: bool | int | str
    label: str | None = None


@dataclass(frozen=True)
class Settings:
    """The settings of a preset besides AllowedIPs. The endpoints and the keepalive are
    the clients'/hub's; forwarding, masquerading and the restart are the hub's."""

    client_endpoint: Setting
    hub_endpoint: Setting
    keepalive: Setting  # PersistentKeepalive of the first client, seconds (0: off)
    ip_forward: Setting = Setting(False)
    masquerade: Setting = Setting(False)
    server_restart: Setting = Setting(False)


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
    hosts: tuple[HostPlan, ...]
    tunnels: tuple[Tunnel, ...]
    settings: Settings
    lans: tuple[Lan, ...]
    sends: tuple[Send, ...]
    nat_at: tuple[float, float] | None = None  # where the NAT router is drawn

    @property
    def clients(self) -> tuple[str, ...]:
        return tuple(t.client for t in self.tunnels)

    def lan(self, segment: str) -> Lan:
        return next(lan for lan in self.lans if lan.segment == segment)

    def plan(self, host: str) -> HostPlan:
        return next(plan for plan in self.hosts if plan.name == host)


PRESETS: dict[str, Preset] = {
    "two-peers": Preset(
        label="Two peers: alice and bob on one LAN (W1)",
        hub="bob",
        hosts=(HostPlan("alice", 0, 1, "10.0.0.1/24", underlay="192.168.50.10/24"),
               HostPlan("bob", 4, 1, "10.0.0.2/24", underlay="192.168.50.11/24")),
        tunnels=(Tunnel("alice", "10.0.0.2/32", "10.0.0.1/32",
                        client_label="alice's AllowedIPs for bob",
                        hub_label="bob's AllowedIPs for alice"),),
        settings=Settings(
            client_endpoint=Setting(True, "alice knows bob's endpoint (192.168.50.11:51820)"),
            hub_endpoint=Setting(True, "bob knows alice's endpoint (192.168.50.10:51820)"),
            keepalive=Setting(0, "PersistentKeepalive on alice (0 = off)")),
        lans=(Lan("lan", LAN_NODE, "192.168.50.0/24", 2, 0),),
        sends=(
            Send("alice-bob", "alice pings bob (10.0.0.2)", (("alice", "10.0.0.2"),)),
            Send("bob-alice", "bob pings alice (10.0.0.1)", (("bob", "10.0.0.1"),)),
            Send("alice-nobody", "alice pings 10.0.0.3 (no such peer)",
                 (("alice", "10.0.0.3"),)),
            Send("bob-then-alice", "bob pings alice, then alice pings bob",
                 (("bob", "10.0.0.1"), ("alice", "10.0.0.2"))),
        ),
    ),
    "gateway": Preset(
        label="Gateway: a client reaches the internet through a VPN gateway (W2)",
        hub="gateway",
        # As in lab 02: the client's LAN has no default route (its main table has only
        # 192.168.50.0/24), so only the tunnel can take it to the internet.
        hosts=(HostPlan("client", 0, 1, "10.0.0.2/24", underlay="192.168.50.10/24",
                        quick=True),
               HostPlan("gateway", 3, 1, "10.0.0.1/24", underlay="192.168.50.1/24",
                        links=(("eth1", "inet", "198.51.100.1/24"),), quick=True),
               HostPlan("web", 6, 1, None, underlay="198.51.100.80/24", segment="inet")),
        tunnels=(Tunnel("client", "0.0.0.0/0", "10.0.0.2/32",
                        client_label="the client's AllowedIPs for the gateway",
                        hub_label="the gateway's AllowedIPs for the client"),),
        settings=Settings(
            client_endpoint=Setting(True, "the client knows the gateway's endpoint"),
            hub_endpoint=Setting(False, "the gateway knows the client's endpoint"),
            keepalive=Setting(0, "PersistentKeepalive on the client (0 = off)"),
            ip_forward=Setting(True, "the gateway forwards (net.ipv4.ip_forward = 1)"),
            masquerade=Setting(True, "the gateway masquerades what leaves by eth1")),
        lans=(Lan("lan", LAN_NODE, "192.168.50.0/24", 1.5, 0),
              Lan("inet", "internet", "198.51.100.0/24", 4.5, 0)),
        sends=(
            Send("client-web", "the client pings the web server (198.51.100.80)",
                 (("client", "198.51.100.80"),)),
            Send("client-gateway", "the client pings the gateway (10.0.0.1)",
                 (("client", "10.0.0.1"),)),
            Send("gateway-client", "the gateway pings the client (10.0.0.2)",
                 (("gateway", "10.0.0.2"),)),
        ),
    ),
    "hub": Preset(
        label="Hub: a server and two clients, client 1 behind a NAT router (W3)",
        hub="server",
        hosts=(HostPlan("server", 3, 1.3, "10.0.0.1/24", underlay="192.168.50.1/24",
                        quick=True),
               # client 1's home network: its router is 192.168.60.1 inside and
               # 192.168.50.2 on the LAN (labsim.net models the NAT as Host.nat_address).
               HostPlan("client1", 6.4, 0, "10.0.0.2/24", underlay="192.168.60.10/24",
                        nat_address="192.168.50.2",
                        setup=("ip route add default via 192.168.60.1",)),
               HostPlan("client2", 0, 0, "10.0.0.3/24", underlay="192.168.50.10/24")),
        tunnels=(Tunnel("client1", "10.0.0.0/24", "10.0.0.2/32",
                        client_label="client 1's AllowedIPs for the server",
                        hub_label="the server's AllowedIPs for client 1"),
                 Tunnel("client2", "10.0.0.0/24", "10.0.0.3/32",
                        client_label="client 2's AllowedIPs for the server",
                        hub_label="the server's AllowedIPs for client 2",
                        client_control="client2_allowed_ips",
                        hub_control="hub2_allowed_ips")),
        settings=Settings(
            client_endpoint=Setting(True, "the clients know the server's endpoint"),
            hub_endpoint=Setting(False, "the server knows the clients' endpoints"),
            keepalive=Setting(25, "PersistentKeepalive on client 1, behind NAT (0 = off)"),
            ip_forward=Setting(True, "the server forwards (net.ipv4.ip_forward = 1)"),
            server_restart=Setting(False, "the server restarted (wg-quick down, up) after "
                                          "the clients connected")),
        lans=(Lan("lan", LAN_NODE, "192.168.50.0/24", 3, 0),),
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
    ),
}
DEFAULT_PRESET = "two-peers"


def preset_fields(preset: Preset) -> dict[str, Setting]:
    """Each control a preset has a value for (its tunnels' AllowedIPs and its settings),
    by name: the value as it starts, and the label (None: hidden there)."""
    out: dict[str, Setting] = {}
    for tunnel in preset.tunnels:
        out[tunnel.client_control] = Setting(tunnel.client_allowed_ips, tunnel.client_label)
        out[tunnel.hub_control] = Setting(tunnel.hub_allowed_ips, tunnel.hub_label)
    for f in fields(Settings):
        out[f.name] = getattr(preset.settings, f.name)
    return out
