"""WireGuard interfaces as the Linux module keeps them, and the changes `wg` asks it to make.

An ``Interface`` is what `wg show` reads back from the kernel: the private key (clamped, as
the module stores it), the listening port, the fwmark and the peers, each with its preshared
key, endpoint, AllowedIPs (an ``AllowedIPsTable`` of ``allowed_ips``), persistent keepalive,
latest handshake and byte counters. A ``DeviceChange`` is what `wg set`, `wg setconf`,
`wg addconf` and `wg syncconf` send (struct wgdevice with its flags, wireguard-tools'
src/containers.h), and ``apply_change`` applies it the way set_device() and set_peer() in
drivers/net/wireguard/netlink.c do.

Peers are kept in the order they were added, which is the order the kernel lists them in
(wg_peer_create() appends to the device's peer list). wireguard-go lists them in the order
of a Go map, that is at random, so recordings made over wireguard-go can differ in order only.

Interfaces are made with ``add_interface`` (the model of `ip link add NAME type wireguard`)
and start down; ``set_link_up`` is `ip link set NAME up`, which binds the UDP socket and so
picks a port when none was set. Everything random (generated keys, ports) comes from the
host's seeded generator, so a simulation repeats exactly.
"""

from __future__ import annotations

import ipaddress
import random
from dataclasses import dataclass, field, replace

from labsim.wg import allowed_ips as aips
from labsim.wg.keys import KEY_LEN, clamp, encode_key, public_key

ZERO_KEY = bytes(KEY_LEN)

# The ports Linux hands out to a UDP socket bound to port 0: net.ipv4.ip_local_port_range,
# 32768-60999 by default (include/net/ip.h, inet_get_local_port_range()).
EPHEMERAL_PORTS = (32768, 60999)

IFNAMSIZ = 16
"""Interface names are at most IFNAMSIZ - 1 characters (include/uapi/linux/if.h)."""


class DeviceError(Exception):
    """A change the kernel refuses; ``strerror`` is the text perror() prints for its errno."""

    def __init__(self, strerror: str):
        super().__init__(strerror)
        self.strerror = strerror


NO_SUCH_DEVICE = "No such device"  # ENODEV: no WireGuard interface of that name
ADDRESS_IN_USE = "Address already in use"  # EADDRINUSE: the port is bound already


@dataclass(frozen=True)
class Endpoint:
    """A peer's UDP address and port, as the kernel stores it (a sockaddr_in or _in6)."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
    port: int


@dataclass(frozen=True)
class Peer:
    """One peer of an interface. A zero preshared key is no preshared key (the kernel always
    has one, and `wg` shows it only when it is not all zeros); ``last_handshake`` is seconds
    since the epoch, 0 for never."""

    public_key: bytes
    preshared_key: bytes = ZERO_KEY
    endpoint: Endpoint | None = None
    persistent_keepalive: int = 0
    last_handshake: float = 0.0
    rx_bytes: int = 0
    tx_bytes: int = 0
    # When data went to the peer with nothing authenticated coming back since, or 0: the
    # kernel then makes a new handshake KEEPALIVE_TIMEOUT + REKEY_TIMEOUT later
    # (wg_timers_data_sent() arms new_handshake, wg_timers_any_authenticated_packet_received()
    # disarms it; drivers/net/wireguard/timers.c). `wg show` does not show it.
    unanswered_since: float = 0.0

    @property
    def name(self) -> str:
        """The peer's public key in base64, as `wg` prints it and the AllowedIPs table keys it."""
        return encode_key(self.public_key)


@dataclass(frozen=True)
class Interface:
    """A WireGuard interface. ``private_key`` is None until one is set (the kernel's
    has_identity); it is stored clamped, as wg_noise_set_static_identity_private_key() does,
    so `wg show IFACE private-key` prints the clamped key whatever was given."""

    name: str
    private_key: bytes | None = None
    public_key: bytes | None = None
    listen_port: int = 0
    fwmark: int = 0
    peers: tuple[Peer, ...] = ()
    allowed_ips: aips.AllowedIPsTable = aips.AllowedIPsTable()
    up: bool = False

    def peer(self, key: bytes) -> Peer | None:
        return next((p for p in self.peers if p.public_key == key), None)

    def allowed_ips_of(self, peer: Peer) -> tuple[aips.Prefix, ...]:
        return aips.allowed_ips_of(self.allowed_ips, peer.name)


@dataclass
class WireGuardHost:
    """The WireGuard state of one machine: its interfaces in the order they were created
    (the order of their ifindex, which is how the kernel lists them for `wg show all`), and
    the random generator behind `wg genkey`, `wg genpsk` and ports picked by the kernel."""

    seed: int = 0
    interfaces: dict[str, Interface] = field(default_factory=dict)
    rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)


@dataclass(frozen=True)
class PeerChange:
    """One peer of a change (struct wgpeer): None means "leave as it is"."""

    public_key: bytes
    remove: bool = False
    preshared_key: bytes | None = None
    endpoint: Endpoint | None = None
    persistent_keepalive: int | None = None
    replace_allowed_ips: bool = False
    allowed_ips: tuple[aips.Prefix, ...] = ()


@dataclass(frozen=True)
class DeviceChange:
    """A change to an interface (struct wgdevice): None means "leave as it is"; a zero
    private key removes the key."""

    private_key: bytes | None = None
    listen_port: int | None = None
    fwmark: int | None = None
    replace_peers: bool = False
    peers: tuple[PeerChange, ...] = ()


def add_interface(host: WireGuardHost, name: str) -> Interface:
    """A new, empty and down interface ``name`` (`ip link add NAME type wireguard`)."""
    if not name or len(name) >= IFNAMSIZ or "/" in name or any(c.isspace() for c in name):
        raise ValueError(f"not a valid interface name: {name!r}")
    if name in host.interfaces:
        raise ValueError(f"interface {name} exists already")
    host.interfaces[name] = Interface(name)
    return host.interfaces[name]


def remove_interface(host: WireGuardHost, name: str) -> None:
    """`ip link del NAME`."""
    del host.interfaces[name]


def get_interface(host: WireGuardHost, name: str) -> Interface:
    """The interface ``name``, or DeviceError(ENODEV) as the kernel answers `wg` then."""
    try:
        return host.interfaces[name]
    except KeyError:
        raise DeviceError(NO_SUCH_DEVICE) from None


def set_link_up(host: WireGuardHost, name: str, up: bool = True) -> Interface:
    """`ip link set NAME up` (or down). Going up binds the socket (wg_open() calls
    wg_socket_init() with the configured port), so a port of 0 becomes a random one."""
    iface = get_interface(host, name)
    if up and not iface.up:
        port = _bind(host, iface, iface.listen_port)
        iface = replace(iface, up=True, listen_port=port)
    elif not up:
        iface = replace(iface, up=False)
    host.interfaces[name] = iface
    return iface


def apply_change(host: WireGuardHost, name: str, change: DeviceChange) -> Interface:
    """Apply ``change`` to interface ``name`` in the order set_device() in netlink.c does:
    fwmark, listening port, dropping all peers (WGDEVICE_F_REPLACE_PEERS), private key, then
    each peer in turn. Raises DeviceError (with nothing changed) for a missing interface; a
    port already in use stops the change there, after the fwmark, as in the kernel."""
    iface = get_interface(host, name)
    if change.fwmark is not None:
        iface = replace(iface, fwmark=change.fwmark)
        host.interfaces[name] = iface
    if change.listen_port is not None and change.listen_port != iface.listen_port:
        # set_port(): a down interface just records the port; an up one binds it now.
        port = _bind(host, iface, change.listen_port) if iface.up else change.listen_port
        iface = replace(iface, listen_port=port)
    if change.replace_peers:
        iface = replace(iface, peers=(), allowed_ips=aips.AllowedIPsTable())
    if change.private_key is not None:
        iface = _set_private_key(iface, change.private_key)
    for peer_change in change.peers:
        iface = _set_peer(iface, peer_change)
    host.interfaces[name] = iface
    return iface


def record_handshake(host: WireGuardHost, name: str, peer: bytes, when: float) -> Interface:
    """Note a completed handshake with ``peer`` at ``when`` (seconds since the epoch)."""
    return _update_peer(host, name, peer, last_handshake=when)


def record_unanswered(host: WireGuardHost, name: str, peer: bytes, since: float) -> Interface:
    """Note that data went to ``peer`` at ``since`` with no answer (0: an answer came)."""
    return _update_peer(host, name, peer, unanswered_since=since)


def record_transfer(host: WireGuardHost, name: str, peer: bytes, rx: int = 0,
                    tx: int = 0) -> Interface:
    """Add ``rx`` received and ``tx`` sent bytes to ``peer``'s counters."""
    iface = get_interface(host, name)
    current = iface.peer(peer)
    if current is None:
        raise KeyError(f"{name} has no peer {encode_key(peer)}")
    return _update_peer(host, name, peer, rx_bytes=current.rx_bytes + rx,
                        tx_bytes=current.tx_bytes + tx)


def _update_peer(host: WireGuardHost, name: str, key: bytes, **values) -> Interface:
    iface = get_interface(host, name)
    if iface.peer(key) is None:
        raise KeyError(f"{name} has no peer {encode_key(key)}")
    peers = tuple(replace(p, **values) if p.public_key == key else p for p in iface.peers)
    iface = replace(iface, peers=peers)
    host.interfaces[name] = iface
    return iface


def _bind(host: WireGuardHost, iface: Interface, port: int) -> int:
    """The port a socket of ``iface`` gets when bound to ``port`` (0: a free random one)."""
    in_use = {i.listen_port for i in host.interfaces.values() if i.up and i.name != iface.name}
    if port == 0:
        low, high = EPHEMERAL_PORTS
        while True:
            port = host.rng.randint(low, high)
            if port not in in_use:
                return port
    if port in in_use:
        raise DeviceError(ADDRESS_IN_USE)
    return port


def _set_private_key(iface: Interface, key: bytes) -> Interface:
    """The WGDEVICE_A_PRIVATE_KEY part of set_device()."""
    if iface.private_key is not None and iface.private_key == key:
        return iface
    if key == ZERO_KEY:
        # curve25519_generate_public() refuses the zero key: has_identity becomes false.
        return replace(iface, private_key=None, public_key=None)
    public = public_key(key)
    # A peer with the interface's own new public key is removed first.
    iface = _remove_peer(iface, public)
    return replace(iface, private_key=clamp(key), public_key=public)


def _remove_peer(iface: Interface, key: bytes) -> Interface:
    peer = iface.peer(key)
    if peer is None:
        return iface
    return replace(
        iface,
        peers=tuple(p for p in iface.peers if p.public_key != key),
        allowed_ips=aips.remove_peer(iface.allowed_ips, peer.name),
    )


def _set_peer(iface: Interface, change: PeerChange) -> Interface:
    """set_peer() in netlink.c."""
    peer = iface.peer(change.public_key)
    if peer is None:
        if change.remove:
            return iface
        # Peers with the interface's own public key are silently ignored.
        if iface.public_key is not None and change.public_key == iface.public_key:
            return iface
        peer = Peer(change.public_key)
        iface = replace(
            iface,
            peers=iface.peers + (peer,),
            allowed_ips=aips.add_peer(iface.allowed_ips, peer.name),
        )
    if change.remove:
        return _remove_peer(iface, change.public_key)
    updated = peer
    if change.preshared_key is not None:
        updated = replace(updated, preshared_key=change.preshared_key)
    if change.endpoint is not None:
        updated = replace(updated, endpoint=change.endpoint)
    table = iface.allowed_ips
    if change.replace_allowed_ips:
        table = aips.set_allowed_ips(table, peer.name, [])
    if change.allowed_ips:
        table = aips.add_allowed_ips(table, peer.name, change.allowed_ips)
    if change.persistent_keepalive is not None:
        updated = replace(updated, persistent_keepalive=change.persistent_keepalive)
    peers = tuple(updated if p.public_key == peer.public_key else p for p in iface.peers)
    return replace(iface, peers=peers, allowed_ips=table)
