"""What `wg-quick` (wireguard-tools 1.0.20210914, src/wg-quick/linux.bash, installed by Debian 12
as /usr/bin/wg-quick) makes of its configuration files, before and after it runs anything.

wg-quick is a bash script: it reads the file, keeps its own [Interface] keys (Address, DNS,
MTU, Table, PreUp, PostUp, PreDown, PostDown, SaveConfig) and hands every other line to
`wg setconf IF /dev/fd/63`. The functions here are the text-handling parts of that script,
each named after the bash function it follows; the command (labsim.shell.commands.wg_quick)
runs the commands they lead to through the session, so that what they do comes from the `ip`
and `wg` models. Everything here is pure: text in, text or values out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

PROGRAM = "wg-quick"
CONFIG_DIR = "/etc/wireguard"
# The script's own path, which bash names in its errors (a command not found in `cmd`, line
# 32, or in a hook, line 295 of the Debian 12 script).
SCRIPT = "/usr/bin/wg-quick"
CMD_LINE = 32
HOOK_LINE = 295

# [[ $CONFIG_FILE =~ ^[a-zA-Z0-9_=+.-]{1,15}$ ]]: an argument that could be an interface name
# is one; anything else is a path whose file name is the interface name and ".conf".
INTERFACE_NAME = re.compile(r"[a-zA-Z0-9_=+.-]{1,15}")
CONFIG_FILE_NAME = re.compile(r"(^|/)([a-zA-Z0-9_=+.-]{1,15})\.conf$")

USAGE = """Usage: wg-quick [ up | down | save | strip ] [ CONFIG_FILE | INTERFACE ]

  CONFIG_FILE is a configuration file, whose filename is the interface name
  followed by `.conf'. Otherwise, INTERFACE is an interface name, with
  configuration found at /etc/wireguard/INTERFACE.conf. It is to be readable
  by wg(8)'s `setconf' sub-command, with the exception of the following additions
  to the [Interface] section, which are handled by wg-quick:

  - Address: may be specified one or more times and contains one or more
    IP addresses (with an optional CIDR mask) to be set for the interface.
  - DNS: an optional DNS server to use while the device is up.
  - MTU: an optional MTU for the interface; if unspecified, auto-calculated.
  - Table: an optional routing table to which routes will be added; if
    unspecified or `auto', the default table is used. If `off', no routes
    are added.
  - PreUp, PostUp, PreDown, PostDown: script snippets which will be executed
    by bash(1) at the corresponding phases of the link, most commonly used
    to configure DNS. The string `%i' is expanded to INTERFACE.
  - SaveConfig: if set to `true', the configuration is saved from the current
    state of the interface upon shutdown.

See wg-quick(8) for more info and examples.
"""

# add_default(): the first table tried for a default route, and the mark wg-quick's rules use.
DEFAULT_TABLE = 51820
# set_mtu_up(): WireGuard's overhead over IPv6 (40 + 8 UDP + 32 WireGuard), taken off the
# underlay's MTU; 1500 when no route says otherwise.
MTU_OVERHEAD = 80
FALLBACK_MTU = 1500
# The comment on every iptables rule wg-quick adds, which is how remove_firewall() finds them.
RULE_COMMENT = 'wg-quick(8) rule for {interface}'
# add_default()'s nft table, one per family (ip, ip6) and interface; remove_firewall() deletes
# every table `nft list tables` names that ends in " wg-quick-IF".
NFT_TABLE = "wg-quick-{interface}"


class QuickError(Exception):
    """A `die` of the script: ``text`` follows "wg-quick: ", and the exit status is 1."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


@dataclass
class QuickConfig:
    """parse_options(): the file's wg-quick keys, and ``wg_config``, the lines left for `wg`.

    The lists keep the order of the file; ``mtu`` and ``table`` are the last value given
    (None when absent), as the script's plain variables are."""

    interface: str
    path: str  # the file's absolute path (readlink -f)
    wg_config: str = ""
    addresses: list[str] = field(default_factory=list)
    mtu: str | None = None
    dns: list[str] = field(default_factory=list)
    dns_search: list[str] = field(default_factory=list)
    table: str | None = None
    pre_up: list[str] = field(default_factory=list)
    post_up: list[str] = field(default_factory=list)
    pre_down: list[str] = field(default_factory=list)
    post_down: list[str] = field(default_factory=list)
    save_config: bool = False


def config_file(argument: str) -> str:
    """The first lines of parse_options(): an interface name means /etc/wireguard/NAME.conf,
    anything else is a path as given (so `wg-quick up x.conf` reads
    /etc/wireguard/x.conf.conf, and `./x.conf` is needed for the file in the current
    directory)."""
    if INTERFACE_NAME.fullmatch(argument):
        return f"{CONFIG_DIR}/{argument}.conf"
    return argument


def interface_of(path: str) -> str:
    """The interface a configuration file is for: its name less ".conf", which must be a
    valid interface name (at most 15 of [a-zA-Z0-9_=+.-])."""
    match = CONFIG_FILE_NAME.search(path)
    if match is None:
        raise QuickError("The config file must be a valid interface name, followed by .conf")
    return match.group(2)


def _bash_trim(text: str) -> str:
    """${v##*([[:space:]])} and ${v%%*([[:space:]])}: white space off both ends."""
    return text.strip(" \t\n\v\f\r")


def read_lines(text: str) -> list[str]:
    """`while read -r line || [[ -n $line ]]`: each line with the spaces and tabs at its ends
    removed (read splits on IFS), the last one even without a newline after it."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.strip(" \t") for line in lines]


def read_bool(value: str) -> bool:
    """read_bool(): exactly "true" or "false" (nocasematch is on, so any case)."""
    if value.lower() == "true":
        return True
    if value.lower() == "false":
        return False
    raise QuickError(f"`{value}' is neither true nor false")


def parse_options(text: str, interface: str, path: str) -> QuickConfig:
    """The loop of parse_options(), with `shopt -s nocasematch` (keys and section names in
    any case). A line's key is what comes before its first "=", its value what comes after
    (the whole line when there is none), both trimmed; a comment is cut off first. wg-quick's
    own keys count only in [Interface]; every other line, comments included, goes to `wg`
    as it was read."""
    config = QuickConfig(interface, path)
    in_interface = False
    kept: list[str] = []
    for line in read_lines(text):
        stripped = line.split("#", 1)[0]
        key = _bash_trim(stripped.split("=", 1)[0])
        value = _bash_trim(stripped.split("=", 1)[1] if "=" in stripped else stripped)
        if key.startswith("["):
            in_interface = False
        if key.lower() == "[interface]":
            in_interface = True
        if in_interface and _take_key(config, key.lower(), value):
            continue
        kept.append(line + "\n")
    config.wg_config = "".join(kept)
    return config


def _take_key(config: QuickConfig, key: str, value: str) -> bool:
    """One case of parse_options()'s `case "$key"`; False for a key that is not wg-quick's.
    Lists are split as the unquoted ${value//,/ } is: at commas and white space."""
    words = value.replace(",", " ").split()
    if key == "address":
        config.addresses += words
    elif key == "mtu":
        config.mtu = value
    elif key == "dns":
        for word in words:
            # [[ $v =~ (^[0-9.]+$)|(^.*:.*$) ]]: an IPv4 or IPv6 address, else a search domain
            if re.fullmatch(r"[0-9.]+", word) or ":" in word:
                config.dns.append(word)
            else:
                config.dns_search.append(word)
    elif key == "table":
        config.table = value
    elif key == "preup":
        config.pre_up.append(value)
    elif key == "predown":
        config.pre_down.append(value)
    elif key == "postup":
        config.post_up.append(value)
    elif key == "postdown":
        config.post_down.append(value)
    elif key == "saveconfig":
        config.save_config = read_bool(value)
    else:
        return False
    return True


def strip_output(config: QuickConfig) -> str:
    """cmd_strip(): `echo "$WG_CONFIG"`, which is also what `wg setconf` reads from /dev/fd/63
    (set_config()): the kept lines and one more newline."""
    return config.wg_config + "\n"


def world_accessible(file_mode: int, dir_mode: int) -> bool:
    """The check after readlink -f: a warning unless the file or its directory keeps others
    out (((file & dir & 0007) == 0))."""
    return file_mode & dir_mode & 0o007 != 0


def expand_hook(hook: str, interface: str) -> str:
    """execute_hooks(): every %i becomes the interface name."""
    return hook.replace("%i", interface)


# --- up ----------------------------------------------------------------------------------


def allowed_ips_routes(allowed_ips: str) -> list[str]:
    """The prefixes cmd_up() adds routes for, in its order: every entry of
    `wg show IF allowed-ips` that looks like ADDRESS/LENGTH, through `sort -nr -k 2 -t /`
    (longest prefix first; of equal lengths, the greater line first, since sort's last-resort
    comparison of whole lines is reversed by -r, byte by byte under LC_ALL=C)."""
    entries: list[str] = []
    for line in allowed_ips.splitlines():
        parts = line.split(None, 1)
        for entry in (parts[1].split() if len(parts) > 1 else []):
            if re.fullmatch(r"[0-9a-z:.]+/[0-9]+", entry):
                entries.append(entry)
    return sorted(entries, key=lambda e: (int(e.split("/")[1]), e.encode()), reverse=True)


def endpoint_addresses(endpoints: str) -> list[str]:
    """set_mtu_up(): the address of each endpoint in `wg show IF endpoints` (peers without
    one show "(none)" and are skipped)."""
    found = []
    for line in endpoints.splitlines():
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        match = re.fullmatch(r"\[?([a-z0-9:.]+)\]?:[0-9]+", parts[1].strip())
        if match:
            found.append(match.group(1))
    return found


def parse_fwmark(text: str) -> int | None:
    """get_fwmark(): `wg show IF fwmark` as a number (printf %d reads 0x...), None for off."""
    value = text.strip()
    if not value or value == "off":
        return None
    return int(value, 0)


def has_default_route(allowed_ips: str) -> bool:
    """del_if(): [[ $(wg show IF allowed-ips) =~ /0(\\ |$'\\n'|$) ]]."""
    return re.search(r"/0( |\n|$)", allowed_ips.rstrip("\n")) is not None


def nft_family(prefix: str) -> str:
    """add_default()'s pf: ip6 for an IPv6 prefix, else ip."""
    return "ip6" if ":" in prefix else "ip"


def nft_up(interface: str, family: str, addresses: list[str], table: int) -> str:
    """add_default()'s input to `nft -f` (the form used when `type -p nft` finds nft): the
    same rules as iptables_restore_up() in a table of their own, table FAMILY
    wg-quick-IF. preraw, at the raw priority (-300) of prerouting, drops packets to the
    interface's addresses that come in by another interface and not from this host;
    postmangle (postrouting, -150) copies the mark of WireGuard's UDP packets to their
    connection and premangle (prerouting, -150) copies it back to the answers. Text for
    text as linux.bash builds it with printf -v, the two mark rules with a space at the
    end."""
    name = f"{family} {NFT_TABLE.format(interface=interface)}"
    lines = [f"add table {name}\n",
             f"add chain {name} preraw {{ type filter hook prerouting priority -300; }}\n",
             f"add chain {name} premangle {{ type filter hook prerouting priority -150; }}\n",
             f"add chain {name} postmangle {{ type filter hook postrouting priority -150; }}\n"]
    lines += [f'add rule {name} preraw iifname != "{interface}" {family} daddr {address} '
              "fib saddr type != local drop\n" for address in addresses]
    lines += [f"add rule {name} postmangle meta l4proto udp mark {table} ct mark set mark \n",
              f"add rule {name} premangle meta l4proto udp meta mark set ct mark \n"]
    return "".join(lines)


def nft_down(tables: str, interface: str) -> str | None:
    """remove_firewall() with nft: `delete TABLE` for each line of `nft list tables` that
    ends in " wg-quick-IF" (both families); None when there is none, and nft is not run."""
    suffix = " " + NFT_TABLE.format(interface=interface)
    found = [f"delete {line}\n" for line in read_lines(tables) if line.endswith(suffix)]
    return "".join(found) or None


def iptables_restore_up(interface: str, addresses: list[str], table: int) -> str:
    """add_default()'s input to `iptables-restore -n` (ip6tables-restore for IPv6), the form
    used when `nft` is not installed (a machine with only the iptables package): in the raw
    table, drop packets to the interface's addresses that come in by another interface (and
    are not from this host); in the mangle table, keep the mark of WireGuard's own UDP
    packets on their connection, so that replies are routed like them."""
    marker = f'-m comment --comment "{RULE_COMMENT.format(interface=interface)}"'
    lines = ["*raw"]
    for address in addresses:
        lines.append(f"-I PREROUTING ! -i {interface} -d {address} -m addrtype "
                     f"! --src-type LOCAL -j DROP {marker}")
    lines += [
        "COMMIT",
        "*mangle",
        f"-I POSTROUTING -m mark --mark {table} -p udp -j CONNMARK --save-mark {marker}",
        f"-I PREROUTING -p udp -j CONNMARK --restore-mark {marker}",
        "COMMIT",
    ]
    return "\n".join(lines) + "\n"


def iptables_restore_down(saved: str, interface: str) -> str | None:
    """remove_firewall(): from `iptables-save`, the table headers, COMMITs and this
    interface's rules with -A turned into -D; None when there is no such rule."""
    marker = f'-m comment --comment "{RULE_COMMENT.format(interface=interface)}"'
    lines, found = [], False
    for line in read_lines(saved):
        if not (line.startswith("*") or line == "COMMIT"
                or (line.startswith("-A ") and marker in line)):
            continue
        if line.startswith("-A"):
            found = True
            line = "-D" + line[2:]
        lines.append(line + "\n")
    return "".join(lines) if found else None


# --- save ----------------------------------------------------------------------------------


def saved_config(config: QuickConfig, addresses: list[str], mtu: int | None,
                 showconf: str) -> str:
    """save_config(): the file `wg-quick save` (and `down` with SaveConfig = true) writes.

    Its [Interface] section starts with wg-quick's keys: an Address line for each address the
    interface has now (`ip -brief address`, which for kernel WireGuard holds only those added),
    DNS (none: read back from resolvconf, which Debian 12 does not install), MTU (the link's,
    only if the file set one), Table and SaveConfig as the file had them, then the hooks, in
    the order PreUp, PostUp, PreDown, PostDown whatever the file's order was. The rest is
    `wg showconf`: the running configuration, so comments are gone, hostnames are resolved
    addresses and a ListenPort the kernel picked is written down."""
    head = ["[Interface]\n"]
    head += [f"Address = {address}\n" for address in addresses]
    if config.mtu and mtu is not None:
        head.append(f"MTU = {mtu}\n")
    if config.table:
        head.append(f"Table = {config.table}\n")
    if config.save_config:
        head.append("SaveConfig = true\n")
    for name, hooks in (("PreUp", config.pre_up), ("PostUp", config.post_up),
                        ("PreDown", config.pre_down), ("PostDown", config.post_down)):
        head += [f"{name} = {hook}\n" for hook in hooks]
    # ${current_config/\[Interface\]$'\n'/$new_config}, after $(...) dropped the trailing
    # newlines; echo adds one.
    current = showconf.rstrip("\n")
    return current.replace("[Interface]\n", "".join(head), 1) + "\n"


# --- endpoints by name -----------------------------------------------------------------------


def resolve_endpoints(wg_config: str, resolve: Callable[[str], str | None]) -> str:
    """The configuration with each Endpoint's host name replaced by the address ``resolve``
    gives for it, as getaddrinfo() would have answered `wg`; numeric hosts and names
    ``resolve`` does not know are left for `wg` to read (and refuse)."""
    out = []
    for line in wg_config.splitlines(keepends=True):
        match = re.fullmatch(r"(\s*endpoint\s*=\s*)([^\s#\[\]]+):([0-9]+)(\s*(#.*)?\n?)",
                             line, re.IGNORECASE)
        if match and not re.fullmatch(r"[0-9.]+", match.group(2)):
            address = resolve(match.group(2))
            if address is not None:
                line = f"{match.group(1)}{address}:{match.group(3)}{match.group(4)}"
        out.append(line)
    return "".join(out)


def hosts_file_lookup(hosts: str, name: str) -> str | None:
    """glibc's files backend for /etc/hosts: the first IPv4 line that lists ``name`` as its
    canonical name or an alias (names compare without regard to case)."""
    for line in hosts.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and re.fullmatch(r"[0-9.]+", fields[0]) and \
                name.lower() in (f.lower() for f in fields[1:]):
            return fields[0]
    return None
