"""How a host of the network looks a name up, as glibc 2.36 does it with the files its
programs read: /etc/nsswitch.conf (the hosts line), /etc/hosts and /etc/resolv.conf
(nameservers, options timeout and attempts), read through the network (``Network.files``:
every host's files by host name). `ssh` and `getent hosts` ask it; how long a lookup takes is
labsim.net.ssh_login's business.

What a nameserver does with a query depends on its host: an address no host of the network
has never answers (the resolver waits its timeout); a host whose filter INPUT chain drops
UDP port 53 (labs/net/05-slow-ssh/dns.sh) never answers either; any other host has nothing
listening on port 53 (labsim runs no name server) and refuses the query at once (ICMP port
unreachable). So a name that is not in /etc/hosts never resolves.

A missing file means Debian 12's: `hosts: files dns`, and no resolv.conf, with which glibc
asks 127.0.0.1 (res_init.c), where nothing listens.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsim.net import model
from labsim.net import ssh_login as login_model

if TYPE_CHECKING:
    from labsim.shell.session import Session


class NotModelled(Exception):
    """A form or a setting labsim does not model (in a host's files, or in the ssh command
    line); the message says which."""


NSSWITCH_CONF = "/etc/nsswitch.conf"
RESOLV_CONF = "/etc/resolv.conf"
HOSTS = "/etc/hosts"


def host_text(files: model.HostFiles, path: str) -> str | None:
    file = files.files.get(path)
    return None if file is None else (file.text or "")


def config_lines(text: str) -> list[tuple[int, str]]:
    """Numbered lines without comments and blanks."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((number, line))
    return out


@dataclass(frozen=True)
class HostsLine:
    """The hosts line of nsswitch.conf, in the forms the lesson uses."""

    files: bool = True
    mdns: bool = False  # mdns4_minimal [NOTFOUND=return]
    dns: bool = True


def read_nsswitch(files: model.HostFiles) -> HostsLine:
    text = host_text(files, NSSWITCH_CONF)
    if text is None:
        return HostsLine()  # Debian's: hosts: files dns
    for _number, line in config_lines(text):
        if line.startswith("hosts:"):
            words = line.split()[1:]
            known = ["files", "mdns4_minimal", "mdns_minimal", "[NOTFOUND=return]", "dns"]
            order = [known.index(w) for w in words if w in known]
            if len(order) != len(words) or order != sorted(order):
                raise NotModelled(f"the hosts line `{line}' of {NSSWITCH_CONF}")
            mdns = any(w.startswith("mdns") for w in words)
            if mdns and "[NOTFOUND=return]" not in words:
                raise NotModelled(f"mdns without [NOTFOUND=return] in {NSSWITCH_CONF}")
            return HostsLine("files" in words, mdns, "dns" in words)
    # No hosts line: glibc's default for a database not named (nss_database.c).
    raise NotModelled(f"a {NSSWITCH_CONF} without a hosts line")


def read_hosts(files: model.HostFiles) -> list[tuple[str, list[str]]]:
    """/etc/hosts: (address, names) in file order."""
    entries = []
    for _number, line in config_lines(host_text(files, HOSTS) or ""):
        words = line.split()
        if len(words) > 1:
            entries.append((words[0], words[1:]))
    return entries


def read_resolver(network: model.Network, files: model.HostFiles,
              host: model.Host) -> login_model.Resolver:
    """/etc/resolv.conf and what its nameservers do (see the module's docstring)."""
    servers, timeout, attempts = [], login_model.DEFAULT_TIMEOUT, login_model.DEFAULT_ATTEMPTS
    for _number, line in config_lines(host_text(files, RESOLV_CONF) or ""):
        words = line.split()
        if words[0] == "nameserver" and len(words) > 1:
            servers.append(words[1])
        elif words[0] == "options":
            for option in words[1:]:
                name, _, value = option.partition(":")
                if name in ("timeout", "attempts") and value.isdigit():
                    timeout, attempts = ((int(value), attempts) if name == "timeout"
                                         else (timeout, int(value)))
    # res_init.c: no nameserver line, or no file, means the local host (INADDR_LOOPBACK).
    servers = servers[:login_model.MAX_NAMESERVERS] or ["127.0.0.1"]
    states = {_nameserver_state(network, host, server) for server in servers}
    if len(states) > 1:
        raise NotModelled("nameservers that differ (one drops queries, another refuses)")
    return login_model.Resolver(nameservers=len(servers), timeout=timeout, attempts=attempts,
                                state=states.pop())


def _nameserver_state(network: model.Network, asking: model.Host, server: str) -> str:
    try:
        address = ipaddress.IPv4Address(server)
    except ValueError:
        raise NotModelled(f"the nameserver {server}") from None
    owner = asking if address.is_loopback else next(
        (h for h in network.hosts.values() if model.is_local(h, address)), None)
    if owner is None:
        return login_model.DROPS  # nobody there: no answer, not even a refusal
    return login_model.DROPS if _drops_dns(owner, address) else login_model.REFUSES


def _drops_dns(host: model.Host, address: ipaddress.IPv4Address) -> bool:
    """Whether the host's filter INPUT chain drops a DNS query (UDP, port 53) to
    ``address``: the first rule that matches decides (DROP or ACCEPT); a rule with
    options other than -p, -d, -m udp|tcp and --dport is taken not to match."""
    for rule in host.firewall.get("filter", {}).get("INPUT", []):
        words, verdict, matches = rule.split(), None, True
        while words:
            word = words.pop(0)
            value = words.pop(0) if words else ""
            if word == "-p":
                matches &= value in ("udp", "all")
            elif word == "-d":
                matches &= address in ipaddress.IPv4Network(value, strict=False)
            elif word == "-m" and value in ("udp", "tcp"):
                continue
            elif word == "--dport":
                matches &= value == "53"
            elif word == "-j":
                verdict = value
            else:
                matches = False
        if matches and verdict in ("DROP", "ACCEPT"):
            return verdict == "DROP"
    return False


def parse_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def in_hosts(entries: list[tuple[str, list[str]]], name: str, version: int
              ) -> tuple[str, list[str]] | None:
    """The first /etc/hosts line of that address family naming ``name`` (files backend,
    nss_files/files-hosts.c: no merging of lines by default)."""
    for address, names in entries:
        parsed = parse_address(address)
        if parsed is not None and parsed.version == version and name in names:
            return address, names
    return None


def lookup_target(name: str, hosts_line: HostsLine, entries: list[tuple[str, list[str]]]) -> str:
    """How the model sees the name the client looks up."""
    if parse_address(name) is not None:
        return login_model.BY_ADDRESS
    if hosts_line.files and in_hosts(entries, name, 4) is not None:
        return login_model.BY_HOSTS_FILE
    # mdns4_minimal takes NAME.local (two labels); nss-mdns passes longer names on.
    if name.endswith(".local") and name.count(".") == 1:
        return login_model.BY_MDNS_NAME
    return login_model.BY_DNS_NAME


@dataclass(frozen=True)
class Machine:
    """A host of the network with the files its programs read."""

    host: model.Host
    files: model.HostFiles
    hosts_line: HostsLine
    hosts: list[tuple[str, list[str]]]
    resolver: login_model.Resolver


def machine_of(session: Session, name: str) -> Machine:
    network = session.network
    assert network is not None  # Session.__post_init__ always makes one
    host = network.hosts[name]
    files = network.files.setdefault(name, model.HostFiles())
    return Machine(host, files, read_nsswitch(files), read_hosts(files),
                   read_resolver(network, files, host))


def client_settings(machine: Machine, target: str) -> login_model.ClientSettings:
    return login_model.ClientSettings(target=target, mdns_in_nsswitch=machine.hosts_line.mdns,
                                      dns_in_nsswitch=machine.hosts_line.dns,
                                      resolver=machine.resolver)
