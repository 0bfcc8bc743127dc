"""`wg-quick up|down|save|strip CONFIG_FILE|INTERFACE`, as wireguard-tools 1.0.20210914's
src/wg-quick/linux.bash (Debian 12's /usr/bin/wg-quick) runs on a machine with the WireGuard
kernel module (the lab VM's).

Like the script, this prints each command as `[#] COMMAND` on stderr and runs it, here
through the same Session, so what happens comes from the `ip`, `wg`, `sysctl`, `nft` and
`iptables-restore` models; their output and errors appear in between, and the first command
that fails stops wg-quick with its exit status (`set -e`), after removing the interface again
when `up` had got that far (the script's EXIT trap runs del_if()). The checks the script makes
quietly (`ip link show`, `wg show IF allowed-ips`, `ip route show dev IF match PREFIX`, ...)
are made on the same state without printing anything, as the script sends their output to a
variable or /dev/null. The parsing and the file `save` writes are in labsim.wg.quick.

What differs from the recordings over wireguard-go (tests/unit/test_wg_quick.py has both):
with the kernel module, `ip link add IF type wireguard` succeeds, so the real tool's
"Error: Unknown device type.", "[!] Missing WireGuard kernel module. Falling back to slow
userspace implementation.", "[#] wireguard-go IF" and wireguard-go's boxed warning do not
appear; a kernel WireGuard link has no IPv6 link-local address, so a saved file has no
`Address = fe80::.../64` line; and peers are saved in the kernel's order (the order they
were added), where wireguard-go's is random.

The machine, as modelled: Debian with wireguard-tools and iptables, and nftables or not as
the network's firewall_backend says (labsim.net.model.FirewallBackend; the lab VM has it):
with nft, a default route's firewall rules are a table of wg-quick's own (`nft -f
/dev/fd/63`, labsim.wg.quick.nft_up()), without it they go through `iptables-restore -n`.
There is no resolvconf, so a DNS key fails as the real script does there (`resolvconf:
command not found`, exit 127).
Files are made with umask 022 (0644); /root and /etc/wireguard are 0700 (as Debian makes
them), /tmp and /var/tmp 1777, every other directory 0755; a file outside a 0700 directory
therefore gets the "world accessible" warning, unless `wg-quick save` wrote it (0600).
A new Session has no /etc/wireguard (on a real machine the wireguard-tools package makes
it): scripts say `mkdir -p /etc/wireguard` first, which changes nothing on a real one.

Endpoint host names: the real `wg` resolves them with getaddrinfo(). Here a name is looked up
in the session's /etc/hosts when that file exists (and only there); without the file, a host
of the session's labsim.net Network with that name resolves to its underlay address, which
stands in for the lab's name service. Names are replaced in what `wg setconf` reads
(/dev/fd/63), never in the file: `wg-quick strip` shows them as written, and only a saved
file has the address.

Not modelled: IPv6 (the `ip` model routes IPv4 only, so an IPv6 address or AllowedIPs
fails with its "not modelled" message; the firewall scripts for an IPv6 default route,
labsim.wg.quick.nft_up() with family ip6 and iptables_restore_up(), are what the real script
writes), and an MTU other than the one the `ip` model keeps for WireGuard links (1420, which
is also what wg-quick computes for an endpoint on the LAN).
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labsim.net import model
from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, written_whole
from labsim.shell.registry import command
from labsim.wg import quick
from labsim.wg.quick import QuickConfig, QuickError

if TYPE_CHECKING:
    from labsim.shell.session import Session

# Where bash shows the process substitution <(echo "$WG_CONFIG") to `wg setconf`.
PROCESS_SUBSTITUTION = "/dev/fd/63"
# Modes (see the module docstring): what the lab machine has where it matters.
FILE_MODE = 0o644
PRIVATE_FILE_MODE = 0o600
DIRECTORY_MODES = {"/root": 0o700, quick.CONFIG_DIR: 0o700, "/tmp": 0o1777,
                   "/var/tmp": 0o1777}
DEFAULT_DIRECTORY_MODE = 0o755
# The script's loops that delete rules until `ip rule show` no longer lists them stop here
# in the model, should a delete ever succeed without removing the rule.
MAX_RULE_DELETES = 64


@dataclass
class PrivateHostFile(HostFile):
    """A host file only its owner may read (mode 0600): what `wg-quick save` writes, under
    umask 077. Other files are 0644."""


class _Exit(Exception):
    """The script ends here with ``status`` (set -e after a failed command, or exit 1)."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@dataclass
class _Run:
    """One run of wg-quick: the session it acts on and what it has printed so far."""

    session: Session
    config: QuickConfig | None = None
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    have_set_firewall: bool = False

    def die(self, text: str) -> _Exit:
        self.stderr.append(f"{quick.PROGRAM}: {text}\n")
        return _Exit(1)

    def quiet(self, line: str, show_errors: bool = False) -> CommandResult:
        """A command whose output the script captures ($(...)); its stderr shows only where
        the script does not send it to /dev/null."""
        result = self.session.run(line)
        if show_errors:
            self.stderr.append(result.stderr)
        return result

    def cmd(self, argv: list[str], stdin: str | None = None, check: bool = True) -> int:
        """cmd(): `[#] ARGS` on stderr, then the command; under set -e a failure ends the
        script (``check``), except where the script tolerates it (`|| true`)."""
        self.stderr.append("[#] " + " ".join(argv) + "\n")
        line = shlex.join(argv)
        # With ``stdin``, a pipe into the command (`echo -n "$restore" | cmd
        # iptables-restore -n`).
        result = (self.session.run(line) if stdin is None
                  else self.session.run_with_input(line, stdin))
        self._show(result, quick.CMD_LINE)
        if check and result.status != 0:
            raise _Exit(result.status)
        return result.status

    def hooks(self, hooks: list[str]) -> None:
        """execute_hooks(): each hook with %i expanded, shown, then run by bash."""
        assert self.config is not None
        for hook in hooks:
            expanded = quick.expand_hook(hook, self.config.interface)
            self.stderr.append(f"[#] {expanded}\n")
            result = self.session.run(expanded)
            self._show(result, quick.HOOK_LINE)
            if result.status != 0:
                raise _Exit(result.status)

    def _show(self, result: CommandResult, line: int) -> None:
        self.stdout.append(result.stdout)
        # bash inside the script names the script and the line for a missing command.
        self.stderr.append(re.sub(r"^bash: (\S+): command not found$",
                                  rf"{quick.SCRIPT}: line {line}: \1: command not found",
                                  result.stderr, flags=re.MULTILINE))

    def result(self, status: int) -> CommandResult:
        return CommandResult("".join(self.stdout), "".join(self.stderr), status)


@command("wg-quick")
def main(session: Session, argv: list[str]) -> CommandResult:
    args = argv[1:]
    if len(args) == 1 and args[0] in ("--help", "-h", "help"):
        return CommandResult(stderr=quick.USAGE)
    actions = {"up": _up, "down": _down, "save": _save, "strip": _strip}
    if len(args) != 2 or args[0] not in actions:
        return CommandResult(stderr=quick.USAGE, status=1)
    run = _Run(session)
    try:
        run.config = _parse_options(run, args[1])
        actions[args[0]](run)
    except _Exit as end:
        return run.result(end.status)
    return run.result(0)


# --- parse_options ----------------------------------------------------------------------------


def _parse_options(run: _Run, argument: str) -> QuickConfig:
    session = run.session
    given = quick.config_file(argument)
    path = session.absolute(given)
    if not fs.exists(session, path):
        raise run.die(f"`{given}' does not exist")
    try:
        interface = quick.interface_of(given)
    except QuickError as err:
        raise run.die(err.text) from None
    directory = path.rsplit("/", 1)[0] or "/"
    file_mode = (PRIVATE_FILE_MODE if isinstance(session.host_files.get(path), PrivateHostFile)
                 else FILE_MODE)
    if quick.world_accessible(file_mode, DIRECTORY_MODES.get(directory,
                                                             DEFAULT_DIRECTORY_MODE)):
        run.stderr.append(f"Warning: `{path}' is world accessible\n")
    try:
        return quick.parse_options(_read_text(run, path), interface, path)
    except QuickError as err:
        raise run.die(err.text) from None


def _read_text(run: _Run, path: str) -> str:
    host_file = run.session.host_files.get(path)
    if host_file is not None and host_file.text is not None:
        return host_file.text
    if host_file is not None or fs.mounted_dataset(run.session, path) is not None:
        return ""  # a file of zeros: bash's read keeps no NUL, and finds no line
    run.stderr.append(msg.tool_not_simulated("wg-quick", f"reading the directory `{path}'")
                      + "\n")
    raise _Exit(2)


# --- up -----------------------------------------------------------------------------------------


def _up(run: _Run) -> None:
    config = run.config
    assert config is not None
    if run.quiet(f"ip link show dev {config.interface}").stdout:
        raise run.die(f"`{config.interface}' already exists")
    try:
        run.hooks(config.pre_up)
        run.cmd(["ip", "link", "add", config.interface, "type", "wireguard"])
        _set_config(run)
        for address in config.addresses:
            run.cmd(["ip", _proto(address), "address", "add", address, "dev", config.interface])
        _set_mtu_up(run)
        _set_dns(run)
        allowed = run.quiet(f"wg show {config.interface} allowed-ips", show_errors=True)
        for prefix in quick.allowed_ips_routes(allowed.stdout):
            _add_route(run, prefix)
        run.hooks(config.post_up)
    except _Exit:
        # trap 'del_if; exit' INT TERM EXIT: a failing del_if decides the status instead.
        _del_if(run)
        raise


def _proto(address: str) -> str:
    return "-6" if ":" in address else "-4"


def _set_config(run: _Run) -> None:
    """set_config(): `wg setconf IF /dev/fd/63`, the file's other lines through a pipe that
    exists only while `wg` runs."""
    config = run.config
    assert config is not None
    text = quick.resolve_endpoints(quick.strip_output(config), lambda name: _resolve(run, name))
    _with_process_substitution(run, ["wg", "setconf", config.interface], text)


def _with_process_substitution(run: _Run, argv: list[str], text: str) -> None:
    """`cmd ARGV <(echo -n "$TEXT")`: the command reads ``text`` from /dev/fd/63, a pipe
    that exists only while it runs."""
    session = run.session
    session.host_files[PROCESS_SUBSTITUTION] = HostFile(
        len(text.encode()), session.now(), text, allocated=written_whole(len(text.encode())))
    try:
        run.cmd([*argv, PROCESS_SUBSTITUTION])
    finally:
        del session.host_files[PROCESS_SUBSTITUTION]


def _resolve(run: _Run, name: str) -> str | None:
    """An endpoint's host name, as the module docstring says."""
    hosts = run.session.host_files.get("/etc/hosts")
    if hosts is not None:
        return quick.hosts_file_lookup(hosts.text or "", name)
    network = run.session.network
    assert network is not None
    host = network.hosts.get(name)
    return str(host.underlay()) if host is not None else None


def _set_mtu_up(run: _Run) -> None:
    """set_mtu_up(): the file's MTU, or the largest MTU of the links the routes to the
    endpoints leave by (else the default route's, else 1500), less 80."""
    config = run.config
    assert config is not None
    if config.mtu:
        run.cmd(["ip", "link", "set", "mtu", config.mtu, "up", "dev", config.interface])
        return
    mtu = 0
    endpoints = run.quiet(f"wg show {config.interface} endpoints", show_errors=True)
    for address in quick.endpoint_addresses(endpoints.stdout):
        # output="$(ip route get ADDRESS || true)": its errors show.
        mtu = max(mtu, _route_mtu(run, run.quiet(f"ip route get {address}",
                                                  show_errors=True).stdout))
    if mtu == 0:
        # read -r output < <(ip route show default || true): the first line.
        default = run.quiet("ip route show default", show_errors=True).stdout
        mtu = max(mtu, _route_mtu(run, default.split("\n", 1)[0]))
    mtu = mtu or quick.FALLBACK_MTU
    run.cmd(["ip", "link", "set", "mtu", str(mtu - quick.MTU_OVERHEAD), "up", "dev",
             config.interface])


def _route_mtu(run: _Run, route: str) -> int:
    """The MTU a route says (`mtu N`), else that of the link it names (`dev DEV`, read from
    `ip link show dev DEV`), else 0."""
    match = re.search(r"mtu ([0-9]+)", route)
    if match is None:
        dev = re.search(r"dev ([^ ]+)", route)
        if dev is None:
            return 0
        match = re.search(r"mtu ([0-9]+)", run.quiet(f"ip link show dev {dev.group(1)}").stdout)
    return int(match.group(1)) if match else 0


def _set_dns(run: _Run) -> None:
    """set_dns(): the servers and search domains go to resolvconf, which the modelled
    machine does not have, so this fails as it does on Debian 12 without it."""
    config = run.config
    assert config is not None
    if not config.dns:
        return
    lines = "".join(f"nameserver {server}\n" for server in config.dns)
    if config.dns_search:
        lines += "search " + " ".join(config.dns_search) + "\n"
    run.cmd(["resolvconf", "-a", config.interface, "-m", "0", "-x"], stdin=lines)


def _add_route(run: _Run, prefix: str) -> None:
    """add_route(): to the file's table, or by add_default() for a /0, or to the main table
    unless a route through the interface covers the prefix already (the addresses'
    connected routes, typically)."""
    config = run.config
    assert config is not None
    proto = _proto(prefix)
    if config.table == "off":
        return
    if config.table and config.table != "auto":
        run.cmd(["ip", proto, "route", "add", prefix, "dev", config.interface,
                 "table", config.table])
    elif prefix.endswith("/0"):
        _add_default(run, prefix)
    elif not run.quiet(f"ip {proto} route show dev {config.interface} match {prefix}").stdout:
        # Not covered by a route through the interface already (an address's, typically).
        run.cmd(["ip", proto, "route", "add", prefix, "dev", config.interface])


def _add_default(run: _Run, prefix: str) -> None:
    """add_default(): a default route in a table of its own, used by every packet that is
    not WireGuard's own (those carry the interface's fwmark), and the main table for
    everything more specific than a default route."""
    config = run.config
    assert config is not None
    interface = config.interface
    table = quick.parse_fwmark(run.quiet(f"wg show {interface} fwmark",
                                         show_errors=True).stdout)
    if table is None:
        table = quick.DEFAULT_TABLE
        while (run.quiet(f"ip -4 route show table {table}").stdout
               or run.quiet(f"ip -6 route show table {table}").stdout):
            table += 1
        run.cmd(["wg", "set", interface, "fwmark", str(table)])
    proto = _proto(prefix)
    run.cmd(["ip", proto, "route", "add", prefix, "dev", interface, "table", str(table)])
    run.cmd(["ip", proto, "rule", "add", "not", "fwmark", str(table), "table", str(table)])
    run.cmd(["ip", proto, "rule", "add", "table", "main", "suppress_prefixlength", "0"])
    # The addresses the raw table protects.
    addresses = re.findall(r"^.*inet6? ([0-9a-f:.]+)/[0-9]+.*$",
                           run.quiet(f"ip -o {proto} addr show dev {interface}").stdout,
                           flags=re.MULTILINE)
    if proto == "-4":
        run.cmd(["sysctl", "-q", "net.ipv4.conf.all.src_valid_mark=1"])
    if _nft_installed(run):
        _with_process_substitution(run, ["nft", "-f"], quick.nft_up(
            interface, quick.nft_family(prefix), addresses, table))
    else:
        restore = "iptables-restore" if proto == "-4" else "ip6tables-restore"
        run.cmd([restore, "-n"], stdin=quick.iptables_restore_up(interface, addresses, table))
    run.have_set_firewall = True


def _nft_installed(run: _Run) -> bool:
    """`type -p nft` (see the module docstring)."""
    network = run.session.network
    assert network is not None
    return model.nft_installed(network)


# --- down ---------------------------------------------------------------------------------------


def _del_if(run: _Run) -> None:
    """del_if(): the firewall rules and policy rules a default route brought, then the
    interface."""
    config = run.config
    assert config is not None
    interface = config.interface
    if run.have_set_firewall:
        _remove_firewall(run)
    if not config.table or config.table == "auto":
        fwmark = run.quiet(f"wg show {interface} fwmark", show_errors=True)
        table = quick.parse_fwmark(fwmark.stdout) if fwmark.status == 0 else None
        if table is not None and quick.has_default_route(
                run.quiet(f"wg show {interface} allowed-ips", show_errors=True).stdout):
            for proto in ("-4", "-6"):
                _delete_rules(run, proto, f"lookup {table}",
                              ["ip", proto, "rule", "delete", "table", str(table)])
                _delete_rules(run, proto, "from all lookup main suppress_prefixlength 0",
                              ["ip", proto, "rule", "delete", "table", "main",
                               "suppress_prefixlength", "0"])
    run.cmd(["ip", "link", "delete", "dev", interface])


def _delete_rules(run: _Run, proto: str, shown: str, argv: list[str]) -> None:
    for _ in range(MAX_RULE_DELETES):
        if shown not in run.quiet(f"ip {proto} rule show").stdout:
            return
        run.cmd(argv)


def _remove_firewall(run: _Run) -> None:
    """remove_firewall(): with nft, its tables for this interface that `nft list tables`
    names, deleted in one `nft -f`; then (iptables is always installed in the model) every
    rule of iptables-save and ip6tables-save carrying this interface's comment, deleted
    through iptables-restore. Each runs only when it finds something."""
    config = run.config
    assert config is not None
    if _nft_installed(run):
        listed = run.quiet("nft list tables")  # 2>/dev/null
        delete = quick.nft_down(listed.stdout if listed.status == 0 else "", config.interface)
        if delete is not None:
            _with_process_substitution(run, ["nft", "-f"], delete)
    for tool in ("iptables", "ip6tables"):
        saved = run.quiet(f"{tool}-save")
        restore = quick.iptables_restore_down(saved.stdout if saved.status == 0 else "",
                                              config.interface)
        if restore is not None:
            run.cmd([f"{tool}-restore", "-n"], stdin=restore)


def _is_wireguard(run: _Run) -> bool:
    config = run.config
    assert config is not None
    names = run.quiet("wg show interfaces").stdout.split()
    return config.interface in names


def _down(run: _Run) -> None:
    """cmd_down(): PreDown, save (SaveConfig), del_if, resolvconf and firewall clean-up
    (failures there are ignored), PostDown."""
    config = run.config
    assert config is not None
    if not _is_wireguard(run):
        raise run.die(f"`{config.interface}' is not a WireGuard interface")
    run.hooks(config.pre_down)
    if config.save_config:
        _save_config(run)
    _del_if(run)
    if config.dns:
        run.cmd(["resolvconf", "-d", config.interface, "-f"], check=False)
    with contextlib.suppress(_Exit):  # remove_firewall || true
        _remove_firewall(run)
    run.hooks(config.post_down)


# --- save and strip ------------------------------------------------------------------------------


def _save(run: _Run) -> None:
    config = run.config
    assert config is not None
    if not _is_wireguard(run):
        raise run.die(f"`{config.interface}' is not a WireGuard interface")
    _save_config(run)


def _save_config(run: _Run) -> None:
    """save_config(): the file rewritten from the running interface (labsim.wg.quick.
    saved_config)."""
    config = run.config
    assert config is not None
    interface = config.interface
    brief = run.quiet(f"ip -all -brief address show dev {interface}").stdout
    match = re.match(rf"{re.escape(interface)} + [A-Z]+ +(.+)$", brief.rstrip("\n"))
    addresses = match.group(1).split() if match else []
    mtu_shown = re.search(r"mtu ([0-9]+)", run.quiet(f"ip link show dev {interface}").stdout)
    mtu = int(mtu_shown.group(1)) if mtu_shown else None
    run.stderr.append(f"[#] wg showconf {config.interface}\n")
    shown = run.session.run(f"wg showconf {config.interface}")
    run.stderr.append(shown.stderr)
    if shown.status != 0:
        raise _Exit(shown.status)
    text = quick.saved_config(config, addresses, mtu, shown.stdout)
    session = run.session
    # umask 077, then mv over the file: the new file is 0600 whatever the old one was.
    session.host_files[config.path] = PrivateHostFile(
        len(text.encode()), session.now(), text, allocated=written_whole(len(text.encode())))


def _strip(run: _Run) -> None:
    config = run.config
    assert config is not None
    run.stdout.append(quick.strip_output(config))
