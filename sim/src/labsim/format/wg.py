"""What `wg show` and `wg showconf` print (wireguard-tools 1.0.20210914, src/show.c and
src/showconf.c), without colour: `wg` colours its output only when stdout is a terminal,
and these are the texts it prints into a pipe or a file.

The expected texts in tests/unit/test_wg_show.py were recorded from the real tool.
"""

from __future__ import annotations

import ipaddress
import math

from labsim.wg.allowed_ips import format_prefix
from labsim.wg.device import Endpoint, Interface, Peer
from labsim.wg.keys import encode_key

FIELDS = ("public-key", "private-key", "listen-port", "fwmark", "peers", "preshared-keys",
          "endpoints", "allowed-ips", "latest-handshakes", "transfer", "persistent-keepalive",
          "dump")
"""The parameters of `wg show IFACE PARAM`, in the order its usage text lists them."""


def pretty_time(seconds: int) -> str:
    """pretty_time(): years (of 365 days), days, hours, minutes and seconds, each only if
    not zero, joined by ", " ("1 minute, 5 seconds"); "" for 0."""
    parts = []
    units = (("year", 365 * 24 * 60 * 60), ("day", 24 * 60 * 60), ("hour", 60 * 60),
             ("minute", 60), ("second", 1))
    for name, size in units:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {name}{'' if count == 1 else 's'}")
    return ", ".join(parts)


def ago(when: int, now: int) -> str:
    """ago(): how long before ``now`` a handshake at ``when`` was, both whole seconds."""
    if now == when:
        return "Now"
    if now < when:
        return "(System clock wound backward; connection problems may ensue.)"
    return pretty_time(now - when) + " ago"


def every(seconds: int) -> str:
    """every(): a persistent keepalive interval."""
    return "every " + pretty_time(seconds)


def human_bytes(count: int) -> str:
    """bytes(): B below 1 KiB, then KiB, MiB, GiB and TiB with two decimals (printf's
    %.2f of a double, which Python's format rounds the same way)."""
    if count < 1024:
        return f"{count} B"
    for unit, power in (("KiB", 1), ("MiB", 2), ("GiB", 3)):
        if count < 1024 ** (power + 1):
            return f"{count / 1024**power:.2f} {unit}"
    return f"{count / 1024**3 / 1024:.2f} TiB"


def endpoint_text(endpoint: Endpoint) -> str:
    """endpoint(): getnameinfo()'s numeric host and port; an IPv6 host in brackets."""
    address = endpoint.address
    if isinstance(address, ipaddress.IPv6Address):
        host = format_prefix(ipaddress.IPv6Network((address, 128)))[: -len("/128")]
        return f"[{host}]:{endpoint.port}"
    return f"{address}:{endpoint.port}"


def _handshake_second(peer: Peer) -> int:
    return math.floor(peer.last_handshake)


def _sorted_peers(iface: Interface) -> list[Peer]:
    """sort_peers(): the most recent handshake first, peers without one last. glibc's
    qsort() is a merge sort, so ties keep the interface's order."""
    return sorted(iface.peers, key=lambda p: (p.last_handshake == 0, -p.last_handshake))


def pretty(iface: Interface, now: float) -> str:
    """`wg show IFACE`: keys are shown as (hidden), as without WG_HIDE_KEYS=never."""
    lines = [f"interface: {iface.name}"]
    if iface.public_key is not None:
        lines.append(f"  public key: {encode_key(iface.public_key)}")
    if iface.private_key is not None:
        lines.append("  private key: (hidden)")
    if iface.listen_port:
        lines.append(f"  listening port: {iface.listen_port}")
    if iface.fwmark:
        lines.append(f"  fwmark: 0x{iface.fwmark:x}")
    for peer in _sorted_peers(iface):
        lines.append("")
        lines.append(f"peer: {peer.name}")
        if any(peer.preshared_key):
            lines.append("  preshared key: (hidden)")
        if peer.endpoint is not None:
            lines.append(f"  endpoint: {endpoint_text(peer.endpoint)}")
        shown = ", ".join(format_prefix(p) for p in iface.allowed_ips_of(peer)) or "(none)"
        lines.append(f"  allowed ips: {shown}")
        if _handshake_second(peer):
            lines.append(f"  latest handshake: {ago(_handshake_second(peer), math.floor(now))}")
        if peer.rx_bytes or peer.tx_bytes:
            lines.append(f"  transfer: {human_bytes(peer.rx_bytes)} received, "
                         f"{human_bytes(peer.tx_bytes)} sent")
        if peer.persistent_keepalive:
            lines.append(f"  persistent keepalive: {every(peer.persistent_keepalive)}")
    return "\n".join(lines) + "\n"


def _maybe_key(key: bytes | None) -> str:
    return "(none)" if key is None else encode_key(key)


def _psk(peer: Peer) -> str:
    return encode_key(peer.preshared_key) if any(peer.preshared_key) else "(none)"


def _endpoint_or_none(peer: Peer) -> str:
    return "(none)" if peer.endpoint is None else endpoint_text(peer.endpoint)


def _fwmark(iface: Interface) -> str:
    return f"0x{iface.fwmark:x}" if iface.fwmark else "off"


def _keepalive(peer: Peer) -> str:
    return str(peer.persistent_keepalive) if peer.persistent_keepalive else "off"


def dump(iface: Interface, with_interface: bool = False) -> str:
    """`wg show IFACE dump`: tab-separated, a line for the interface (private key, public
    key, port, fwmark) and one per peer (public key, preshared key, endpoint, allowed IPs,
    latest handshake, received, sent, keepalive), in the interface's order."""
    prefix = f"{iface.name}\t" if with_interface else ""
    lines = [prefix + "\t".join([_maybe_key(iface.private_key), _maybe_key(iface.public_key),
                                 str(iface.listen_port), _fwmark(iface)])]
    for peer in iface.peers:
        allowed = ",".join(format_prefix(p) for p in iface.allowed_ips_of(peer)) or "(none)"
        lines.append(prefix + "\t".join([
            peer.name, _psk(peer), _endpoint_or_none(peer), allowed,
            str(_handshake_second(peer)), str(peer.rx_bytes), str(peer.tx_bytes),
            _keepalive(peer)]))
    return "\n".join(lines) + "\n"


def field(iface: Interface, param: str, with_interface: bool = False) -> str | None:
    """`wg show IFACE PARAM` (ugly_print()); None for a parameter `wg` does not know."""
    prefix = f"{iface.name}\t" if with_interface else ""
    if param == "dump":
        return dump(iface, with_interface)
    device_values = {
        "public-key": lambda: _maybe_key(iface.public_key),
        "private-key": lambda: _maybe_key(iface.private_key),
        "listen-port": lambda: str(iface.listen_port),
        "fwmark": lambda: _fwmark(iface),
    }
    if param in device_values:
        return prefix + device_values[param]() + "\n"
    peer_values = {
        "endpoints": _endpoint_or_none,
        "allowed-ips": lambda p: " ".join(format_prefix(a) for a in iface.allowed_ips_of(p))
        or "(none)",
        "latest-handshakes": lambda p: str(_handshake_second(p)),
        "transfer": lambda p: f"{p.rx_bytes}\t{p.tx_bytes}",
        "persistent-keepalive": _keepalive,
        "preshared-keys": _psk,
    }
    if param == "peers":
        return "".join(f"{prefix}{p.name}\n" for p in iface.peers)
    if param in peer_values:
        value = peer_values[param]
        return "".join(f"{prefix}{p.name}\t{value(p)}\n" for p in iface.peers)
    return None


def showconf(iface: Interface) -> str:
    """`wg showconf IFACE`: the interface as a configuration file for `wg setconf`."""
    lines = ["[Interface]"]
    if iface.listen_port:
        lines.append(f"ListenPort = {iface.listen_port}")
    if iface.fwmark:
        lines.append(f"FwMark = 0x{iface.fwmark:x}")
    if iface.private_key is not None:
        lines.append(f"PrivateKey = {encode_key(iface.private_key)}")
    lines.append("")
    blocks = []
    for peer in iface.peers:
        block = [f"[Peer]\nPublicKey = {peer.name}"]
        if any(peer.preshared_key):
            block.append(f"PresharedKey = {encode_key(peer.preshared_key)}")
        prefixes = iface.allowed_ips_of(peer)
        if prefixes:
            block.append("AllowedIPs = " + ", ".join(format_prefix(p) for p in prefixes))
        if peer.endpoint is not None:
            block.append(f"Endpoint = {endpoint_text(peer.endpoint)}")
        if peer.persistent_keepalive:
            block.append(f"PersistentKeepalive = {peer.persistent_keepalive}")
        blocks.append("\n".join(block) + "\n")
    return "\n".join(lines) + "\n" + "\n".join(blocks)
