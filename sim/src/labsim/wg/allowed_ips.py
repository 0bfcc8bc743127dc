"""Cryptokey routing: the AllowedIPs of an interface's peers, and the two questions asked of
them for every packet.

Outbound, the peer whose prefix matches the destination most specifically gets the packet
(``lookup``). Inbound, a decrypted packet is kept only if its source address looks up to the
very peer that sent it (``allowed_source``). Both follow the Linux module:
drivers/net/wireguard/allowedips.c, and the calls to it in device.c (sending) and receive.c.

The kernel keeps one trie node per prefix, owned by exactly one peer, so giving a prefix to
a peer takes it away from whichever peer had it. The table here is a frozen dataclass and
every change returns a new table.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

Prefix = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class PeerAllowedIPs:
    """One peer (named by its public key) and its prefixes, in the order `wg show` lists them."""

    peer: str
    prefixes: tuple[Prefix, ...] = ()


@dataclass(frozen=True)
class AllowedIPsTable:
    """An interface's peers, each with its AllowedIPs, in the order they were added (the
    kernel appends a new peer to the device's list: wg_peer_create() in peer.c)."""

    peers: tuple[PeerAllowedIPs, ...] = ()


def parse_prefix(text: str) -> Prefix:
    """A prefix in the syntax of `wg set ... allowed-ips` and `AllowedIPs =`, host bits masked.

    Follows parse_allowedips() in wireguard-tools' src/config.c: whitespace anywhere is
    dropped, an address without '/' is a single host (/32 or /128), and the length must be
    decimal digits no greater than the address's bits (so no netmask form such as
    /255.255.255.0). Addresses are read like inet_pton() reads them: no zone index (%eth0),
    no leading zeros in IPv4. Host bits set below the prefix length are accepted and cleared:
    the kernel's trie ignores them and prints the prefix without them
    (wg_allowedips_read_node() in allowedips.c), so 10.0.0.1/24 is shown as 10.0.0.0/24.
    Raises ValueError with `wg`'s own message on bad input.
    """
    entry = "".join(text.split())
    address_text, slash, length_text = entry.partition("/")
    address = _parse_address(address_text)
    bits = address.max_prefixlen
    if slash:
        if not length_text.isascii() or not length_text.isdigit() or int(length_text) > bits:
            raise ValueError(f"AllowedIP is not in the correct format: `{entry}'")
        length = int(length_text)
    else:
        length = bits
    return ipaddress.ip_network((address, length), strict=False)


def parse_allowed_ips(text: str) -> list[Prefix]:
    """The prefixes of a comma-separated AllowedIPs value; the empty string gives none
    (which is how `wg set ... allowed-ips ""` clears a peer's list)."""
    entry = "".join(text.split())
    if not entry:
        return []
    return [parse_prefix(item) for item in entry.split(",")]


def host_bits_warning(text: str) -> str | None:
    """The warning `wg` prints for a prefix with host bits set, or None when it has none.

    wireguard-tools' validate_netmask() in src/config.c; the prefix is still accepted.
    """
    entry = "".join(text.split())
    network = parse_prefix(entry)
    address = _parse_address(entry.partition("/")[0])
    if address == network.network_address:
        return None
    return f"Warning: AllowedIP has nonzero host part: {entry}"


def format_prefix(prefix: Prefix) -> str:
    """``prefix`` as `wg show` prints it: the address by glibc's inet_ntop(), then /length.

    Python's str() of an IPv6 address differs from inet_ntop() for addresses with an IPv4
    tail, which glibc writes in dotted form (::ffff:1.2.3.4, ::1.2.3.4), so IPv6 addresses
    are formatted here by glibc's rules (resolv/inet_ntop.c).
    """
    if isinstance(prefix, ipaddress.IPv4Network):
        address = str(prefix.network_address)
    else:
        address = _inet_ntop6(prefix.network_address)
    return f"{address}/{prefix.prefixlen}"


def add_peer(table: AllowedIPsTable, peer: str) -> AllowedIPsTable:
    """``table`` with ``peer`` added at the end with no AllowedIPs; unchanged if it is there."""
    if any(entry.peer == peer for entry in table.peers):
        return table
    return AllowedIPsTable(table.peers + (PeerAllowedIPs(peer),))


def remove_peer(table: AllowedIPsTable, peer: str) -> AllowedIPsTable:
    """``table`` without ``peer`` and its prefixes (`wg set IFACE peer KEY remove`)."""
    return AllowedIPsTable(tuple(entry for entry in table.peers if entry.peer != peer))


def add_allowed_ips(
    table: AllowedIPsTable, peer: str, prefixes: Iterable[Prefix | str]
) -> AllowedIPsTable:
    """``table`` with ``prefixes`` given to ``peer`` (added first if it is new).

    A prefix that any peer already has, this one included, is taken from it and put at the
    end of ``peer``'s list: that is add() in allowedips.c, which finds the existing node,
    points it at the new peer and list_move_tail()s it onto that peer's list.
    """
    table = add_peer(table, peer)
    for item in prefixes:
        # ipaddress networks never have host bits set; text is parsed and masked.
        prefix = parse_prefix(item) if isinstance(item, str) else item
        table = _give(table, peer, prefix)
    return table


def set_allowed_ips(
    table: AllowedIPsTable, peer: str, prefixes: Iterable[Prefix | str]
) -> AllowedIPsTable:
    """``table`` with ``peer``'s AllowedIPs replaced by ``prefixes``.

    This is `wg set IFACE peer KEY allowed-ips LIST` and a [Peer] section of `wg setconf`:
    both send WGPEER_REPLACE_ALLOWEDIPS (wireguard-tools' src/config.c), so the kernel drops
    the peer's old prefixes before adding the new ones, and takes the new ones from other
    peers as ``add_allowed_ips`` does.
    """
    table = add_peer(table, peer)
    cleared = AllowedIPsTable(
        tuple(
            PeerAllowedIPs(entry.peer) if entry.peer == peer else entry
            for entry in table.peers
        )
    )
    return add_allowed_ips(cleared, peer, prefixes)


def allowed_ips_of(table: AllowedIPsTable, peer: str) -> tuple[Prefix, ...]:
    """``peer``'s prefixes in `wg show` order; KeyError if the table has no such peer."""
    for entry in table.peers:
        if entry.peer == peer:
            return entry.prefixes
    raise KeyError(f"no peer {peer!r} on this interface")


def lookup(table: AllowedIPsTable, address: Address | str) -> str | None:
    """The peer whose prefix matches ``address`` most specifically, or None if none does.

    This is where the interface sends a packet for ``address``: wg_xmit() in device.c calls
    wg_allowedips_lookup_dst(), and with no match drops the packet with ENOKEY, which ping
    shows as "Required key not available". IPv4 addresses match only IPv4 prefixes and IPv6
    only IPv6, as the kernel keeps one trie for each.
    """
    target = ipaddress.ip_address(address) if isinstance(address, str) else address
    best: tuple[int, str] | None = None
    for entry in table.peers:
        for prefix in entry.prefixes:
            if prefix.version != target.version or target not in prefix:
                continue
            # Prefixes are unique in the table, so two matches never have the same length.
            if best is None or prefix.prefixlen > best[0]:
                best = (prefix.prefixlen, entry.peer)
    return None if best is None else best[1]


def allowed_source(table: AllowedIPsTable, peer: str, address: Address | str) -> bool:
    """Whether a packet that ``peer`` sent with inner source ``address`` is accepted.

    receive.c looks the source up as if routing to it (wg_allowedips_lookup_src()) and keeps
    the packet only if that gives back the sending peer. So being inside one of the peer's
    prefixes is not enough: if another peer has a longer prefix that matches, the packet is
    dropped (counted as rx_frame_errors on the interface).
    """
    return lookup(table, address) == peer


def format_allowed_ips(table: AllowedIPsTable) -> str:
    """The table as `wg show IFACE allowed-ips` prints it: a line per peer, the key, a tab,
    the prefixes separated by spaces or (none)."""
    lines = []
    for entry in table.peers:
        shown = " ".join(format_prefix(p) for p in entry.prefixes) or "(none)"
        lines.append(f"{entry.peer}\t{shown}")
    return "\n".join(lines)


def _parse_address(text: str) -> Address:
    """An IPv4 or IPv6 address as inet_pton() reads it, or ValueError with `wg`'s message."""
    error = ValueError(f"Unable to parse IP address: `{text}'")
    # Python accepts an IPv6 zone index ("fe80::1%eth0"); inet_pton() does not.
    if "%" in text:
        raise error
    try:
        # src/config.c: a ':' makes it IPv6, anything else is tried as IPv4.
        if ":" in text:
            return ipaddress.IPv6Address(text)
        return ipaddress.IPv4Address(text)
    except ValueError:
        raise error from None


def _give(table: AllowedIPsTable, peer: str, prefix: Prefix) -> AllowedIPsTable:
    """``table`` with ``prefix`` taken from whoever has it and appended to ``peer``'s list."""
    entries = []
    for entry in table.peers:
        kept = tuple(p for p in entry.prefixes if p != prefix)
        if entry.peer == peer:
            kept += (prefix,)
        entries.append(PeerAllowedIPs(entry.peer, kept))
    return AllowedIPsTable(tuple(entries))


def _inet_ntop6(address: ipaddress.IPv6Address) -> str:
    """glibc's inet_ntop(AF_INET6, ...): hex groups without leading zeros, the longest run
    (the first of equal ones) of two or more zero groups as '::', and an IPv4 tail in dotted
    form after six zero groups or after five and ffff."""
    packed = address.packed
    words = [int.from_bytes(packed[i : i + 2], "big") for i in range(0, 16, 2)]
    best_start, best_len = -1, 0
    run_start, run_len = -1, 0
    for i, word in enumerate(words):
        if word == 0:
            if run_start < 0:
                run_start, run_len = i, 0
            run_len += 1
            if run_len > best_len:
                best_start, best_len = run_start, run_len
        else:
            run_start = -1
    if best_len < 2:
        best_start, best_len = -1, 0

    text = ""
    for i, word in enumerate(words):
        if best_start >= 0 and best_start <= i < best_start + best_len:
            if i == best_start:
                text += ":"
            continue
        if i != 0:
            text += ":"
        if i == 6 and best_start == 0 and (best_len == 6 or (best_len == 5 and words[5] == 0xFFFF)):
            text += str(ipaddress.IPv4Address(packed[12:]))
            break
        text += f"{word:x}"
    if best_start >= 0 and best_start + best_len == 8:
        text += ":"
    return text
