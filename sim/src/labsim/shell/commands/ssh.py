"""`ssh` (OpenSSH 9.2p1), for the slow-SSH lesson (labs/net/05-slow-ssh/).

How long a login takes is labsim.net.ssh_login's business; this module reads the settings it
needs from the files of the hosts, as the real programs do, and turns the model's phases into
the clock and the output of the command: the client's ssh_config and the server's
sshd_config (labsim.shell.commands.ssh_config), and how each host looks names up
(/etc/nsswitch.conf, /etc/resolv.conf, /etc/hosts: labsim.shell.commands.resolver), read
through the network (``Network.files``: every host's files by host name).

The server is the sshd a script started on the host (labsim.shell.commands.sshd), with the
configuration it read at start, or on a host with Debian's packaged sshd (every host of a
page) that one, with the host's current sshd_config; with neither, the connection is
refused. Against an sshd a script started, the server's host key must be in the client's
known hosts and the client's key in the server's AuthorizedKeysFile (StrictHostKeyChecking
yes, ed25519 keys, as the lab has them); Debian's packaged sshd, whose host keys labsim does
not keep, is taken to know the client.

Recorded on Debian 12 in network namespaces (a client, a server and a name server that
drops queries, as in tools/probes/slow_ssh_probe.sh); the texts are in
tests/unit/test_ssh_commands.py (with `getent hosts` and `time`,
labsim.shell.commands.getent and time_keyword).
"""

from __future__ import annotations

import fnmatch
import ipaddress
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labsim.net import model, ssh_keys
from labsim.net import ssh_login as login_model
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile
from labsim.shell.commands import sshd as sshd_command
from labsim.shell.commands.resolver import (
    NotModelled,
    client_settings,
    config_lines,
    host_text,
    in_hosts,
    lookup_target,
    machine_of,
    parse_address,
)
from labsim.shell.commands.ssh_config import (
    DEBIAN_SSHD_CONFIG,
    HOME,
    LOCAL_USER,
    SSH_PORT,
    auth_methods,
    config_keyword,
    control_path,
    persist_seconds,
    read_ssh_config,
    read_sshd_config,
    yes,
)
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

SSHD_CONFIG = "/etc/ssh/sshd_config"

OPENSSH_VERSION = "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026"
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


@dataclass
class ControlSocket(HostFile):
    """The socket of a ControlMaster with ControlPersist: the master, connected to network
    host ``server``, serves logins until ``persist`` seconds after the end of the last
    session (``mtime``), then exits and removes its socket."""

    server: str = ""
    persist: float = math.inf

    def alive(self, now: float) -> bool:
        return now < self.mtime + self.persist


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
                key, value = config_keyword(value)
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


def _server_host(session: Session, address: ipaddress.IPv4Address) -> model.Host | None:
    network = session.network
    assert network is not None
    here = network.hosts[session.hostname]
    if address.is_loopback or model.is_local(here, address):
        return here
    return next((h for h in network.hosts.values() if model.is_local(h, address)), None)


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
    client = machine_of(session, session.hostname)
    options, config_debug = read_ssh_config(client.files, typed, parsed.options)
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
                   else control_path(path, session.hostname, host, user, typed, port))
    target = lookup_target(host, client.hosts_line, client.hosts)
    settings = client_settings(client, target)
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
        found = in_hosts(client.hosts, host, 4)
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
            parse_address(a) == parsed_address for a, _n in client.hosts))
    server_settings = login_model.ServerSettings()
    sshd: dict[str, str] = dict(DEBIAN_SSHD_CONFIG)
    listener = server = None
    if server_host is not None:
        server = machine_of(session, server_host.name)
        listener = sshd_command.listening(session.network, server_host.name, port)
        if listener is None:
            return _refused(session, parsed, debug, settings, host, address, port)
        sshd = read_sshd_config(listener.config)
        here = session.network.hosts[session.hostname] if session.network else None
        client_address = str(here.underlay()) if here is not None else ""
        server_settings = login_model.ServerSettings(
            use_dns=yes(sshd.get("usedns")), gssapi=yes(sshd.get("gssapiauthentication")),
            client_in_hosts_file=any(a == client_address for a, _n in server.hosts),
            resolver=server.resolver)
    login = login_model.login(replace(settings, gssapi=yes(options.get(
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
              f"debug1: Authentications that can continue: {auth_methods(sshd)}\n"]
    if any(p.name.startswith("GSSAPI") for p in login.phases):
        debug.append("debug1: Next authentication method: gssapi-with-mic\n")
        debug += [GSSAPI_NO_CREDENTIALS] * login_model.GSSAPI_MECHANISMS
    debug += ["debug1: Next authentication method: publickey\n",
              f'Authenticated to {host} ([{address}]:{port}) using "publickey".\n']
    persist = persist_seconds(options.get("controlpersist"))
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
    host_keys = [ssh_keys.private_seed(host_text(server, path) or "")
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
        private = host_text(client, path)
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
        for _number, line in config_lines(host_text(server, path if path.startswith("/")
                                          else f"{HOME}/{path}") or ""):
            parsed = ssh_keys.parse_public_line(line)
            if parsed is not None:
                authorized.add(parsed[0])
    if offered & authorized:
        return None
    sshd = {k: v[0] for k, v in config.items()}
    return "".join(out) + f"{user}@{host}: Permission denied ({auth_methods(sshd)}).\n"


def _host_key_refused(client: model.HostFiles, options: dict[str, str], host: str,
                      host_key: bytes) -> str | None:
    user_files = [_home(p) for p in options.get(
        "userknownhostsfile", "~/.ssh/known_hosts ~/.ssh/known_hosts2").split()]
    global_files = options.get("globalknownhostsfile",
                               "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2").split()
    changed = None
    for path in [*user_files, *global_files]:
        for number, line in config_lines(host_text(client, path) or ""):
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
