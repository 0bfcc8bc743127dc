"""`ip`, `ping`, `curl`, `sysctl`, `iptables`, `iptables-restore`, `iptables-save` and `nft` on
the session's host of its ``Network`` (labsim.net), and `wg` followed by what
PersistentKeepalive does at once.

Versions as on Debian 12: iproute2 6.1.0, iputils-ping 20221126, curl 7.88.1, procps 4.0.2
(sysctl), iptables 1.8.9 (nf_tables), nftables 1.0.6 (only on a network whose firewall_backend
is NFT; elsewhere there is no `nft`). Only the forms the WireGuard lessons and wg-quick use are
modelled; any other form gets a message that says so. Outputs and errors were recorded from the
real tools (tests/unit/test_net_commands.py, test_net_policy.py, test_net_http.py).
"""

from __future__ import annotations

import ipaddress
import shlex
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labsim.format import ip as ipfmt
from labsim.format import ping as pingfmt
from labsim.net import delivery, model, nftables
from labsim.net.model import Host, NetError
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.commands import wg as wgcmd
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


def _host(session: Session) -> Host:
    assert session.network is not None  # Session.__post_init__ always makes one
    return session.network.hosts[session.hostname]


def _unmodelled(tool: str, argv: list[str]) -> CommandResult:
    return CommandResult.fail(msg.command_line_not_simulated(tool, argv), 2)


@command("ss")
def ss(session: Session, argv: list[str]) -> CommandResult:
    """iproute2's ss, which the lab VM has and no lesson uses: every form gets the notice
    (its table's columns are sized from what it lists, misc/ss.c; labsim keeps no sockets
    table to list)."""
    return CommandResult.fail(msg.command_line_not_simulated("ss", argv), 1)


@command("wg")
def wg(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`wg`, then the handshakes PersistentKeepalive starts (setting a keepalive on an up
    interface sends one at once)."""
    result = wgcmd.main(session, argv, stdin=stdin)
    delivery.settle(session.network, session.now())
    return result


# ---------------------------------------------------------------------------------------- ip

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
            return _unmodelled("ip", argv)
    if not args:
        return _unmodelled("ip", argv)
    host = _host(session)
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
    return _unmodelled("ip", argv)


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
                return _unmodelled("ip", argv)
            if not model.has_link(host, name):
                return CommandResult.fail(f'Device "{name}" does not exist.', 1)
            names = [name]
        if options.oneline:
            if options.brief:
                return _unmodelled("ip", argv)
            return CommandResult(stdout=ipfmt.addr_oneline(host, names,
                                                           inet6=options.family != 4))
        shown = ipfmt.brief_addr(host, names) if options.brief else ipfmt.addr_show(host, names)
        return CommandResult(stdout=shown)
    if rest[0] == "add" and len(rest) == 4 and rest[2] == "dev":
        _check_prefix(rest[1], options.family)
        model.add_address(host, rest[3], rest[1])
        return CommandResult()
    return _unmodelled("ip", argv)


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
            return _unmodelled("ip", argv)
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
            return _unmodelled("ip", argv)
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
            return _unmodelled("ip", argv)
        _check_prefix(rest[1])
        table = _table_arg(options["table"]) if "table" in options else model.MAIN_TABLE
        model.delete_route(host, rest[1], dev=options.get("dev"), table=table)
        return CommandResult()
    return _unmodelled("ip", argv)


def _ip_route_show(host: Host, words: list[str], argv: list[str]) -> CommandResult:
    """`ip route show [table ID] [dev DEV] [match PREFIX | PREFIX]`: a bare PREFIX (or
    default) selects that exact prefix, `match` the routes that cover it."""
    selector: tuple[str, ipaddress.IPv4Network] | None = None
    if len(words) % 2 and words:
        words = [*words[:-1], "exact", words[-1]]
    options = _pairs(words, {"table", "dev", "match", "exact"})
    if options is None or ("match" in options and "exact" in options):
        return _unmodelled("ip", argv)
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
        return _unmodelled("ip", argv)
    words = rest[1:]
    invert = "not" in words
    if invert:
        words.remove("not")
    options = _pairs(words, RULE_WORDS)
    if options is None or options.get("from", "all") != "all" or not options or \
            len({"table", "lookup"} & set(options)) > 1 or \
            len({"pref", "priority", "order"} & set(options)) > 1:
        return _unmodelled("ip", argv)
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
                return _unmodelled("ip", argv)
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
    return _unmodelled("ip", argv)


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
            return _unmodelled("ip", argv)
    if name is None or (state is None and mtu is None):
        return _unmodelled("ip", argv)
    if not model.has_link(host, name):
        raise model.no_device(name)
    if mtu is not None:
        if not mtu.isdigit():
            return _unmodelled("ip", argv)
        model.set_mtu(host, name, int(mtu))
    if state is not None:
        came_up = state and not model.link_up(host, name)
        model.set_link(host, name, state)
        if state:
            delivery.settle(session.network, session.now(),
                            brought_up=(session.hostname, name) if came_up else None)
    return CommandResult()


# -------------------------------------------------------------------------------------- ping

PING_TIMEOUT = 10.0
"""Seconds ping waits for a last reply that does not come (MAXWAIT in ping.h), unless -W."""


@command("ping")
def ping(session: Session, argv: list[str]) -> CommandResult:
    """`ping -c N [-W S] [-i S] ADDRESS`: one echo per second through the model."""
    count, timeout, interval, target = None, PING_TIMEOUT, 1.0, None
    args = argv[1:]
    try:
        while args:
            word = args.pop(0)
            if word[:2] in ("-c", "-W", "-i") and len(word) > 2:
                # getopt: an option's value may be glued to it (`ping -c1`).
                args.insert(0, word[2:])
                word = word[:2]
            if word in ("-c", "-W", "-i") and args:
                value = args.pop(0)
                if word == "-c":
                    count = int(value)
                    if count < 1:
                        return CommandResult.fail(
                            f"ping: invalid argument: '{value}': out of range: "
                            "1 <= value <= 9223372036854775807", 1)
                elif word == "-W":
                    timeout = float(value)
                else:
                    interval = float(value)
            elif word == "-n":
                continue
            elif word.startswith("-") or target is not None:
                return _unmodelled("ping", argv)
            else:
                target = word
    except ValueError:
        return _unmodelled("ping", argv)
    if target is None:
        return CommandResult.fail("ping: usage error: Destination address required", 1)
    try:
        address = ipaddress.IPv4Address(target)
    except ValueError:
        # The lab VM resolves no lesson host names; iputils reports getaddrinfo()'s error.
        return CommandResult.fail(f"ping: {target}: Temporary failure in name resolution", 2)
    if count is None:
        return CommandResult.fail(msg.tool_not_simulated(
            "ping", "a ping without -c, which runs until interrupted,") + "; give -c N", 2)
    return _ping(session, address, count, timeout, interval)


def _ping(session: Session, address: ipaddress.IPv4Address, count: int, timeout: float,
          interval: float) -> CommandResult:
    network, start = session.network, session.now()
    text = str(address)
    trips: list[int] = []
    stderr = []
    # ping's lines as a terminal shows them: stdout is line-buffered there, stderr not at all
    order = [(1, pingfmt.header(text))]
    last_ok = False
    deliveries: list[delivery.Delivery] = []
    errors = 0
    for seq in range(1, count + 1):
        session.tick()  # a packet a step of the line's budget (labsim.shell.executor)
        now = start + (seq - 1) * interval
        delivery.settle(network, now)
        trip = delivery.echo(network, session.hostname, address, now)
        delivery.apply(network, trip)
        deliveries.append(trip)
        drop = trip.dropped
        if drop is not None and drop.reason == delivery.NO_ROUTE and drop.errno and seq == 1:
            # ping connect()s its socket first: no route ends it before anything is sent.
            session.last_ping = tuple(deliveries)
            return CommandResult.fail(f"ping: connect: {drop.errno}", 2)
        if drop is not None and drop.unreachable_from is not None:
            # receive_error_msg() finds the ICMP error first, then sendmsg's error is shown.
            errors += 1
            order.append((1, pingfmt.unreachable(str(drop.unreachable_from), seq)))
        if drop is not None and drop.errno and not drop.reply:
            stderr.append(f"ping: sendmsg: {drop.errno}\n")
            order.append((2, stderr[-1]))
        last_ok = trip.ok
        if trip.ok:
            assert trip.rtt_ms is not None and trip.reply_ttl is not None  # set with a reply
            us = round(trip.rtt_ms * 1000)
            trips.append(us)
            order.append((1, pingfmt.reply(str(trip.reply_from), seq, trip.reply_ttl, us)))
    session.last_ping = tuple(deliveries)
    # finish()'s "time": from the first send to the last event; the model puts the last
    # event 1 ms after the last send whenever there is more than one packet.
    elapsed_ms = 0 if count == 1 else int((count - 1) * interval * 1000) + 1
    order.append((1, pingfmt.statistics(text, count, trips, elapsed_ms, errors)))
    # ping stops as soon as every packet is answered or failed (main_loop() counts errors).
    waited = trips[-1] / 1e6 if last_ok else 0.0 if errors == count else timeout
    session.clock += (count - 1) * interval + waited
    stdout = "".join(piece for fd, piece in order if fd == 1)
    return CommandResult(stdout=stdout, stderr="".join(stderr), status=0 if trips else 1,
                         output=tuple(order))


# -------------------------------------------------------------------------------------- curl

@command("curl")
def curl(session: Session, argv: list[str]) -> CommandResult:
    """`curl -s[S] [--max-time N | -m N] http://ADDRESS[:PORT][/PATH]`: one GET through the
    model (delivery.http_get), printing the body. With -S a failure prints curl 7.88's
    error text; the exit status is curl's either way: 6 for a name (the lab hosts resolve
    none), 7 when the connection fails at once (refused, no route, or kernel WireGuard's
    ICMP error), 28 when nothing answers before --max-time. Without -s curl prints a
    progress meter of real times, which the model does not make."""
    silent, show_error, max_time, url = False, False, None, None
    args = argv[1:]
    while args:
        word = args.pop(0)
        if word in ("-m", "--max-time") and args:
            try:
                max_time = float(args.pop(0))
            except ValueError:
                return _unmodelled("curl", argv)
        elif word in ("-s", "--silent"):
            silent = True
        elif word in ("-S", "--show-error"):
            show_error = True
        elif word in ("-sS", "-Ss"):
            silent = show_error = True
        elif not word.startswith("-") and url is None:
            url = word
        else:
            return _unmodelled("curl", argv)
    if not silent or url is None or not url.startswith("http://"):
        return _unmodelled("curl", argv)
    authority = url[len("http://"):].partition("/")[0]
    name, colon, port_text = authority.partition(":")
    port = int(port_text) if colon and port_text.isdigit() and 0 < int(port_text) < 65536 \
        else None if colon else 80
    if port is None or not name:
        return _unmodelled("curl", argv)

    def failed(status: int, text: str) -> CommandResult:
        return CommandResult(stderr=f"curl: ({status}) {text}\n" if show_error else "",
                             status=status)

    try:
        address = ipaddress.IPv4Address(name)
    except ValueError:
        return failed(6, f"Could not resolve host: {name}")
    network, now = session.network, session.now()
    delivery.settle(network, now)
    trip = delivery.http_get(network, session.hostname, address, port, now,
                             host_header=name if port == 80 else f"{name}:{port}",
                             max_time=max_time or 0.0)
    delivery.apply(network, trip)
    drop = trip.dropped
    if drop is None or (drop.reason in delivery.WHAT_ENDS_CURL and drop.errno):
        # curl's Curl_timediff(): whole milliseconds, rounded down.
        elapsed_ms = int(trip.rtt_ms or 0)
        session.clock += (trip.rtt_ms or 0) / 1000
        if drop is None and not trip.refused:
            assert trip.server is not None and trip.seen_source is not None
            return CommandResult(stdout=delivery.http_body(trip.server, trip.seen_source))
        return failed(7, f"Failed to connect to {address} port {port} after {elapsed_ms} ms: "
                         "Couldn't connect to server")
    if max_time is None:
        return CommandResult.fail(msg.tool_not_simulated(
            "curl", "waiting minutes for the kernel to give up on a silent server")
            + "; give --max-time N", 2)
    session.clock += max_time
    return failed(28, f"Connection timed out after {round(max_time * 1000)} milliseconds")


# ------------------------------------------------------------------------------------ sysctl

SYSCTL_KEYS = ("net.ipv4.ip_forward", *model.SYSCTL_DEFAULTS)


def _sysctl_value(host: Host, key: str) -> int:
    return host.ip_forward if key == "net.ipv4.ip_forward" else host.sysctls[key]


@command("sysctl")
def sysctl(session: Session, argv: list[str]) -> CommandResult:
    """`sysctl [-n] [-q] [-w] KEY[=VALUE]...` for net.ipv4.ip_forward and
    net.ipv4.conf.all.src_valid_mark. -q prints nothing for a value set (procps: it only
    silences the echo of writes; a read is still printed)."""
    host = _host(session)
    args, value_only, quiet = argv[1:], False, False
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option == "-n":
            value_only = True
        elif option == "-q":
            quiet = True
        elif option != "-w":
            return _unmodelled("sysctl", argv)
    if not args:
        return _unmodelled("sysctl", argv)
    out: list[str] = []
    for item in args:
        key, equals, value = item.partition("=")
        key = key.replace("/", ".")
        if key not in SYSCTL_KEYS:
            path = "/proc/sys/" + key.replace(".", "/")
            return CommandResult(stdout="".join(out), stderr=f"sysctl: cannot stat {path}: "
                                 "No such file or directory\n", status=1)
        if equals:
            try:
                number = int(value)
            except ValueError:
                return _unmodelled("sysctl", argv)
            if key == "net.ipv4.ip_forward":
                model.set_ip_forward(host, number)
            else:
                model.set_sysctl(host, key, number)
            if quiet:
                continue
        shown = _sysctl_value(host, key)
        out.append(f"{shown}\n" if value_only else f"{key} = {shown}\n")
    return CommandResult(stdout="".join(out))


# ---------------------------------------------------------------------------------- iptables

class _NotModelled(Exception):
    pass


@command("iptables")
def iptables(session: Session, argv: list[str]) -> CommandResult:
    """`iptables -t nat -A|-D POSTROUTING -o IF -j MASQUERADE`, `iptables [-t TABLE]
    -A|-I|-D CHAIN RULE` for the rules _canonical_rule() knows (the slow-SSH lab's
    `iptables -A INPUT -p udp --dport 53 -j DROP`), and `iptables [-t TABLE] -S [CHAIN]` for
    every table the model keeps."""
    host = _host(session)
    args = argv[1:]
    table = "filter"
    if args[:1] == ["-t"] and len(args) > 1:
        table, args = args[1], args[2:]
    if table not in model.FIREWALL_CHAINS:
        return _unmodelled("iptables", argv)
    if args[:1] == ["-S"] and len(args) <= 2:
        chains = model.FIREWALL_CHAINS[table]
        if args[1:] and args[1] not in chains:
            return _unmodelled("iptables", argv)
        chains = tuple(args[1:]) or chains
        table_rules = host.firewall.get(table, {})
        lines = [f"-P {chain} ACCEPT\n" for chain in chains]
        lines += [f"-A {chain} {rule}\n" for chain in chains
                  for rule in table_rules.get(chain, [])]
        return CommandResult(stdout="".join(lines))
    if (table, len(args)) == ("nat", 6) and args[0] in ("-A", "-D") and args[1] == "POSTROUTING" \
            and args[2] == "-o" and args[4:] == ["-j", "MASQUERADE"]:
        if args[0] == "-A":
            model.add_masquerade(host, args[3])
            return CommandResult()
        # A rule that is not there makes no table either (iptables-nft 1.8.9, recorded).
        rule = f"-o {args[3]} -j MASQUERADE"
        if rule not in host.firewall.get("nat", {}).get("POSTROUTING", []):
            return CommandResult.fail(IPTABLES_NO_RULE, 1)
        model.firewall_rules(host, "nat", "POSTROUTING").remove(rule)
        return CommandResult()
    if len(args) > 2 and args[0] in ("-A", "-I", "-D") \
            and args[1] in model.FIREWALL_CHAINS[table]:
        # Any other rule is kept and listed; what it does is modelled only where a command
        # reads it (ssh and getent: a DROP of port 53 on a name server's host).
        try:
            rule = _canonical_rule(args[2:])
        except _NotModelled:
            return _unmodelled("iptables", argv)
        if args[0] == "-D" and rule not in host.firewall.get(table, {}).get(args[1], []):
            return CommandResult.fail(IPTABLES_NO_RULE, 1)
        rules = model.firewall_rules(host, table, args[1])
        if args[0] == "-A":
            rules.append(rule)
        elif args[0] == "-I":
            rules.insert(0, rule)
        else:
            rules.remove(rule)
        return CommandResult()
    return _unmodelled("iptables", argv)


IPTABLES_NO_RULE = "iptables: Bad rule (does a matching rule exist in that chain?)."
IPTABLES_VERSION = "v1.8.9 (nf_tables)"


def _canonical_rule(words: list[str]) -> str:
    """A rule as iptables-save prints it, from the options it was given with: the
    addresses (a bare address gets /32) and interfaces, the protocol, the matches in the
    order given, the target last (save_rule_details() in iptables/xshared.c; nft_rule_print_
    save()). Only what wg-quick's rules and the slow-SSH lab use: -d/-s, -i/-o, -p (and
    --sport/--dport after -p udp|tcp), -m addrtype --src-type, -m comment, -m mark --mark,
    -j DROP/ACCEPT/MASQUERADE/CONNMARK --save-mark/--restore-mark.
    """
    fields: dict[str, str] = {}
    matches: list[str] = []
    # -p udp|tcp --sport/--dport load the protocol's match implicitly; iptables-save shows
    # it first, source port before destination port (udp_save() in libxt_udp.c, tcp_save()).
    ports: dict[str, str] = {}
    target = None
    words = list(words)
    negate = ""
    while words:
        word = words.pop(0)
        if word == "!":
            negate = "! "
            continue
        if word in ("-s", "-d", "-i", "-o", "-p") and words:
            value = words.pop(0)
            if word in ("-s", "-d"):
                try:
                    value = str(ipaddress.IPv4Network(value, strict=False))
                except ValueError:
                    raise _NotModelled from None
            fields[word] = f"{negate}{word} {value}"
        elif word == "-m" and words:
            matches.append(_canonical_match(words.pop(0), words))
        elif word in ("--sport", "--dport") and words and not negate \
                and fields.get("-p") in ("-p udp", "-p tcp"):
            ports[word] = words.pop(0)
        elif word == "-j" and words and target is None:
            target = _canonical_target(words.pop(0), words)
        else:
            raise _NotModelled
        negate = ""
    if target is None or negate:
        raise _NotModelled
    parts = [fields[o] for o in ("-s", "-d", "-i", "-o", "-p") if o in fields]
    if ports:
        protocol = fields["-p"].split()[1]
        matches.insert(0, " ".join([f"-m {protocol}", *(f"{o} {ports[o]}" for o in
                                                        ("--sport", "--dport") if o in ports)]))
    return " ".join([*parts, *matches, target])


def _canonical_match(name: str, words: list[str]) -> str:
    """``-m NAME`` and its options, taken from the front of ``words``."""
    negate = ""
    if words[:1] == ["!"] and name == "addrtype":
        negate = "! "
        words.pop(0)
    if name == "addrtype" and words[:1] == ["--src-type"] and len(words) > 1:
        words.pop(0)
        return f"-m addrtype {negate}--src-type {words.pop(0)}"
    if name == "comment" and words[:1] == ["--comment"] and len(words) > 1 and not negate:
        words.pop(0)
        return f'-m comment --comment "{words.pop(0)}"'
    if name == "mark" and words[:1] == ["--mark"] and len(words) > 1 and not negate:
        words.pop(0)
        mark, _, mask = words.pop(0).partition("/")
        try:
            value = int(mark, 0)
            shown_mask = f"/0x{int(mask, 0):x}" if mask and int(mask, 0) != 0xFFFFFFFF else ""
        except ValueError:
            raise _NotModelled from None
        return f"-m mark --mark 0x{value:x}{shown_mask}"
    raise _NotModelled


def _canonical_target(name: str, words: list[str]) -> str:
    if name in ("DROP", "ACCEPT", "MASQUERADE"):
        return f"-j {name}"
    if name == "CONNMARK" and words[:1] in (["--save-mark"], ["--restore-mark"]):
        action = words.pop(0)
        # The masks are printed even when left at their defaults (connmark_tg_save() in
        # libxt_CONNMARK.c); iptables-save's own output gives them, and reads back.
        masks = {"--nfmask": 0xFFFFFFFF, "--ctmask": 0xFFFFFFFF}
        while words[:1] in (["--nfmask"], ["--ctmask"]) and len(words) > 1:
            option = words.pop(0)
            try:
                masks[option] = int(words.pop(0), 0)
            except ValueError:
                raise _NotModelled from None
        return (f"-j CONNMARK {action} --nfmask 0x{masks['--nfmask']:x} "
                f"--ctmask 0x{masks['--ctmask']:x}")
    raise _NotModelled


@command("iptables-restore")
def iptables_restore(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`iptables-restore -n` (--noflush), as wg-quick pipes its rules into it when nft is not
    installed (a network whose firewall_backend is IPTABLES: add_default() and
    remove_firewall() in wg-quick/linux.bash): `*TABLE`, then -A, -I or -D lines, then COMMIT;
    each table's changes are committed at its COMMIT, or none of them if one fails. The rules
    are stored and listed (iptables-save, iptables -S); their effect is not modelled: the
    raw-table DROP keeps other hosts from sending to the tunnel address over the LAN, and the
    mangle CONNMARK rules carry the fwmark to the answers of WireGuard's datagrams for the
    reverse-path filter. Neither changes a lesson's traffic, so they are no-ops here."""
    if argv[1:] not in (["-n"], ["--noflush"]):
        return _unmodelled("iptables-restore", argv)
    host = _host(session)
    table: str | None = None
    staged: dict[str, list[str]] = {}
    for number, line in enumerate((stdin or "").splitlines(), 1):
        words = shlex.split(line, comments=True) if line.strip() else []
        if not words:
            continue
        if words[0].startswith("*") and len(words) == 1 and table is None:
            table = words[0][1:]
            if table not in model.FIREWALL_CHAINS:
                return _unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
            staged = {c: list(r) for c, r in host.firewall.get(table, {}).items()}
            continue
        if words == ["COMMIT"] and table is not None:
            if any(staged.values()) or table in host.firewall:
                model.set_firewall_rules(host, table, staged)
            table = None
            continue
        if table is None or len(words) < 3 or words[0] not in ("-A", "-I", "-D") \
                or words[1] not in model.FIREWALL_CHAINS[table]:
            return _unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
        try:
            rule = _canonical_rule(words[2:])
        except _NotModelled:
            return _unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
        rules = staged.setdefault(words[1], [])
        if words[0] == "-A":
            rules.append(rule)
        elif words[0] == "-I":
            rules.insert(0, rule)
        elif rule in rules:
            rules.remove(rule)
        else:
            return CommandResult.fail(f"iptables-restore: line {number} failed: Bad rule (does "
                                      "a matching rule exist in that chain?).", 1)
    return CommandResult()


@command("iptables-save")
def iptables_save(session: Session, argv: list[str]) -> CommandResult:
    """`iptables-save`: every table that has had a rule, in iptables' order, each chain
    with policy ACCEPT and no counters (nf_tables keeps none for them), dated by the
    session's clock in UTC."""
    if argv[1:]:
        return _unmodelled("iptables-save", argv)
    host = _host(session)
    when = time.asctime(time.gmtime(session.now()))
    out = []
    for table, chains in model.FIREWALL_CHAINS.items():
        if table not in host.firewall:
            continue
        out.append(f"# Generated by iptables-save {IPTABLES_VERSION} on {when}\n*{table}\n")
        out += [f":{chain} ACCEPT [0:0]\n" for chain in chains]
        out += [f"-A {chain} {rule}\n" for chain in chains
                for rule in host.firewall[table].get(chain, [])]
        out.append(f"COMMIT\n# Completed on {when}\n")
    return CommandResult(stdout="".join(out))


@command("ip6tables-save")
def ip6tables_save(session: Session, argv: list[str]) -> CommandResult:
    """`ip6tables-save`: the model has no IPv6 firewall, so nothing, as on a host where
    no ip6tables rule was ever added."""
    if argv[1:]:
        return _unmodelled("ip6tables-save", argv)
    return CommandResult()


# --------------------------------------------------------------------------------------- nft

@command("nft")
def nft(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`nft -f FILE` (a host file, or - for standard input) with the lines wg-quick's
    add_default() and remove_firewall() write; `nft list tables [FAMILY]`; `nft list table
    [FAMILY] NAME` for a table nft made; `nft list ruleset [FAMILY]` while every table it
    would list is one nft made (labsim.net.nftables says what is modelled and why). Without
    nftables on the machine (Network.firewall_backend IPTABLES) bash finds no nft."""
    network = session.network
    assert network is not None
    if not model.nft_installed(network):
        return CommandResult.fail(f"bash: {argv[0]}: command not found", 127)
    host = _host(session)
    args = argv[1:]
    try:
        if len(args) == 2 and args[0] in ("-f", "--file"):
            if args[1] in ("-", "/dev/stdin"):
                text = stdin or ""
            else:
                found = session.host_files.get(session.absolute(args[1]))
                if found is None or found.text is None:
                    return _unmodelled("nft", [*argv, "(a file that is not a script)"])
                text = found.text
            host.nf_tables = nftables.apply(host.nf_tables, nftables.parse_script(text))
            return CommandResult()
        if args[:1] == ["list"] and len(args) in (2, 3, 4):
            return _nft_list(host, args[1], args[2:], argv)
    except nftables.NotModelled as err:
        return _unmodelled("nft", [*argv, f"({err.line})"])
    return _unmodelled("nft", argv)


def _nft_list(host: Host, what: str, rest: list[str], argv: list[str]) -> CommandResult:
    family = rest.pop(0) if rest and rest[0] in nftables.FAMILIES else None
    if rest and rest[0] in ("inet", "arp", "bridge", "netdev"):
        return _unmodelled("nft", argv)
    if what in ("tables", "ruleset") and not rest:
        ruleset = host.nf_tables
        return CommandResult(stdout=nftables.list_tables(ruleset.order, family)
                             if what == "tables" else nftables.list_ruleset(ruleset, family))
    if what == "table" and len(rest) == 1:
        table = host.nf_tables.tables.get((family or "ip", rest[0]))
        if table is not None:
            return CommandResult(stdout=nftables.list_table(table))
        # A table iptables-nft made, or none: nft's listing of the one and its error for
        # the other are not modelled.
    return _unmodelled("nft", argv)
