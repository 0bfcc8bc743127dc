"""`ip` (iproute2 6.1.0, Debian 12) on the session's host of its ``Network`` (labsim.net):
`ip address`, `ip route`, `ip rule` and `ip link` in the forms the WireGuard lessons and
wg-quick use, and what `ip -6` answers on a host without IPv6 routes. Any other form gets a
message that says so. Outputs and errors were recorded from the real tool
(tests/unit/test_net_commands.py, test_net_policy.py).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labsim.format import ip as ipfmt
from labsim.net import delivery, model
from labsim.net.model import Host, NetError
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import host_of, unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


def _matches(word: str, full: str, shortest: int = 1) -> bool:
    """iproute2's matches(): ``word`` is a prefix of ``full`` at least ``shortest`` long."""
    return len(word) >= shortest and full.startswith(word)


@dataclass(frozen=True)
class _IpOptions:
    """`ip`'s global options the model knows: -brief, -oneline, -4 or -6 (-all, which
    only `ip -all netns` reads, is accepted and changes nothing)."""

    brief: bool = False
    oneline: bool = False
    family: int = 0  # 4, 6, or 0 for any


@command("ip")
def ip(session: Session, argv: list[str]) -> CommandResult:
    args = argv[1:]
    options = _IpOptions()
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option in ("-br", "-brief", "--brief"):
            options = replace(options, brief=True)
        elif option in ("-o", "-oneline"):
            options = replace(options, oneline=True)
        elif option in ("-4", "-6"):
            options = replace(options, family=int(option[1]))
        elif option not in ("-a", "-all"):
            return unmodelled("ip", argv)
    if not args:
        return unmodelled("ip", argv)
    host = host_of(session)
    obj, rest = args[0], args[1:]
    try:
        if options.family == 6:
            return _ip_ipv6(host, obj, rest, argv)
        if _matches(obj, "address"):
            return _ip_addr(host, rest, options, argv)
        if _matches(obj, "route"):
            return _ip_route(host, rest, argv)
        if _matches(obj, "rule"):
            return _ip_rule(host, rest, argv)
        if _matches(obj, "link"):
            return _ip_link(session, host, rest, argv)
    except NetError as err:
        return CommandResult.fail(err.message, err.status)
    if any(_matches(obj, name) for name in IP_OBJECTS):
        return CommandResult.fail(msg.command_line_not_simulated("ip", argv), 1)
    return CommandResult.fail(f'Object "{obj}" is unknown, try "ip help".', 1)


# The objects of iproute2's ip (cmds[] in ip/ip.c) beside address, route, rule and link,
# which labsim models: a word any of them starts with is real, and gets the notice.
IP_OBJECTS = ("addrlabel", "maddress", "neighbor", "neighbour", "ntable", "ntbl", "l2tp",
              "fou", "ila", "macsec", "tunnel", "tunl", "tuntap", "tap", "token",
              "tcpmetrics", "tcp_metrics", "monitor", "xfrm", "mroute", "mrule", "netns",
              "netconf", "vrf", "sr", "nexthop", "mptcp", "ioam", "help", "stats")


def _ip_ipv6(host: Host, obj: str, rest: list[str], argv: list[str]) -> CommandResult:
    """The model routes IPv4 only; `ip -6` answers what wg-quick asks of a host without
    IPv6 routes: the two default rules, and no table but main and local."""
    if _matches(obj, "rule") and (not rest or rest in (["show"], ["list"])):
        return CommandResult(stdout=ipfmt.RULE_SHOW_IPV6)
    if (_matches(obj, "route") and len(rest) == 3 and _is_show(rest[0])
            and rest[1] == "table" and _table_id(rest[2]) not in model.TABLE_NAMES):
        return CommandResult.fail("Error: ipv6: FIB table does not exist.\nDump terminated", 2)
    return unmodelled("ip", argv)


def _is_show(word: str) -> bool:
    return _matches(word, "show") or _matches(word, "list")


def _dev_arg(rest: list[str]) -> str | None:
    """NAME from ``[dev] NAME`` (the only argument left)."""
    if rest[:1] == ["dev"]:
        rest = rest[1:]
    return rest[0] if len(rest) == 1 else None


def _ip_addr(host: Host, rest: list[str], options: _IpOptions,
             argv: list[str]) -> CommandResult:
    if not rest or _is_show(rest[0]):
        rest = rest[1:]
        names = model.link_names(host)
        if rest:
            name = _dev_arg(rest)
            if name is None:
                return unmodelled("ip", argv)
            if not model.has_link(host, name):
                return CommandResult.fail(f'Device "{name}" does not exist.', 1)
            names = [name]
        if options.oneline:
            if options.brief:
                return unmodelled("ip", argv)
            return CommandResult(stdout=ipfmt.addr_oneline(host, names,
                                                           inet6=options.family != 4))
        shown = ipfmt.brief_addr(host, names) if options.brief else ipfmt.addr_show(host, names)
        return CommandResult(stdout=shown)
    if rest[0] == "add" and len(rest) == 4 and rest[2] == "dev":
        _check_prefix(rest[1], options.family)
        model.add_address(host, rest[3], rest[1])
        return CommandResult()
    return unmodelled("ip", argv)


def _check_prefix(text: str, family: int | None = None) -> None:
    """iproute2's get_prefix(): an address with an optional /length, else its error, which
    names the family when one was given (`ip -4`: "inet prefix")."""
    if text == "default":
        return
    try:
        ipaddress.IPv4Interface(text)
    except ValueError:
        kind = "inet" if family == 4 else "any valid"
        raise NetError(f'Error: {kind} prefix is expected rather than "{text}".', 1) from None


def _check_address(text: str) -> ipaddress.IPv4Address:
    try:
        return ipaddress.IPv4Address(text)
    except ValueError:
        raise NetError(f'Error: inet address is expected rather than "{text}".', 1) from None


def _table_id(text: str) -> int | None:
    """rtnl_rttable_a2n(): a table's name from /etc/iproute2/rt_tables, or its number."""
    names = {name: number for number, name in model.TABLE_NAMES.items()}
    if text in names:
        return names[text]
    try:
        number = int(text, 0)
    except ValueError:
        return None
    return number if 0 < number <= 0xFFFFFFFF else None


def _invalid_argument(text: str, what: str) -> NetError:
    """iproute2's invarg(): the message (the callers' own texts end in a newline, so a
    blank line follows) and exit(-1)."""
    return NetError(f'Error: argument "{text}" is wrong: {what}\n\n', 255)


def _table_arg(text: str, what: str = '"table" value is invalid') -> int:
    """A table for `ip route` (``what`` is `ip rule`'s own text otherwise)."""
    table = _table_id(text)
    if table is None:
        raise _invalid_argument(text, what)
    return table


def _u32(text: str, what: str) -> int:
    """get_u32(..., 0): decimal, 0x hexadecimal or 0 octal; else invarg(``what``)."""
    base = 8 if len(text) > 1 and text[0] == "0" and text[1].isdigit() else 0
    try:
        value = int(text, base)
    except ValueError:
        value = -1
    if not 0 <= value <= 0xFFFFFFFF:
        raise _invalid_argument(text, what)
    return value


def _pairs(words: list[str], known: set[str]) -> dict[str, str] | None:
    """``KEY VALUE`` pairs with keys from ``known`` (each at most once), else None."""
    if len(words) % 2:
        return None
    pairs = dict(zip(words[0::2], words[1::2], strict=True))
    if len(pairs) != len(words) // 2 or set(pairs) - known:
        return None
    return pairs


def _ip_route(host: Host, rest: list[str], argv: list[str]) -> CommandResult:
    if not rest or _is_show(rest[0]):
        return _ip_route_show(host, rest[1:], argv)
    if rest[0] == "get" and len(rest) in (2, 4):
        address = _check_address(rest[1])
        options = _pairs(rest[2:], {"mark"})
        if options is None:
            return unmodelled("ip", argv)
        try:
            mark = _u32(options["mark"], "") if options else 0
        except NetError:
            # iproute.c's text for this one has no newline of its own.
            raise NetError(f'Error: argument "{options["mark"]}" is wrong: invalid mark '
                           'value', 255) from None
        if model.is_local(host, address):
            return CommandResult(stdout=ipfmt.route_get(host, address, None, mark))
        route = model.route_for(host, address, mark)
        if route is None:
            raise NetError(model.NETWORK_UNREACHABLE)
        return CommandResult(stdout=ipfmt.route_get(host, address, route, mark))
    if rest[0] == "add" and len(rest) >= 4:
        options = _pairs(rest[2:], {"dev", "via", "table"})
        if options is None:
            return unmodelled("ip", argv)
        _check_prefix(rest[1])
        if "via" in options:
            _check_address(options["via"])
        table = _table_arg(options["table"]) if "table" in options else model.MAIN_TABLE
        model.add_route(host, rest[1], dev=options.get("dev"), via=options.get("via"),
                        table=table)
        return CommandResult()
    if rest[0] in ("del", "delete") and len(rest) >= 2:
        options = _pairs(rest[2:], {"dev", "table"})
        if options is None:
            return unmodelled("ip", argv)
        _check_prefix(rest[1])
        table = _table_arg(options["table"]) if "table" in options else model.MAIN_TABLE
        model.delete_route(host, rest[1], dev=options.get("dev"), table=table)
        return CommandResult()
    return unmodelled("ip", argv)


def _ip_route_show(host: Host, words: list[str], argv: list[str]) -> CommandResult:
    """`ip route show [table ID] [dev DEV] [match PREFIX | PREFIX]`: a bare PREFIX (or
    default) selects that exact prefix, `match` the routes that cover it."""
    selector: tuple[str, ipaddress.IPv4Network] | None = None
    if len(words) % 2 and words:
        words = [*words[:-1], "exact", words[-1]]
    options = _pairs(words, {"table", "dev", "match", "exact"})
    if options is None or ("match" in options and "exact" in options):
        return unmodelled("ip", argv)
    for kind in ("match", "exact"):
        if kind in options:
            _check_prefix(options[kind])
            text = "0.0.0.0/0" if options[kind] == "default" else options[kind]
            selector = (kind, ipaddress.IPv4Network(text, strict=False))
    table = _table_arg(options["table"]) if "table" in options else model.MAIN_TABLE
    if not model.table_exists(host, table):
        return CommandResult.fail("Error: ipv4: FIB table does not exist.\nDump terminated", 2)
    dev = options.get("dev")
    if dev is not None and not model.has_link(host, dev):
        return CommandResult.fail(f'Cannot find device "{dev}"', 1)
    routes = [r for r in model.sorted_routes(host, table) if dev in (None, r.dev)]
    if selector is not None:
        kind, prefix = selector
        routes = [r for r in routes if (r.prefix == prefix if kind == "exact"
                                        else prefix.subnet_of(r.prefix))]
    return CommandResult(stdout=ipfmt.route_show(host, table, routes, dev))


RULE_WORDS = {"fwmark", "table", "lookup", "pref", "priority", "order",
              "suppress_prefixlength", "from"}


def _ip_rule(host: Host, rest: list[str], argv: list[str]) -> CommandResult:
    """`ip rule [show]`, and `ip rule add|del` with `not`, `from all`, `fwmark N[/MASK]`,
    `table|lookup ID`, `pref|priority|order N` and `suppress_prefixlength N` (the words
    wg-quick uses, and priorities)."""
    if not rest or (len(rest) == 1 and _is_show(rest[0])):
        return CommandResult(stdout=ipfmt.rule_show(host))
    if rest[0] not in ("add", "del", "delete"):
        return unmodelled("ip", argv)
    words = rest[1:]
    invert = "not" in words
    if invert:
        words.remove("not")
    options = _pairs(words, RULE_WORDS)
    if options is None or options.get("from", "all") != "all" or not options or \
            len({"table", "lookup"} & set(options)) > 1 or \
            len({"pref", "priority", "order"} & set(options)) > 1:
        return unmodelled("ip", argv)
    table_text = options.get("table", options.get("lookup"))
    table = _table_arg(table_text, "invalid table ID") if table_text is not None else None
    priority_text = options.get("pref", options.get("priority", options.get("order")))
    priority = _u32(priority_text, "preference value is invalid") \
        if priority_text is not None else None
    fwmark, fwmask = None, 0xFFFFFFFF
    if "fwmark" in options:
        mark, _, mask = options["fwmark"].partition("/")
        fwmark = _u32(mark, "fwmark value is invalid")
        if mask:
            fwmask = _u32(mask, "fwmask value is invalid")
    suppress = (_u32(options["suppress_prefixlength"], "suppress_prefixlength value is invalid")
                if "suppress_prefixlength" in options else None)
    if rest[0] == "add":
        # Without a table, iproute2 asks for main (iprule_modify()).
        rule = model.Rule(priority or 0, model.MAIN_TABLE if table is None else table, fwmark,
                          fwmask, invert, suppress)
        model.add_rule(host, rule, priority_given=priority is not None)
    else:
        model.delete_rule(host, priority=priority, table=table, fwmark=fwmark,
                          suppress_prefixlength=suppress)
    return CommandResult()


def _ip_link(session: Session, host: Host, rest: list[str], argv: list[str]) -> CommandResult:
    if not rest or _is_show(rest[0]):
        names = model.link_names(host)
        if rest[1:]:
            name = _dev_arg(rest[1:])
            if name is None:
                return unmodelled("ip", argv)
            if not model.has_link(host, name):
                return CommandResult.fail(f'Device "{name}" does not exist.', 1)
            names = [name]
        return CommandResult(stdout=ipfmt.link_show(host, names))
    if rest[:1] == ["add"]:
        words = rest[1:]
        if words[:1] == ["dev"]:
            words = words[1:]
        if len(words) == 3 and words[1] == "type":
            if words[2] != "wireguard":
                return CommandResult.fail("Error: Unknown device type.", 2)
            model.add_wireguard_link(host, words[0])
            return CommandResult()
    elif rest[:1] == ["set"]:
        return _ip_link_set(session, host, rest[1:], argv)
    elif rest[:1] in (["del"], ["delete"]):
        words = rest[1:]
        if words[:1] == ["dev"]:
            words = words[1:]
        if len(words) == 1:
            model.delete_link(host, words[0])
            return CommandResult()
    return unmodelled("ip", argv)


def _ip_link_set(session: Session, host: Host, words: list[str],
                 argv: list[str]) -> CommandResult:
    """`ip link set [dev] NAME up|down [mtu N]`, the words in any order, as iproute2 reads
    them (wg-quick: `ip link set mtu 1420 up dev wg0`). The MTU is shown by `ip link`
    and `ip addr`; packets in the model are small, so it changes no delivery."""
    name, state, mtu = None, None, None
    while words:
        word = words.pop(0)
        if word in ("up", "down"):
            state = word == "up"
        elif word in ("mtu", "dev") and words:
            value = words.pop(0)
            if word == "dev":
                name = value
            else:
                mtu = value
        elif name is None:
            name = word
        else:
            return unmodelled("ip", argv)
    if name is None or (state is None and mtu is None):
        return unmodelled("ip", argv)
    if not model.has_link(host, name):
        raise model.no_device(name)
    if mtu is not None:
        if not mtu.isdigit():
            return unmodelled("ip", argv)
        model.set_mtu(host, name, int(mtu))
    if state is not None:
        came_up = state and not model.link_up(host, name)
        model.set_link(host, name, state)
        if state:
            delivery.settle(session.network, session.now(),
                            brought_up=(session.hostname, name) if came_up else None)
    return CommandResult()
