"""What `wg` makes of its command line and of configuration files, before it talks to the
kernel: wireguard-tools 1.0.20210914, src/config.c (config_read_cmd() for `wg set`,
config_read_init/line/finish() for `wg setconf`, `addconf` and `syncconf`) and the
sync_conf() of src/setconf.c.

Every function returns a ``DeviceChange`` (see ``device``) or raises ``ConfigError`` with the
lines `wg` prints to stderr. Warnings that `wg` prints and carries on after (a prefix with
host bits set) are appended to the ``warnings`` list the caller passes in, in order.

Addresses and ports go through glibc's getaddrinfo() in the real tool. This model has no
name service: numeric addresses are read as getaddrinfo() reads them (inet_aton() forms such
as 127.1 or 010.0.0.1 included), and any name is "not known", as an unknown name is on a
host whose resolver works. Service names (`listen-port domain`) are not looked up either.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from labsim.wg import allowed_ips as aips
from labsim.wg.device import ZERO_KEY, DeviceChange, Endpoint, Interface, PeerChange
from labsim.wg.keys import KEY_LEN_BASE64, decode_key

# glibc's gai_strerror() texts for the getaddrinfo() errors that can come up here.
EAI_SERVICE = "Servname not supported for ai_socktype"
EAI_NONAME = "Name or service not known"

# parse_dns_retries(): 15 retries unless WG_ENDPOINT_RESOLUTION_RETRIES says otherwise.
DNS_RETRIES = 15

ULONG_MAX = 2**64 - 1


class ConfigError(Exception):
    """Input `wg` refuses. ``text`` is everything it prints to stderr (newline-terminated);
    ``delay`` is how long it slept retrying a name lookup first, in seconds."""

    def __init__(self, text: str, delay: float = 0.0):
        super().__init__(text)
        self.text = text
        self.delay = delay


class FileError(Exception):
    """A file that cannot be read; ``strerror`` is what perror() appends."""

    def __init__(self, strerror: str):
        super().__init__(strerror)
        self.strerror = strerror


class IsDirectory(FileError):
    """fopen() of a directory succeeds on Linux, and reading it fails with EISDIR."""

    def __init__(self) -> None:
        super().__init__("Is a directory")


ReadFile = Callable[[str], str]
"""How the caller reads a file: path in, its text out, or FileError."""


@dataclass
class _Peer:
    """A peer being read: the fields of struct wgpeer, with None for "not given"."""

    public_key: bytes | None = None
    remove: bool = False
    preshared_key: bytes | None = None
    endpoint: Endpoint | None = None
    persistent_keepalive: int | None = None
    replace_allowed_ips: bool = False
    allowed_ips: list[aips.Prefix] = field(default_factory=list)

    def frozen(self) -> PeerChange:
        assert self.public_key is not None
        return PeerChange(self.public_key, self.remove, self.preshared_key, self.endpoint,
                          self.persistent_keepalive, self.replace_allowed_ips,
                          tuple(self.allowed_ips))


# --- values ---------------------------------------------------------------------------------


def char_is_space(c: str) -> bool:
    """wireguard-tools' src/ctype.h: the C locale's isspace(), \\t \\n \\v \\f \\r and space."""
    return c in " \t\n\v\f\r"


def parse_key(value: str) -> bytes:
    """parse_key(): exactly 44 characters that key_from_base64() accepts."""
    try:
        if len(value) != KEY_LEN_BASE64 or value.strip() != value:
            raise ValueError(value)
        return decode_key(value)
    except ValueError:
        raise ConfigError(f"Key is not the correct length or format: `{value}'\n") from None


def parse_keyfile(read: ReadFile, path: str) -> bytes:
    """parse_keyfile(): 44 characters, then nothing but white space. An empty file (or
    /dev/null) is the zero key, which removes a private or preshared key."""
    try:
        data = read(path)
    except IsDirectory:
        raise ConfigError("Invalid length key in key file\n") from None
    except FileError as err:
        raise ConfigError(f"fopen: {err.strerror}\n") from None
    if len(data) < KEY_LEN_BASE64:
        if not data:
            return ZERO_KEY
        raise ConfigError("Invalid length key in key file\n")
    for c in data[KEY_LEN_BASE64:]:
        if not char_is_space(c):
            raise ConfigError(f"Found trailing character in key file: `{c}'\n")
    # The key is then a C string: a NUL in it ends it.
    return parse_key(data[:KEY_LEN_BASE64].split("\0")[0])


def strtoul(text: str, base: int) -> tuple[int, str]:
    """C's strtoul(): the value and the unread rest. Leading white space and a sign are
    allowed, a minus negates modulo 2**64, overflow gives ULONG_MAX, and with no digits
    nothing is read (the rest is all of ``text``)."""
    i = 0
    while i < len(text) and text[i] in " \t\n\v\f\r":
        i += 1
    negative = False
    if i < len(text) and text[i] in "+-":
        negative = text[i] == "-"
        i += 1
    if base == 16 and text[i : i + 2].lower() == "0x" and _digit(text[i + 2 : i + 3], 16):
        i += 2
    start, value = i, 0
    while i < len(text) and _digit(text[i], base):
        value = value * base + int(text[i], base)
        i += 1
    if i == start:
        return 0, text
    if value > ULONG_MAX:
        return ULONG_MAX, text[i:]
    return (-value % 2**64 if negative else value), text[i:]


def _digit(c: str, base: int) -> bool:
    return c != "" and c.isascii() and c.isalnum() and int(c, 36) < base


def _service_port(service: str) -> int | None:
    """The port getaddrinfo() makes of a service string, or None (EAI_SERVICE).

    glibc reads it with strtoul() into an int: if all of it was read and the int is not
    negative, its low 16 bits are the port (so 65536 is port 0); otherwise it is looked up
    as a service name, which this model does not do.
    """
    value, rest = strtoul(service, 10)
    if rest == "":
        as_int = value & 0xFFFFFFFF
        if as_int < 2**31:
            return as_int & 0xFFFF
    return None


def parse_port(value: str) -> int:
    """parse_port(): ListenPort and `listen-port`."""
    if not value:
        raise ConfigError("Unable to parse empty port\n")
    port = _service_port(value)
    if port is None:
        raise ConfigError(f"{EAI_SERVICE}: `{value}'\n")
    return port


def parse_fwmark(value: str) -> int:
    """parse_fwmark(): off, or decimal or 0x hexadecimal up to 0xffffffff."""
    if value.lower() == "off":
        return 0
    error = ConfigError(f"Fwmark is neither 0/off nor 0-0xffffffff: `{value}'\n")
    if not value[:1].isdigit() or not value[:1].isascii():
        raise error
    base = 16 if len(value) > 2 and value[:2] == "0x" else 10
    number, rest = strtoul(value, base)
    if rest or number > 0xFFFFFFFF:
        raise error
    return number


def parse_persistent_keepalive(value: str) -> int:
    """parse_persistent_keepalive(): off, or 0-65535 seconds."""
    if value.lower() == "off":
        return 0
    error = ConfigError(
        f"Persistent keepalive interval is neither 0/off nor 1-65535: `{value}'\n")
    if not value[:1].isdigit() or not value[:1].isascii():
        raise error
    number, rest = strtoul(value, 10)
    if rest or number > 65535:
        raise error
    return number


def inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """glibc's __inet_aton_exact(), which getaddrinfo() tries first: one to four parts,
    each decimal, 0-prefixed octal or 0x-prefixed hexadecimal, the last filling the bytes
    that are left (127.1 is 127.0.0.1, 010.0.0.1 is 8.0.0.1)."""
    parts: list[int] = []
    i = 0
    while True:
        if i >= len(text) or not (text[i].isascii() and text[i].isdigit()):
            return None
        base, start = 10, i
        if text[i] == "0":
            i += 1
            if i < len(text) and text[i] in "xX":
                base, i = 16, i + 1
            else:
                base = 8
            start = i if base == 16 else i - 1
        while i < len(text) and _digit(text[i], 16 if base == 16 else 10):
            if base == 8 and text[i] in "89":
                return None
            i += 1
        if i == start:
            return None  # "0x" and nothing after it
        value = int(text[start:i], base)
        if i < len(text) and text[i] == ".":
            if len(parts) > 2 or value > 0xFF:
                return None
            parts.append(value)
            i += 1
            continue
        break
    if i != len(text):
        return None
    limit = (0xFFFFFFFF, 0xFFFFFF, 0xFFFF, 0xFF)[len(parts)]
    if value > limit:
        return None
    word = value
    for n, part in enumerate(parts):
        word |= part << (24 - 8 * n)
    return ipaddress.IPv4Address(word)


def _getaddrinfo(host: str, service: str) -> tuple[Endpoint | None, str]:
    """The endpoint for ``host`` and ``service``, or None and gai_strerror()'s text."""
    port = _service_port(service)
    if port is None:
        return None, EAI_SERVICE
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = inet_aton(host)
    if address is None and ":" in host and "%" not in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            address = None
    if address is None:
        return None, EAI_NONAME
    return Endpoint(address, port), ""


def parse_endpoint(value: str) -> Endpoint:
    """parse_endpoint(): HOST:PORT or [IPV6]:PORT. A transient getaddrinfo() failure (here:
    a port that is not a number) is retried 15 times, sleeping 1 s and then 6/5 as long each
    time (at most 20 s); ConfigError.delay has the total."""
    if not value:
        raise ConfigError("Unable to parse empty endpoint\n")
    if value[0] == "[":
        close = value.find("]")
        if close < 0:
            raise ConfigError(f"Unable to find matching brace of endpoint: `{value}'\n")
        host, rest = value[1:close], value[close + 1 :]
        if rest[:1] != ":" or len(rest) == 1:
            raise ConfigError(f"Unable to find port of endpoint: `{value}'\n")
        service = rest[1:]
    else:
        colon = value.rfind(":")
        if colon < 0 or colon == len(value) - 1:
            raise ConfigError(f"Unable to find port of endpoint: `{value}'\n")
        host, service = value[:colon], value[colon + 1 :]
    endpoint, error = _getaddrinfo(host, service)
    if endpoint is not None:
        return endpoint
    if error == EAI_NONAME:  # a permanent failure: no retries
        raise ConfigError(f"{error}: `{value}'\n")
    lines, delay, timeout = [], 0.0, 1_000_000
    for _ in range(DNS_RETRIES):
        lines.append(f"{error}: `{value}'. Trying again in {timeout / 1_000_000:.2f} seconds...\n")
        delay += timeout / 1_000_000
        timeout = min(20_000_000, timeout * 6 // 5)
    lines.append(f"{error}: `{value}'\n")
    raise ConfigError("".join(lines), delay)


def parse_allowed_ips(peer: _Peer, value: str, warnings: list[str]) -> None:
    """parse_allowedips(): a comma-separated list, given with its white space removed.
    It replaces the peer's AllowedIPs (WGPEER_REPLACE_ALLOWEDIPS); an empty list clears them."""
    peer.replace_allowed_ips = True
    if not value:
        return
    for entry in value.split(","):
        try:
            prefix = aips.parse_prefix(entry)
        except ValueError as err:
            raise ConfigError(f"{err}\n") from None
        warning = aips.host_bits_warning(entry)
        if warning:
            warnings.append(warning + "\n")
        peer.allowed_ips.append(prefix)


# --- wg set -------------------------------------------------------------------------------


def read_cmd(args: list[str], read: ReadFile, warnings: list[str]) -> DeviceChange:
    """config_read_cmd(): the arguments of `wg set IFACE ...` after the interface."""
    private_key = listen_port = fwmark = None
    peers: list[_Peer] = []
    peer: _Peer | None = None
    while args:
        word, have_value = args[0], len(args) >= 2
        value = args[1] if have_value else ""
        if word == "listen-port" and have_value and peer is None:
            listen_port = parse_port(value)
        elif word == "fwmark" and have_value and peer is None:
            fwmark = parse_fwmark(value)
        elif word == "private-key" and have_value and peer is None:
            private_key = parse_keyfile(read, value)
        elif word == "peer" and have_value:
            peer = _Peer()
            peers.append(peer)
            peer.public_key = parse_key(value)
        elif word == "remove" and peer is not None:
            peer.remove = True
            args = args[1:]
            continue
        elif word == "endpoint" and have_value and peer is not None:
            peer.endpoint = parse_endpoint(value)
        elif word == "allowed-ips" and have_value and peer is not None:
            parse_allowed_ips(peer, "".join(c for c in value if not char_is_space(c)),
                              warnings)
        elif word == "persistent-keepalive" and have_value and peer is not None:
            peer.persistent_keepalive = parse_persistent_keepalive(value)
        elif word == "preshared-key" and have_value and peer is not None:
            peer.preshared_key = parse_keyfile(read, value)
        else:
            raise ConfigError(f"Invalid argument: {word}\n")
        args = args[2:]
    return DeviceChange(private_key, listen_port, fwmark, False,
                        tuple(p.frozen() for p in peers))


# --- configuration files ----------------------------------------------------------------------


def read_config(text: str, append: bool, warnings: list[str]) -> DeviceChange:
    """A configuration file as `wg setconf` (``append`` false) or `wg addconf` (true) reads it.

    setconf replaces everything: all peers go (WGDEVICE_REPLACE_PEERS), and a private key,
    fwmark or port the file does not give is set to none, off or 0. addconf changes only
    what the file names. Each [Peer] replaces that peer's AllowedIPs, with those it lists
    or none. ConfigError's text ends with "Configuration parsing error" or "Invalid
    configuration", as `wg` prints them.
    """
    private_key: bytes | None = None if append else ZERO_KEY
    listen_port: int | None = None if append else 0
    fwmark: int | None = None if append else 0
    peers: list[_Peer] = []
    section = ""
    for raw in text.splitlines(keepends=True):
        # config_read_line(): a C string up to the first NUL; the comment cut off; every
        # white-space character removed, wherever it is.
        line = raw.split("\0")[0].split("#")[0]
        line = "".join(c for c in line if not char_is_space(c))
        if not line:
            continue
        try:
            lower = line.lower()
            if lower == "[interface]":
                section = "interface"
                continue
            if lower == "[peer]":
                section = "peer"
                peers.append(_Peer(replace_allowed_ips=True))
                continue
            key, value = _key_value(line)
            if section == "interface" and key == "listenport":
                listen_port = parse_port(value)
            elif section == "interface" and key == "fwmark":
                fwmark = parse_fwmark(value)
            elif section == "interface" and key == "privatekey":
                private_key = parse_key(value)
            elif section == "peer" and key == "endpoint":
                peers[-1].endpoint = parse_endpoint(value)
            elif section == "peer" and key == "publickey":
                peers[-1].public_key = parse_key(value)
            elif section == "peer" and key == "allowedips":
                parse_allowed_ips(peers[-1], value, warnings)
            elif section == "peer" and key == "persistentkeepalive":
                peers[-1].persistent_keepalive = parse_persistent_keepalive(value)
            elif section == "peer" and key == "presharedkey":
                peers[-1].preshared_key = parse_key(value)
            else:
                raise ConfigError(f"Line unrecognized: `{line}'\n")
        except ConfigError as err:
            raise ConfigError(err.text + "Configuration parsing error\n", err.delay) from None
    if any(p.public_key is None for p in peers):
        raise ConfigError("A peer is missing a public key\nInvalid configuration\n")
    return DeviceChange(private_key, listen_port, fwmark, not append,
                        tuple(p.frozen() for p in peers))


_KEYS = ("listenport", "fwmark", "privatekey", "endpoint", "publickey", "allowedips",
         "persistentkeepalive", "presharedkey")


def _key_value(line: str) -> tuple[str, str]:
    """get_value(): "Key=" matched without regard to case, and only with a value after it."""
    for key in _KEYS:
        prefix = key + "="
        if len(line) > len(prefix) and line[: len(prefix)].lower() == prefix:
            return key, line[len(prefix) :]
    return "", line


def sync_change(change: DeviceChange, runtime: Interface) -> DeviceChange:
    """sync_conf() of `wg syncconf`: when the file has peers and the interface has peers,
    peers are no longer all replaced; instead those the file does not name are removed, so
    the others keep their endpoints, handshakes and counters. (Version 1.0.20210914 resets
    nothing else: a preshared key or keepalive the file leaves out stays as it is.)"""
    if not change.peers or not runtime.peers:
        return change
    named = {p.public_key for p in change.peers}
    # sync_conf() walks the peers sorted by key and puts each removal at the front.
    gone = sorted(p.public_key for p in runtime.peers if p.public_key not in named)
    removals = tuple(PeerChange(key, remove=True) for key in reversed(gone))
    return replace(change, replace_peers=False, peers=removals + change.peers)
