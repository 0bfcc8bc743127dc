"""`sshd [-t] [-f FILE] [-p PORT] [-o KEYWORD=VALUE]...` (OpenSSH 9.2p1) and `setpriv
--clear-groups COMMAND...`, as the slow-SSH lab (labs/net/05-slow-ssh/server.sh) checks its
configuration and starts its server, and as netkit's login check starts a second one on
another port for its baseline login (labs/netkit/ssh.py).

sshd does what sshd.c main() does, in its order, with the real texts:

1. read the options given with -o, each as a line of the configuration read before the file
   (so that for most keywords, where the first value wins, they win: an unknown keyword is
   "command-line: line 0: Bad configuration option: Keyword", exit 1; a yes/no keyword with
   another value 'command-line line 0: unsupported option "X".', exit 255); -p PORT (1 to
   65535, else "Bad port number.", exit 1) replaces the file's Port lines;
   then the configuration file (servconf.c process_server_config_line()): an unknown keyword
   ("FILE: line N: Bad configuration option: Keyword"), a keyword without its argument
   ("no argument after keyword") or with one too many ("extra arguments at end of line")
   are counted and reported together ("FILE: terminating, N bad configuration options",
   exit 255); a yes/no option with another value ('unsupported option "X".') and a bad
   Port ("Badly formatted port number.") stop at once (fatal(), exit 255);
2. without -t, refuse a relative argv[0] ("sshd re-exec requires execution with an absolute
   path", exit 255);
3. load every HostKey ("Unable to load host key: PATH" for one that is not a private key;
   "sshd: no hostkeys available -- exiting.", exit 1, when none loads). With no HostKey line,
   Debian's own keys in /etc/ssh are taken as there;
4. check the privilege separation directory ("Missing privilege separation directory:
   /run/sshd", exit 255; on a host with Debian's packaged sshd, systemd has made it);
5. -t: exit 0. Otherwise daemonize: the command prints nothing and exits 0, and the server
   listens on its port of the host (-p, else the first Port line, else 22: an
   ``SshdProcess`` at its PidFile, with the configuration it read, -o lines first: sshd
   reads it once, at start). A second sshd cannot bind a port one listens on already; it
   logs that and exits, but only after the command has returned 0, so nothing changes.

labsim.shell.commands.ssh asks ``listening()`` which server answers on a port of a host:
what `sshd` started, else on port 22 Debian's packaged sshd where the host has it
(``model.Host.package_sshd``: every host of a page; a netkit lab host runs nothing until its
script starts sshd), else nobody ("Connection refused"). `pkill -F PIDFILE`
(labsim.shell.commands.qemu_nbd.pkill) stops a server: sshd removes its PidFile as it exits.

Not modelled: file modes (the "UNPROTECTED PRIVATE KEY FILE" refusal of a world-readable
host key), Match blocks, Include, ListenAddress, options other than -t, -f, -p and -o.
Recorded on Debian 12 (the texts are in tests/unit/test_sshd_command.py).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsim.net import model, ssh_keys
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

SSHD_CONFIG = "/etc/ssh/sshd_config"
PRIVSEP_DIR = "/run/sshd"  # _PATH_PRIVSEP_CHROOT_DIR on Debian
DEFAULT_PID_FILE = "/run/sshd.pid"
SSH_PORT = 22
# sshd's status for fatal() and for a bad configuration, and for no host keys.
FATAL_STATUS = 255
NO_HOST_KEYS_STATUS = 1

# Keywords sshd 9.2p1 (Debian) accepts: those `sshd -T` prints, and the ones it takes
# without printing (Include, Match, Subsystem, AcceptEnv, user and group lists, SetEnv,
# the Debian GSSAPI key-exchange and deprecated aliases).
_KEYWORDS = """
port addressfamily listenaddress usepam logingracetime x11displayoffset maxauthtries
maxsessions clientaliveinterval clientalivecountmax requiredrsasize streamlocalbindmask
unusedconnectiontimeout permitrootlogin ignorerhosts ignoreuserknownhosts
hostbasedauthentication hostbasedusesnamefrompacketonly pubkeyauthentication
kerberosauthentication kerberosorlocalpasswd kerberosticketcleanup gssapiauthentication
gssapicleanupcredentials gssapikeyexchange gssapistrictacceptorcheck
gssapistorecredentialsonrekey gssapikexalgorithms passwordauthentication
kbdinteractiveauthentication printmotd printlastlog x11forwarding x11uselocalhost permittty
permituserrc strictmodes tcpkeepalive permitemptypasswords compression gatewayports usedns
allowtcpforwarding allowagentforwarding disableforwarding allowstreamlocalforwarding
streamlocalbindunlink fingerprinthash exposeauthinfo pidfile modulifile xauthlocation
ciphers macs banner forcecommand chrootdirectory trustedusercakeys revokedkeys
securitykeyprovider authorizedprincipalsfile versionaddendum authorizedkeyscommand
authorizedkeyscommanduser authorizedprincipalscommand authorizedprincipalscommanduser
hostkeyagent kexalgorithms casignaturealgorithms hostbasedacceptedalgorithms
hostkeyalgorithms pubkeyacceptedalgorithms loglevel syslogfacility authorizedkeysfile
hostkey authenticationmethods maxstartups persourcemaxstartups persourcenetblocksize
permittunnel ipqos rekeylimit permitopen permitlisten permituserenvironment
pubkeyauthoptions include match subsystem acceptenv setenv allowusers denyusers
allowgroups denygroups challengeresponseauthentication pubkeyacceptedkeytypes
hostbasedacceptedkeytypes hostcertificate
"""
KEYWORDS = frozenset(_KEYWORDS.split())
# servconf.c multistate_flag: yes or no only.
FLAGS = frozenset({"usedns", "usepam", "gssapiauthentication", "gssapicleanupcredentials",
                   "gssapikeyexchange", "gssapistrictacceptorcheck", "passwordauthentication",
                   "kbdinteractiveauthentication", "challengeresponseauthentication",
                   "pubkeyauthentication", "hostbasedauthentication", "kerberosauthentication",
                   "permitemptypasswords", "printmotd", "printlastlog", "x11forwarding",
                   "x11uselocalhost", "strictmodes", "tcpkeepalive", "permittty",
                   "permituserrc", "ignorerhosts"})
# servconf.c multistate_permitrootlogin.
PERMIT_ROOT_LOGIN = frozenset({"yes", "no", "prohibit-password", "without-password",
                               "forced-commands-only"})
# Keywords that take a list of words; every other one takes exactly one.
LISTS = frozenset({"listenaddress", "hostkey", "authorizedkeysfile", "acceptenv", "setenv",
                   "allowusers", "denyusers", "allowgroups", "denygroups", "subsystem",
                   "match", "include", "ciphers", "macs", "kexalgorithms", "authenticationmethods",
                   "permitopen", "permitlisten", "ipqos", "rekeylimit", "maxstartups",
                   "authorizedprincipalsfile", "forcecommand", "banner", "chrootdirectory",
                   "authorizedkeyscommand", "authorizedprincipalscommand", "versionaddendum",
                   "persourcenetblocksize"})


@dataclass
class SshdProcess(HostFile):
    """A running sshd, kept at its PidFile (``text``: the pid and a newline), with the text
    of the configuration it read at start (None: Debian's sshd_config as packaged)."""

    config: str | None = None
    port: int = SSH_PORT


class ConfigError(Exception):
    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


def parse_config(path: str, text: str) -> dict[str, list[str]]:
    """keyword -> every value given for it, in order (sshd keeps the first of most); raises
    ConfigError with sshd's messages for a configuration it refuses."""
    options: dict[str, list[str]] = {}
    bad: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].replace("=", " ", 1).split()
        if not words:
            continue
        shown, key, args = words[0], words[0].lower(), words[1:]
        # servconf.c checks for an argument before it looks at the keyword (recorded:
        # a bare unknown "Foo" gets "no argument after keyword").
        if not args:
            bad.append(f'{path} line {number}: no argument after keyword "{shown}"\n')
            continue
        if key not in KEYWORDS:
            bad.append(f"{path}: line {number}: Bad configuration option: {shown}\n")
            continue
        if key == "match":
            break  # a Match block applies to some connections only; not modelled further
        if key in FLAGS and args[0].lower() not in ("yes", "no"):
            raise ConfigError(f'{path} line {number}: unsupported option "{args[0]}".\n',
                              FATAL_STATUS)
        if key == "permitrootlogin" and args[0].lower() not in PERMIT_ROOT_LOGIN:
            raise ConfigError(f'{path} line {number}: unsupported option "{args[0]}".\n',
                              FATAL_STATUS)
        if key == "port" and not (args[0].isdigit() and 0 < int(args[0]) < 65536):
            raise ConfigError(f"{path} line {number}: Badly formatted port number.\n",
                              FATAL_STATUS)
        if key not in LISTS and len(args) > 1:
            bad.append(f"{path} line {number}: keyword {shown} extra arguments at end of "
                       "line\n")
            continue
        options.setdefault(key, []).append(" ".join(args))
    if bad:
        raise ConfigError("".join(bad) + f"{path}: terminating, {len(bad)} bad configuration "
                          "options\n", FATAL_STATUS)
    return options


def first(options: dict[str, list[str]], key: str, default: str = "") -> str:
    """The value sshd uses for a single-valued option: the first one given."""
    return options.get(key, [default])[0]


def _host(session: Session) -> model.Host:
    assert session.network is not None  # Session.__post_init__ always makes one
    return session.network.hosts[session.hostname]


def running(files: model.HostFiles, port: int = SSH_PORT) -> SshdProcess | None:
    """The sshd a host's script started on ``port``, if one runs."""
    return next((f for f in files.files.values()
                 if isinstance(f, SshdProcess) and f.port == port), None)


@dataclass(frozen=True)
class Listener:
    """Who answers on port 22 of a host: ``config`` is the text of the sshd_config the server
    runs with (None: Debian's packaged sshd_config, or the host's current one)."""

    started: bool  # by `sshd` (True) or by Debian's package (False)
    config: str | None


def listening(network: model.Network, host_name: str, port: int = SSH_PORT
              ) -> Listener | None:
    files = network.files.get(host_name, model.HostFiles())
    process = running(files, port)
    if process is not None:
        return Listener(True, process.config)
    if network.hosts[host_name].package_sshd and port == SSH_PORT:
        current = files.files.get(SSHD_CONFIG)
        return Listener(False, None if current is None else current.text or "")
    return None


@command("sshd", "/usr/sbin/sshd")
def main(session: Session, argv: list[str]) -> CommandResult:
    args, test, config_path = argv[1:], False, SSHD_CONFIG
    port: int | None = None
    command_line: list[str] = []  # -o options, as configuration lines
    while args:
        word = args.pop(0)
        if word == "-t":
            test = True
        elif word == "-f" and args:
            config_path = session.absolute(args.pop(0))
        elif word == "-p" and args:
            value = args.pop(0)
            # sshd.c main(): a2port(), 1-65535
            if not value.isdigit() or not 0 < int(value) < 65536:
                return CommandResult(stderr="Bad port number.\n", status=1)
            port = int(value)
        elif word == "-o" and args:
            command_line.append(args.pop(0).replace("=", " ", 1))
        else:
            return CommandResult.fail(msg.command_line_not_simulated("sshd", argv)
                                      + " (labsim has -t, -f FILE, -p PORT and -o OPTION)", 2)
    file = session.host_files.get(config_path)
    if file is None and config_path != SSHD_CONFIG:
        return CommandResult.fail(msg.tool_not_simulated("sshd", f"a missing {config_path}"),
                                  2)
    if file is None and (command_line or port is not None):
        return CommandResult.fail(msg.tool_not_simulated(
            "sshd", f"-p or -o with Debian's packaged {SSHD_CONFIG}"), 2)
    text = None if file is None else file.text or ""
    try:
        for line in command_line:
            _command_line_option(line)
        options = parse_config(config_path, text or "")
        if not test and not argv[0].startswith("/"):
            raise ConfigError("sshd re-exec requires execution with an absolute path\n",
                              FATAL_STATUS)
        warnings = _load_host_keys(session, options)
        # Debian's ssh.service makes /run/sshd (RuntimeDirectory=sshd) where it runs.
        if PRIVSEP_DIR not in session.host_dirs and not _host(session).package_sshd:
            raise ConfigError(f"Missing privilege separation directory: {PRIVSEP_DIR}\n",
                              FATAL_STATUS)
    except ConfigError as err:
        return CommandResult(stderr=err.message, status=err.status)
    if test:
        return CommandResult(stderr=warnings)
    if command_line or port is not None:
        # What the server runs with: the -o lines before the file's (the first value of a
        # keyword wins), and -p instead of the file's Port lines.
        lines = [*command_line, *(f"Port {port}" for _ in [port] if port is not None)]
        kept = [raw for raw in (text or "").splitlines()
                if port is None or _keyword(raw) != "port"]
        text = "\n".join([*lines, *kept]) + "\n"
        options = parse_config(config_path, text)
    port = int(first(options, "port", str(SSH_PORT)))
    assert session.network is not None
    if listening(session.network, session.hostname, port) is not None:
        # The new daemon cannot bind the port; it logs that and exits.
        return CommandResult(stderr=warnings)
    # The PidFile marks the server in labsim (a real sshd whose PidFile cannot be written
    # logs that and runs on; labsim keeps the file then too).
    pid_file = session.absolute(first(options, "pidfile", DEFAULT_PID_FILE))
    assert session.wireguard is not None  # the host's seeded generator
    pid = f"{session.wireguard.rng.randrange(300, 32768)}\n"
    session.host_files[pid_file] = SshdProcess(len(pid), session.clock, pid, config=text,
                                                port=port)
    return CommandResult(stderr=warnings)


def _keyword(line: str) -> str:
    words = line.split("#", 1)[0].replace("=", " ", 1).split()
    return words[0].lower() if words else ""


def _command_line_option(line: str) -> None:
    """Check one -o option as sshd does (recorded on Debian 12): raises ConfigError."""
    words = line.split()
    key = words[0].lower() if words else ""
    if key not in KEYWORDS or key == "match":
        raise ConfigError(f"command-line: line 0: Bad configuration option: "
                          f"{words[0] if words else ''}\n", 1)
    if key in FLAGS and (len(words) < 2 or words[1].lower() not in ("yes", "no")):
        value = words[1] if len(words) > 1 else ""
        raise ConfigError(f'command-line line 0: unsupported option "{value}".\n',
                          FATAL_STATUS)


def _load_host_keys(session: Session, options: dict[str, list[str]]) -> str:
    """What sshd prints about host keys it cannot load; raises ConfigError if none loads."""
    paths = [p for value in options.get("hostkey", []) for p in value.split()]
    if not paths:
        return ""  # Debian's /etc/ssh/ssh_host_*_key, made when openssh-server was installed
    errors, loaded = [], 0
    for path in paths:
        file = session.host_files.get(session.absolute(path))
        if file is None or ssh_keys.private_seed(file.text or "") is None:
            errors.append(f"Unable to load host key: {path}\n")
        else:
            loaded += 1
    if not loaded:
        raise ConfigError("".join(errors) + "sshd: no hostkeys available -- exiting.\n",
                          NO_HOST_KEYS_STATUS)
    return "".join(errors)  # printed, and sshd goes on with the keys it has


@command("setpriv")
def setpriv(session: Session, argv: list[str]) -> CommandResult:
    """`setpriv --clear-groups COMMAND...`: runs the command without supplementary groups.
    labsim's shells are root's with no groups to clear, and no user namespace to refuse
    setgroups(): the command runs as it is."""
    if len(argv) < 3 or argv[1] != "--clear-groups":
        return CommandResult.fail(msg.command_line_not_simulated("setpriv", argv)
                                  + " (labsim has --clear-groups COMMAND)", 2)
    return session.run(shlex.join(argv[2:]))
