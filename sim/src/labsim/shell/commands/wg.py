"""`wg` of wireguard-tools 1.0.20210914 (Debian 12), talking to the kernel's WireGuard.

Subcommands as in src/wg.c: show, showconf, set, setconf, addconf, syncconf, genkey, genpsk,
pubkey. What each prints, including its errors and usage texts, was recorded from the real
tool (tests/unit/test_wg_*.py). Errors the kernel returns are the Linux module's: an
interface that does not exist gives ENODEV, "No such device".

`wg pubkey` reads standard input, which a command gets here only from a pipe
(`wg genkey | wg pubkey`, `echo KEY | wg pubkey`); without one it reads nothing, as with
`< /dev/null`. File arguments are host files; /dev/stdin reads the pipe and /dev/null is
empty, which is how `wg set wg0 private-key /dev/null` removes a key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.format import wg as fmt
from labsim.net import delivery
from labsim.shell import fs
from labsim.shell.base import CommandResult
from labsim.shell.registry import command
from labsim.wg import config
from labsim.wg.device import DeviceChange, DeviceError, WireGuardHost, apply_change, get_interface
from labsim.wg.keys import KEY_LEN_BASE64, decode_key, encode_key, generate_private_key
from labsim.wg.keys import public_key as x25519_public_key

if TYPE_CHECKING:
    from labsim.shell.session import Session

VERSION = "1.0.20210914"

SUBCOMMANDS = (
    ("show", "Shows the current configuration and device information"),
    ("showconf", "Shows the current configuration of a given WireGuard interface, "
                 "for use with `setconf'"),
    ("set", "Change the current configuration, add peers, remove peers, or change peers"),
    ("setconf", "Applies a configuration file to a WireGuard interface"),
    ("addconf", "Appends a configuration file to a WireGuard interface"),
    ("syncconf", "Synchronizes a configuration file to a WireGuard interface"),
    ("genkey", "Generates a new private key and writes it to stdout"),
    ("genpsk", "Generates a new preshared key and writes it to stdout"),
    ("pubkey", "Reads a private key from stdin and writes a public key to stdout"),
)

SET_USAGE = (
    "Usage: {prog} {cmd} <interface> [listen-port <port>] [fwmark <mark>] "
    "[private-key <file path>] [peer <base64 public key> [remove] [preshared-key <file path>] "
    "[endpoint <ip>:<port>] [persistent-keepalive <interval seconds>] "
    "[allowed-ips <ip1>/<cidr1>[,<ip2>/<cidr2>]...] ]...\n"
)
SHOW_USAGE = "Usage: {prog} {cmd} {{ <interface> | all | interfaces }} [" + " | ".join(
    fmt.FIELDS) + "]\n"

# Names under which a process reads its standard input.
STDIN_PATHS = ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0")
# Files of unmodelled contents are read as the zeros a sparse file holds, up to this much
# (enough for every answer `wg` can give about them).
ZEROS_READ = 4096


def _wireguard(session: Session) -> WireGuardHost:
    """The machine's WireGuard state (Session.__post_init__ always sets it)."""
    assert session.wireguard is not None
    return session.wireguard


@command("wg")
def wg(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`wg`, then the handshakes PersistentKeepalive starts (setting a keepalive on an up
    interface sends one at once)."""
    result = main(session, argv, stdin=stdin)
    delivery.settle(session.network, session.now())
    return result


def main(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """The tool itself (wireguard-tools' wg), without what the network does next."""
    prog, args = argv[0], argv[1:]
    if len(args) == 1 and args[0] in ("-v", "--version", "version"):
        return CommandResult(stdout=f"wireguard-tools v{VERSION} - "
                                    "https://git.zx2c4.com/wireguard-tools/\n")
    if len(args) == 1 and args[0] in ("-h", "--help", "help"):
        return CommandResult(stdout=_usage(prog))
    if not args:
        return _show(session, prog, ["show"])
    handlers = {
        "show": lambda: _show(session, prog, args),
        "showconf": lambda: _showconf(session, prog, args),
        "set": lambda: _set(session, prog, args, stdin),
        "setconf": lambda: _setconf(session, prog, args, stdin),
        "addconf": lambda: _setconf(session, prog, args, stdin),
        "syncconf": lambda: _setconf(session, prog, args, stdin),
        "genkey": lambda: _genkey(session, prog, args),
        "genpsk": lambda: _genkey(session, prog, args),
        "pubkey": lambda: _pubkey(prog, args, stdin),
    }
    if args[0] in handlers:
        return handlers[args[0]]()
    return CommandResult(stderr=f"Invalid subcommand: `{args[0]}'\n" + _usage(prog), status=1)


def _usage(prog: str) -> str:
    lines = [f"Usage: {prog} <cmd> [<args>]", "", "Available subcommands:"]
    lines += [f"  {name}: {text}" for name, text in SUBCOMMANDS]
    lines.append("You may pass `--help' to any of these subcommands to view usage.")
    return "\n".join(lines) + "\n"


# --- keys ---------------------------------------------------------------------------------


def _genkey(session: Session, prog: str, args: list[str]) -> CommandResult:
    """genkey: 32 random bytes, clamped; genpsk: 32 random bytes as they are."""
    if len(args) != 1:
        return CommandResult(stderr=f"Usage: {prog} {args[0]}\n", status=1)
    rng = _wireguard(session).rng
    key = generate_private_key(rng) if args[0] == "genkey" else rng.randbytes(32)
    return CommandResult(stdout=encode_key(key) + "\n")


def _pubkey(prog: str, args: list[str], stdin: str | None) -> CommandResult:
    """pubkey_main(): 44 characters of standard input, then only white space or NULs."""
    if len(args) != 1:
        return CommandResult(stderr=f"Usage: {prog} {args[0]}\n", status=1)
    data = stdin or ""
    bad_key = CommandResult(stderr=f"{prog}: Key is not the correct length or format\n",
                            status=1)
    if len(data) < KEY_LEN_BASE64:
        return bad_key
    if any(c != "\0" and not config.char_is_space(c) for c in data[KEY_LEN_BASE64:]):
        return CommandResult(stderr=f"{prog}: Trailing characters found after key\n", status=1)
    text = data[:KEY_LEN_BASE64].split("\0")[0]
    try:
        if len(text) != KEY_LEN_BASE64 or text.strip() != text:
            raise ValueError(text)
        private = decode_key(text)
    except ValueError:
        return bad_key
    return CommandResult(stdout=encode_key(x25519_public_key(private)) + "\n")


# --- show -----------------------------------------------------------------------------------


def _show(session: Session, prog: str, args: list[str]) -> CommandResult:
    """show_main()."""
    usage = SHOW_USAGE.format(prog=prog, cmd=args[0])
    host = _wireguard(session)
    if len(args) > 3:
        return CommandResult(stderr=usage, status=1)
    if len(args) == 1 or args[1] == "all":
        out: list[str] = []
        names = list(host.interfaces)
        for i, name in enumerate(names):
            iface = host.interfaces[name]
            if len(args) == 3:
                text = fmt.field(iface, args[2], with_interface=True)
                if text is None:
                    return CommandResult(stdout="".join(out), stderr=_invalid(args[2], usage),
                                         status=1)
                out.append(text)
            else:
                out.append(fmt.pretty(iface, session.now()))
                if i + 1 < len(names):
                    out.append("\n")
        return CommandResult(stdout="".join(out))
    if args[1] == "interfaces":
        if len(args) > 2:
            return CommandResult(stderr=usage, status=1)
        listed = " ".join(host.interfaces)
        return CommandResult(stdout=listed + "\n" if listed else "")
    if len(args) == 2 and args[1] in ("-h", "--help", "help"):
        return CommandResult(stderr=usage)
    try:
        iface = get_interface(host, args[1])
    except DeviceError as err:
        return CommandResult(stderr=f"Unable to access interface: {err.strerror}\n", status=1)
    if len(args) == 3:
        text = fmt.field(iface, args[2])
        if text is None:
            return CommandResult(stderr=_invalid(args[2], usage), status=1)
        return CommandResult(stdout=text)
    return CommandResult(stdout=fmt.pretty(iface, session.now()))


def _invalid(param: str, usage: str) -> str:
    return f"Invalid parameter: `{param}'\n" + usage


def _showconf(session: Session, prog: str, args: list[str]) -> CommandResult:
    if len(args) != 2:
        return CommandResult(stderr=f"Usage: {prog} {args[0]} <interface>\n", status=1)
    try:
        iface = get_interface(_wireguard(session), args[1])
    except DeviceError as err:
        return CommandResult(stderr=f"Unable to access interface: {err.strerror}\n", status=1)
    return CommandResult(stdout=fmt.showconf(iface))


# --- set, setconf, addconf, syncconf ----------------------------------------------------------


def _set(session: Session, prog: str, args: list[str], stdin: str | None) -> CommandResult:
    """set_main(): parse everything first, then send it to the kernel in one go."""
    if len(args) < 3:
        return CommandResult(stderr=SET_USAGE.format(prog=prog, cmd=args[0]), status=1)
    warnings: list[str] = []
    try:
        change = config.read_cmd(args[2:], _reader(session, stdin), warnings)
    except config.ConfigError as err:
        session.clock += err.delay
        return CommandResult(stderr="".join(warnings) + err.text, status=1)
    return _apply(session, args[1], change, warnings)


def _setconf(session: Session, prog: str, args: list[str], stdin: str | None) -> CommandResult:
    """setconf_main(), which is also addconf and syncconf."""
    if len(args) != 3:
        return CommandResult(
            stderr=f"Usage: {prog} {args[0]} <interface> <configuration filename>\n", status=1)
    try:
        text = _reader(session, stdin)(args[2])
    except config.IsDirectory:
        text = ""  # getline() fails at once: an empty configuration
    except config.FileError as err:
        return CommandResult(stderr=f"fopen: {err.strerror}\n", status=1)
    warnings: list[str] = []
    try:
        change = config.read_config(text, args[0] == "addconf", warnings)
    except config.ConfigError as err:
        session.clock += err.delay
        return CommandResult(stderr="".join(warnings) + err.text, status=1)
    name = args[1][:15]
    if args[0] == "syncconf" and change.peers:
        try:
            change = config.sync_change(change, get_interface(_wireguard(session), name))
        except DeviceError as err:
            return CommandResult(
                stderr="".join(warnings)
                + f"Unable to retrieve current interface configuration: {err.strerror}\n",
                status=1)
    return _apply(session, name, change, warnings)


def _apply(session: Session, name: str, change: DeviceChange,
           warnings: list[str]) -> CommandResult:
    try:
        # strncpy() into a name of IFNAMSIZ bytes: longer names are cut to 15 characters.
        apply_change(_wireguard(session), name[:15], change)
    except DeviceError as err:
        return CommandResult(
            stderr="".join(warnings) + f"Unable to modify interface: {err.strerror}\n",
            status=1)
    return CommandResult(stderr="".join(warnings))


def _reader(session: Session, stdin: str | None) -> config.ReadFile:
    """A function reading a file as fopen() and fread() would for `wg`."""

    def read(name: str) -> str:
        path = session.absolute(name)
        if path == "/dev/null":
            return ""
        if path in STDIN_PATHS:
            return stdin or ""
        host_file = session.host_files.get(path)
        if host_file is not None:
            if host_file.text is not None:
                return host_file.text
            return "\0" * min(host_file.size, ZEROS_READ)
        hit = fs.mounted_dataset(session, path)
        if hit is not None and hit.name in hit.dataset.files:
            return "\0" * min(hit.dataset.files[hit.name].size, ZEROS_READ)
        if fs.is_dir(session, path):
            raise config.IsDirectory()
        raise config.FileError("No such file or directory")

    return read
