"""`ssh` (OpenSSH 9.2p1), `getent hosts` (glibc 2.36) and bash's `time`, for the slow-SSH
lesson (labs/net/05-slow-ssh/).

How long a login takes is labsim.net.ssh_login's business; this module only reads the
settings it needs from the files of the hosts, as the real programs do, and turns the
model's phases into the clock and the output of the commands:

* the client's ~/.ssh/config and /etc/ssh/ssh_config (GSSAPIAuthentication, HostName, User,
  Port, HostKeyAlias, ControlMaster, ControlPath, ControlPersist; the first value read
  wins: `-o` and `-p` options, then ~/.ssh/config, then ssh_config),
  /etc/nsswitch.conf (the hosts line), /etc/resolv.conf (nameservers, options timeout and
  attempts) and /etc/hosts;
* the server's /etc/ssh/sshd_config (UseDNS, GSSAPIAuthentication, and what decides the list
  of authentication methods) and /etc/resolv.conf and /etc/hosts, read through the network
  (``Network.files``: every host's files by host name).

What a nameserver does with a query depends on its host: an address no host of the network
has never answers (the resolver waits its timeout); a host whose filter INPUT chain drops
UDP port 53 (labs/net/05-slow-ssh/dns.sh) never answers either; any other host has nothing
listening on port 53 (labsim runs no name server) and refuses the query at once (ICMP port
unreachable). So a name that is not in /etc/hosts never resolves.

A missing file means Debian 12's: /etc/ssh/ssh_config as the openssh-client package ships
it (GSSAPIAuthentication yes), sshd with the package's sshd_config (UseDNS and GSSAPI off,
KbdInteractiveAuthentication no), `hosts: files dns`, and no resolv.conf, with which glibc
asks 127.0.0.1 (res_init.c), where nothing listens. The server is the sshd a script started
on the host (labsim.shell.commands.sshd), with the configuration it read at start, or on a
host with Debian's packaged sshd (every host of a page) that one, with the host's current
sshd_config; with neither, the connection is refused. Against an sshd a script started, the
server's host key must be in the client's known hosts and the client's key in the server's
AuthorizedKeysFile (StrictHostKeyChecking yes, ed25519 keys, as the lab has them); Debian's
packaged sshd, whose host keys labsim does not keep, is taken to know the client.

Recorded on Debian 12 in network namespaces (a client, a server and a name server that
drops queries, as in tools/probes/slow_ssh_probe.sh); the texts are in
tests/unit/test_ssh_commands.py.
"""

from __future__ import annotations

import fnmatch
import hashlib
import ipaddress
import math
import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labsim.net import model, ssh_keys
from labsim.net import ssh_login as login_model
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile
from labsim.shell.commands import sshd as sshd_command
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

SSH_CONFIG = "/etc/ssh/ssh_config"
USER_SSH_CONFIG = "/root/.ssh/config"  # ~/.ssh/config of root, the user of every labsim shell
SSHD_CONFIG = "/etc/ssh/sshd_config"
NSSWITCH_CONF = "/etc/nsswitch.conf"
RESOLV_CONF = "/etc/resolv.conf"
HOSTS = "/etc/hosts"
SSH_PORT = 22
LOCAL_USER = "root"  # every labsim shell is root's
HOME = "/root"

OPENSSH_VERSION = "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026"
# Debian 12's /etc/ssh/ssh_config: an Include on line 19 (ssh_config.d is empty), then
# "Host *" on line 21 with GSSAPIAuthentication yes among its options.
DEBIAN_SSH_CONFIG_DEBUG = (
    f"debug1: {SSH_CONFIG} line 19: include /etc/ssh/ssh_config.d/*.conf matched no files\n"
    f"debug1: {SSH_CONFIG} line 21: Applying options for *\n")
DEBIAN_SSH_CONFIG = {"gssapiauthentication": "yes"}
# Debian 12's /etc/ssh/sshd_config, as far as this module reads it.
DEBIAN_SSHD_CONFIG = {"kbdinteractiveauthentication": "no", "usepam": "yes"}
# krb5 with no ticket, once for each GSSAPI mechanism the client tries (recorded).
GSSAPI_NO_CREDENTIALS = (
    "debug1: No credentials were supplied, or the credentials were unavailable or "
    "inaccessible\nNo Kerberos credentials available (default cache: FILE:/tmp/krb5cc_0)\n\n\n")
# sshconnect.c warn_changed_key() and check_host_key(), recorded with StrictHostKeyChecking yes.
HOST_KEY_CHANGED = (
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"
    "Someone could be eavesdropping on you right now (man-in-the-middle attack)!\n"
    "It is also possible that a host key has just been changed.\n"
    "The fingerprint for the ED25519 key sent by the remote host is\n"
    "{fingerprint}.\n"
    "Please contact your system administrator.\n"
    "Add correct host key in {known} to get rid of this message.\n"
    "Offending ED25519 key in {path}:{line}\n"
    "  remove with:\n"
    '  ssh-keygen -f "{path}" -R "{host}"\n'
    "Host key for {host} has changed and you have requested strict checking.\n"
    "Host key verification failed.\n")
GETENT_USAGE = ("getent: wrong number of arguments\n"
                "Try `getent --help' or `getent --usage' for more information.")
# bash's `time` prints CPU times too; labsim does not model them: small fixed figures.
USER_SECONDS, SYS_SECONDS = 0.003, 0.001


class NotModelled(Exception):
    """A form or a setting this module does not model; the message says which."""


@dataclass
class ControlSocket(HostFile):
    """The socket of a ControlMaster with ControlPersist: the master, connected to network
    host ``server``, serves logins until ``persist`` seconds after the end of the last
    session (``mtime``), then exits and removes its socket."""

    server: str = ""
    persist: float = math.inf

    def alive(self, now: float) -> bool:
        return now < self.mtime + self.persist


# ---------------------------------------------------------------- the files of a host

def _text(files: model.HostFiles, path: str) -> str | None:
    file = files.files.get(path)
    return None if file is None else (file.text or "")


def _lines(text: str) -> list[tuple[int, str]]:
    """Numbered lines without comments and blanks."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((number, line))
    return out


def _keyword(line: str) -> tuple[str, str]:
    """`Keyword value` or `Keyword=value` (readconf.c strdelim()): lower-case keyword."""
    key, _, value = line.replace("=", " ", 1).partition(" ")
    return key.lower(), value.strip().strip('"')


@dataclass(frozen=True)
class HostsLine:
    """The hosts line of nsswitch.conf, in the forms the lesson uses."""

    files: bool = True
    mdns: bool = False  # mdns4_minimal [NOTFOUND=return]
    dns: bool = True


def read_nsswitch(files: model.HostFiles) -> HostsLine:
    text = _text(files, NSSWITCH_CONF)
    if text is None:
        return HostsLine()  # Debian's: hosts: files dns
    for _number, line in _lines(text):
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
    for _number, line in _lines(_text(files, HOSTS) or ""):
        words = line.split()
        if len(words) > 1:
            entries.append((words[0], words[1:]))
    return entries


def _resolver(network: model.Network, files: model.HostFiles,
              host: model.Host) -> login_model.Resolver:
    """/etc/resolv.conf and what its nameservers do (see the module's docstring)."""
    servers, timeout, attempts = [], login_model.DEFAULT_TIMEOUT, login_model.DEFAULT_ATTEMPTS
    for _number, line in _lines(_text(files, RESOLV_CONF) or ""):
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


# ---------------------------------------------------------------- name lookups

def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _in_hosts(entries: list[tuple[str, list[str]]], name: str, version: int
              ) -> tuple[str, list[str]] | None:
    """The first /etc/hosts line of that address family naming ``name`` (files backend,
    nss_files/files-hosts.c: no merging of lines by default)."""
    for address, names in entries:
        parsed = _address(address)
        if parsed is not None and parsed.version == version and name in names:
            return address, names
    return None


def _target(name: str, hosts_line: HostsLine, entries: list[tuple[str, list[str]]]) -> str:
    """How the model sees the name the client looks up."""
    if _address(name) is not None:
        return login_model.BY_ADDRESS
    if hosts_line.files and _in_hosts(entries, name, 4) is not None:
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


def _machine(session: Session, name: str) -> Machine:
    network = session.network
    assert network is not None  # Session.__post_init__ always makes one
    host = network.hosts[name]
    files = network.files.setdefault(name, model.HostFiles())
    return Machine(host, files, read_nsswitch(files), read_hosts(files),
                   _resolver(network, files, host))


def _client_settings(machine: Machine, target: str) -> login_model.ClientSettings:
    return login_model.ClientSettings(target=target, mdns_in_nsswitch=machine.hosts_line.mdns,
                                      dns_in_nsswitch=machine.hosts_line.dns,
                                      resolver=machine.resolver)


# ---------------------------------------------------------------- getent hosts

@command("getent")
def getent(session: Session, argv: list[str]) -> CommandResult:
    """`getent hosts KEY...` as glibc 2.36's getent does it (nss/getent.c hosts_keys()): an
    address is looked up by address; a name first as IPv6 (gethostbyname2(AF_INET6)), then
    as IPv4: a name /etc/hosts has only as IPv4 costs one DNS lookup (measured 1.0 s with
    the lab's resolver). Prints "ADDRESS NAMES" (%-15s); exit 2 if a key is not found."""
    if len(argv) < 2:
        return CommandResult.fail(GETENT_USAGE, 1)
    if argv[1] != "hosts" or len(argv) == 2:
        return CommandResult.fail(msg.command_line_not_simulated("getent", argv), 2)
    try:
        machine = _machine(session, session.hostname)
    except NotModelled as err:
        return CommandResult.fail(msg.tool_not_simulated("getent", str(err)), 2)
    dns_lookup = login_model.lookup_seconds(machine.resolver)
    out, status, seconds = [], 0, 0.0
    for key in argv[2:]:
        found: tuple[str, list[str]] | None = None
        address = _address(key)
        if address is not None:
            if machine.hosts_line.files:
                found = next(((a, n) for a, n in machine.hosts if _address(a) == address),
                             None)
            if found is None and machine.hosts_line.dns:
                seconds += dns_lookup  # the PTR query
        else:
            if machine.hosts_line.files:
                found = _in_hosts(machine.hosts, key, 6)
            if found is None and machine.hosts_line.dns:
                seconds += dns_lookup  # AAAA (mdns4_minimal passes IPv6 on to dns)
            if found is None and machine.hosts_line.files:
                found = _in_hosts(machine.hosts, key, 4)
            if found is None:
                phases, _error = login_model.resolve(
                    _client_settings(machine, _target(key, machine.hosts_line, [])))
                seconds += sum(p.seconds for p in phases)
        if found is None:
            status = 2
        else:
            out.append(f"{found[0]:<15} {' '.join(found[1])}\n")
    session.clock += seconds
    return CommandResult(stdout="".join(out), status=status)


# ---------------------------------------------------------------- bash's time

def _minutes(seconds: float) -> str:
    """bash's %3lR: minutes, then seconds with three decimals."""
    ms = round(seconds * 1000)
    return f"{ms // 60000}m{ms % 60000 // 1000}.{ms % 1000:03d}s"


@command("time")
def time_keyword(session: Session, argv: list[str]) -> CommandResult:
    """`time COMMAND...`: runs the command, then prints bash 5.2's default TIMEFORMAT
    ("\\nreal\\t%3lR\\nuser\\t%3lU\\nsys\\t%3lS") on stderr. real is how far the command
    moved the session clock. Only the command after `time` is timed, not a pipeline."""
    start = session.clock
    result = session.run(shlex.join(argv[1:])) if argv[1:] else CommandResult()
    user, system = (USER_SECONDS, SYS_SECONDS) if argv[1:] else (0.0, 0.0)
    times = (f"\nreal\t{_minutes(session.clock - start)}\nuser\t{_minutes(user)}\n"
             f"sys\t{_minutes(system)}\n")
    return replace(result, stderr=result.stderr + times)


# ---------------------------------------------------------------- ssh

@dataclass(frozen=True)
class SshCommand:
    destination: str
    command: list[str]
    options: dict[str, str]  # from -o, -S, -M, -l: lower-case keyword -> value
    verbose: bool


def _parse_ssh(argv: list[str]) -> SshCommand:
    """ssh [-v] [-M] [-S path] [-l user] [-p port] [-o Key=Value]... [user@]host
    [command...] (options stop at the destination, as ssh's getopt does)."""
    options: dict[str, str] = {}
    verbose, args = False, argv[1:]
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flag = args.pop(0)
        letter, attached = flag[1], flag[2:]
        if letter in "oSlp":
            value = attached or (args.pop(0) if args else "")
            if not value:
                raise NotModelled(f"`ssh {flag}' without its argument")
            if letter == "o":
                key, value = _keyword(value)
            else:
                key = {"S": "controlpath", "l": "user", "p": "port"}[letter]
            options.setdefault(key, value)
        elif set(flag[1:]) <= {"v", "M"}:
            verbose = verbose or "v" in flag
            if "M" in flag:
                options.setdefault("controlmaster", "yes")
        else:
            raise NotModelled(f"the option {flag}")
    if not args:
        raise NotModelled("ssh without a destination")
    return SshCommand(args[0], args[1:], options, verbose)


def _read_ssh_config(files: model.HostFiles, host: str, options: dict[str, str]
                     ) -> tuple[dict[str, str], str]:
    """The client's options for ``host`` (the name as typed): ``options`` first, then those
    of ~/.ssh/config, then /etc/ssh/ssh_config's, the first value of each keyword winning
    (readconf.c); and the lines ssh -v prints about them."""
    options = dict(options)
    debug = []
    for path in (USER_SSH_CONFIG, SSH_CONFIG):
        text = _text(files, path)
        if text is None and path == SSH_CONFIG:
            debug.append(f"debug1: Reading configuration data {SSH_CONFIG}\n"
                         + DEBIAN_SSH_CONFIG_DEBUG)
            for key, value in DEBIAN_SSH_CONFIG.items():
                options.setdefault(key, value)
        elif text is not None:
            debug.append(f"debug1: Reading configuration data {path}\n")
            debug += _apply_config(path, text, host, options)
    return options, "".join(debug)


def _apply_config(path: str, text: str, host: str, options: dict[str, str]) -> list[str]:
    """Add one file's options for ``host`` to ``options`` (keeping those already there)."""
    debug, applies = [], True
    for number, line in _lines(text):
        key, value = _keyword(line)
        if key == "host":
            applies, shown = False, ""
            for pattern in value.split():
                negated = pattern.startswith("!")
                if fnmatch.fnmatchcase(host, pattern.lstrip("!")):
                    if negated:
                        applies = False
                        break
                    applies, shown = True, shown or pattern
            if applies:
                debug.append(f"debug1: {path} line {number}: Applying options for {shown}\n")
        elif key in ("match", "include"):
            raise NotModelled(f"{key.capitalize()} in {path}")
        elif applies:
            options.setdefault(key, value)
    return debug


def _yes(value: str | None) -> bool:
    return (value or "").lower() == "yes"


def _persist_seconds(value: str | None) -> float | None:
    """ControlPersist: None for no, inf for yes (or 0), else seconds (plain or s/m/h)."""
    value = (value or "no").lower()
    if value == "no":
        return None
    if value == "yes":
        return math.inf
    units = {"s": 1, "m": 60, "h": 3600}
    scale = units.get(value[-1:], 1)
    number = value[:-1] if value[-1:] in units else value
    if not number.isdigit():
        raise NotModelled(f"ControlPersist {value}")
    return float(int(number) * scale) or math.inf


def _control_path(path: str, local: str, host: str, user: str, typed: str,
                  port: int = SSH_PORT) -> str:
    """ssh_config(5) TOKENS; %C is the SHA-1 of %l%h%p%r (recorded: the hash of
    "vm192.168.50.1122root" named the lab's socket)."""
    tokens = {"%": "%", "h": host, "p": str(port), "r": user, "l": local, "n": typed,
              "u": LOCAL_USER, "d": HOME, "i": "0",
              "C": hashlib.sha1(f"{local}{host}{port}{user}".encode()).hexdigest()}
    out, chars = [], iter(path)
    for ch in chars:
        if ch != "%":
            out.append(ch)
            continue
        token = next(chars, "")
        if token not in tokens:
            raise NotModelled(f"the ControlPath token %{token}")
        out.append(tokens[token])
    text = "".join(out)
    return HOME + text[1:] if text.startswith("~/") else text


def _server_host(session: Session, address: ipaddress.IPv4Address) -> model.Host | None:
    network = session.network
    assert network is not None
    here = network.hosts[session.hostname]
    if address.is_loopback or model.is_local(here, address):
        return here
    return next((h for h in network.hosts.values() if model.is_local(h, address)), None)


def _auth_methods(sshd: dict[str, str]) -> str:
    """The methods sshd offers, in auth2.c's authmethods[] order; Debian's sshd has
    gssapi-keyex (its GSSAPI key exchange patch) whenever GSSAPIAuthentication is on."""
    methods = ["publickey"]
    if _yes(sshd.get("gssapiauthentication")):
        methods += ["gssapi-keyex", "gssapi-with-mic"]
    if sshd.get("passwordauthentication", "yes").lower() == "yes":
        methods.append("password")
    if sshd.get("kbdinteractiveauthentication", "yes").lower() == "yes":
        methods.append("keyboard-interactive")
    return ",".join(methods)


def _read_sshd_config(text: str | None) -> dict[str, str]:
    """The options of the sshd that answers (``sshd.listening()``: the text it runs with;
    None for Debian's packaged sshd_config)."""
    if text is None:
        return dict(DEBIAN_SSHD_CONFIG)
    options: dict[str, str] = {}
    for _number, line in _lines(text):
        key, value = _keyword(line)
        if key == "match":
            break  # what follows applies only to some connections; none of the lab's
        options.setdefault(key, value)
    return options


@command("ssh")
def ssh(session: Session, argv: list[str]) -> CommandResult:
    """`ssh [options] [user@]HOST COMMAND`: one login, its time from the login model."""
    try:
        return _ssh(session, argv)
    except NotModelled as err:
        return CommandResult.fail(msg.tool_not_simulated("ssh", str(err)), 2)


def _ssh(session: Session, argv: list[str]) -> CommandResult:
    parsed = _parse_ssh(argv)
    user, _, typed = parsed.destination.rpartition("@")
    client = _machine(session, session.hostname)
    options, config_debug = _read_ssh_config(client.files, typed, parsed.options)
    host = options.get("hostname", typed)
    user = user or options.get("user", LOCAL_USER)
    port_text = options.get("port", str(SSH_PORT))
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise NotModelled(f"the port {port_text}")
    port = int(port_text)
    debug = [f"{OPENSSH_VERSION}\n", config_debug]
    if not parsed.command:
        raise NotModelled("an interactive login (give a command)")
    master = options.get("controlmaster", "no").lower()
    if master not in ("yes", "no", "auto"):
        raise NotModelled(f"ControlMaster {master}")
    path = options.get("controlpath", "none")
    socket_path = (None if path.lower() == "none"
                   else _control_path(path, session.hostname, host, user, typed, port))
    target = _target(host, client.hosts_line, client.hosts)
    settings = _client_settings(client, target)
    # The mux client is tried first, before the host name is looked up (ssh.c).
    if socket_path is not None and master != "yes":
        if master == "auto":
            debug.append("debug1: auto-mux: Trying existing master\n")
        socket = session.host_files.get(socket_path)
        if isinstance(socket, ControlSocket) and not socket.alive(session.clock):
            del session.host_files[socket_path]  # the master has exited
            socket = None
        if isinstance(socket, ControlSocket):
            login = login_model.login(replace(settings, control_master=True,
                                              master_running=True),
                                      login_model.ServerSettings())
            session.clock += login.seconds
            debug.append("debug1: mux_client_request_session: master session id: 2\n")
            result = _remote(session, socket.server, parsed.command)
            session.host_files[socket_path] = replace(socket, mtime=session.clock)
            return _finish(parsed, debug, result, exit_line=False)
        if socket is not None:
            raise NotModelled(f"a ControlPath ({socket_path}) that is not a socket")
        debug.append(f'debug1: Control socket "{socket_path}" does not exist\n')
    address: str | None = host
    if target == login_model.BY_HOSTS_FILE:
        found = _in_hosts(client.hosts, host, 4)
        address = found[0] if found else None
    server_host = None
    if target in (login_model.BY_ADDRESS, login_model.BY_HOSTS_FILE):
        parsed_address = ipaddress.ip_address(address or "")
        if parsed_address.version != 4:
            raise NotModelled("ssh to an IPv6 address")
        server_host = _server_host(session, parsed_address)
        if server_host is None:
            raise NotModelled(f"ssh to {address}, which no host of the network has,")
        settings = replace(settings, server_address_in_hosts_file=any(
            _address(a) == parsed_address for a, _n in client.hosts))
    server_settings = login_model.ServerSettings()
    sshd: dict[str, str] = dict(DEBIAN_SSHD_CONFIG)
    listener = server = None
    if server_host is not None:
        server = _machine(session, server_host.name)
        listener = sshd_command.listening(session.network, server_host.name, port)
        if listener is None:
            return _refused(session, parsed, debug, settings, host, address, port)
        sshd = _read_sshd_config(listener.config)
        here = session.network.hosts[session.hostname] if session.network else None
        client_address = str(here.underlay()) if here is not None else ""
        server_settings = login_model.ServerSettings(
            use_dns=_yes(sshd.get("usedns")), gssapi=_yes(sshd.get("gssapiauthentication")),
            client_in_hosts_file=any(a == client_address for a, _n in server.hosts),
            resolver=server.resolver)
    login = login_model.login(replace(settings, gssapi=_yes(options.get(
        "gssapiauthentication"))), server_settings)
    session.clock += login.seconds
    if not login.succeeded:
        reason = login.error.split(": ", 1)[1]
        return CommandResult(stderr="".join(
            debug if parsed.verbose else []) + f"ssh: Could not resolve hostname {host}: "
            f"{reason}\n", status=255)
    assert server_host is not None and address is not None
    assert listener is not None and server is not None
    if listener.started:
        refusal = _keys_refused(client.files, server.files, options, listener, host, user)
        if refusal is not None:
            # The login ends before the session: no `true`, no master.
            session.clock -= login_model.SESSION_SECONDS
            return CommandResult(stderr=refusal, status=255)
    debug += [f"debug1: Connecting to {host} [{address}] port {port}.\n",
              "debug1: Connection established.\n",
              f"debug1: Authenticating to {host}:{port} as '{user}'\n",
              # recorded: once for the host key lookup, once for its check
              *[f"debug1: using hostkeyalias: {options.get('hostkeyalias')}\n"] * (
                  2 * ("hostkeyalias" in options)),
              "debug1: SSH2_MSG_SERVICE_ACCEPT received\n",
              f"debug1: Authentications that can continue: {_auth_methods(sshd)}\n"]
    if any(p.name.startswith("GSSAPI") for p in login.phases):
        debug.append("debug1: Next authentication method: gssapi-with-mic\n")
        debug += [GSSAPI_NO_CREDENTIALS] * login_model.GSSAPI_MECHANISMS
    debug += ["debug1: Next authentication method: publickey\n",
              f'Authenticated to {host} ([{address}]:{port}) using "publickey".\n']
    persist = _persist_seconds(options.get("controlpersist"))
    if socket_path is not None and master in ("yes", "auto"):
        debug.append("debug1: setting up multiplex master socket\n")
        if persist is not None:
            parent = socket_path.rsplit("/", 1)[0] or "/"
            if parent not in session.host_dirs:
                raise NotModelled(f"a ControlPath in a directory that does not exist ({parent})")
            debug += ["debug1: control_persist_detach: backgrounding master process\n",
                      "debug1: forking to background\n"]
    debug.append(f"debug1: Sending command: {' '.join(parsed.command)}\n")
    result = _remote(session, server_host.name, parsed.command)
    if socket_path is not None and master in ("yes", "auto") and persist is not None:
        session.host_files[socket_path] = ControlSocket(0, session.clock,
                                                        server=server_host.name,
                                                        persist=persist)
        debug.append("debug1: mux_client_request_session: master session id: 2\n")
        return _finish(parsed, debug, result, exit_line=False)
    return _finish(parsed, debug, result, exit_line=True)


def _home(path: str) -> str:
    return HOME + path[1:] if path.startswith("~/") else path


def _keys_refused(client: model.HostFiles, server: model.HostFiles, options: dict[str, str],
                  listener: sshd_command.Listener, host: str, user: str) -> str | None:
    """What ssh prints when the keys do not let the login through, None when they do: the
    server's host key must be in the client's known hosts files (sshconnect.c
    check_host_key(), StrictHostKeyChecking yes), and a public key of the client's
    identity files in the server's AuthorizedKeysFile (auth2-pubkey.c). Checked against an
    sshd a script started (whose host keys labsim has); Debian's packaged sshd is taken to
    know the client (a page's terminals set up no keys)."""
    config = sshd_command.parse_config(SSHD_CONFIG, listener.config or "")
    host_keys = [ssh_keys.private_seed(_text(server, path) or "")
                 for value in config.get("hostkey", []) for path in value.split()]
    host_key = next((ssh_keys.ed25519_public_key(s) for s in host_keys if s), None)
    if host_key is None:
        return None  # Debian's own host keys: not modelled as files
    out = []
    # HostKeyAlias: the name looked up in the known hosts files instead of the host's
    refusal = _host_key_refused(client, options, options.get("hostkeyalias", host), host_key)
    if refusal is not None:
        return refusal
    identities = [_home(p) for p in options.get("identityfile", "").split()] or [
        f"{HOME}/.ssh/id_ed25519"]
    offered = set()
    for path in identities:
        private = _text(client, path)
        if private is None:
            if "identityfile" in options:
                out.append(f"no such identity: {path}: No such file or directory\n")
            continue
        seed = ssh_keys.private_seed(private)
        if seed is not None:
            offered.add(ssh_keys.ed25519_public_key(seed))
    files = " ".join(config.get("authorizedkeysfile", [])) or (
        ".ssh/authorized_keys .ssh/authorized_keys2")
    authorized = set()
    for path in files.split():
        path = path.replace("%h", HOME).replace("%u", user).replace("%%", "%")
        for _number, line in _lines(_text(server, path if path.startswith("/")
                                          else f"{HOME}/{path}") or ""):
            parsed = ssh_keys.parse_public_line(line)
            if parsed is not None:
                authorized.add(parsed[0])
    if offered & authorized:
        return None
    sshd = {k: v[0] for k, v in config.items()}
    return "".join(out) + f"{user}@{host}: Permission denied ({_auth_methods(sshd)}).\n"


def _host_key_refused(client: model.HostFiles, options: dict[str, str], host: str,
                      host_key: bytes) -> str | None:
    user_files = [_home(p) for p in options.get(
        "userknownhostsfile", "~/.ssh/known_hosts ~/.ssh/known_hosts2").split()]
    global_files = options.get("globalknownhostsfile",
                               "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2").split()
    changed = None
    for path in [*user_files, *global_files]:
        for number, line in _lines(_text(client, path) or ""):
            patterns, _, key_text = line.partition(" ")
            if patterns.startswith(("|", "@")):
                raise NotModelled(f"a hashed or marked line in {path}")
            if not any(fnmatch.fnmatchcase(host, p) for p in patterns.split(",")):
                continue
            parsed = ssh_keys.parse_public_line(key_text.strip())
            if parsed is not None and parsed[0] == host_key:
                return None
            if parsed is not None and changed is None:
                changed = (path, number)
    if changed is not None:
        return HOST_KEY_CHANGED.format(fingerprint=ssh_keys.fingerprint(host_key),
                                       known=user_files[0],
                                       path=changed[0], line=changed[1], host=host)
    if options.get("stricthostkeychecking", "ask").lower() != "yes":
        raise NotModelled("an unknown host key without StrictHostKeyChecking yes")
    return (f"No ED25519 host key is known for {host} and you have requested strict "
            "checking.\nHost key verification failed.\n")


def _refused(session: Session, parsed: SshCommand, debug: list[str],
             settings: login_model.ClientSettings, host: str, address: str | None,
             port: int = SSH_PORT) -> CommandResult:
    """Nothing listens on the port of the server (no sshd started): after looking the name
    up, the connection is refused at once (sshconnect.c ssh_connect_direct())."""
    phases, _error = login_model.resolve(settings)
    session.clock += sum(p.seconds for p in phases) + login_model.ANSWER_SECONDS
    debug += [f"debug1: Connecting to {host} [{address}] port {port}.\n",
              f"debug1: connect to address {address} port {port}: Connection refused\n"]
    return CommandResult(stderr="".join(debug if parsed.verbose else [])
                         + f"ssh: connect to host {host} port {port}: Connection refused\n",
                         status=255)


def _remote(session: Session, host: str, command: list[str]) -> CommandResult:
    """The command on the server: a session of the server's host (sharing its files) runs
    it at the client's time (sshd hands it to the user's shell as one line)."""
    remote = session.for_host(host)
    result = remote.run(" ".join(command))
    session.clock = max(session.clock, remote.clock)
    return result


def _finish(parsed: SshCommand, debug: list[str], result: CommandResult, *,
            exit_line: bool) -> CommandResult:
    if not parsed.verbose:
        return result
    lines = "".join(debug)
    end = f"debug1: Exit status {result.status}\n" if exit_line else ""
    return replace(result, stderr=lines + result.stderr + end)
