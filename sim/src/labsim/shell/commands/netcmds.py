"""`ip`, `ping`, `sysctl` and `iptables` on the session's host of its ``Network``
(labsim.net), and `wg` followed by what PersistentKeepalive does at once.

Versions as on Debian 12: iproute2 6.1.0, iputils-ping 20221126, procps 4.0.2 (sysctl),
iptables 1.8.9 (nf_tables). Only the forms the WireGuard lessons use are modelled; any other
form gets a message that says so. Outputs and errors were recorded from the real tools
(tests/unit/test_net_commands.py).
"""

from __future__ import annotations

import ipaddress

from labsim.format import ip as ipfmt
from labsim.format import ping as pingfmt
from labsim.net import delivery, model
from labsim.net.model import Host, NetError
from labsim.shell.commands import wg as wgcmd
from labsim.shell.session import CommandResult, Session


def _host(session: Session) -> Host:
    assert session.network is not None  # Session.__post_init__ always makes one
    return session.network.hosts[session.hostname]


def _unmodelled(tool: str, argv: list[str]) -> CommandResult:
    return CommandResult.fail(f"labsim: {tool}: `{' '.join(argv)}' is not modelled", 2)


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


def ip(session: Session, argv: list[str]) -> CommandResult:
    args = argv[1:]
    brief = False
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option in ("-br", "-brief", "--brief"):
            brief = True
        elif option in ("-4",):
            continue
        else:
            return _unmodelled("ip", argv)
    if not args:
        return _unmodelled("ip", argv)
    host = _host(session)
    obj, rest = args[0], args[1:]
    try:
        if _matches(obj, "address"):
            return _ip_addr(session, host, rest, brief, argv)
        if _matches(obj, "route"):
            return _ip_route(host, rest, argv)
        if _matches(obj, "link"):
            return _ip_link(session, host, rest, argv)
    except NetError as err:
        return CommandResult.fail(err.message, err.status)
    return CommandResult.fail(f'Object "{obj}" is unknown, try "ip help".', 1)


def _dev_arg(rest: list[str]) -> str | None:
    """NAME from ``[dev] NAME`` (the only argument left)."""
    if rest[:1] == ["dev"]:
        rest = rest[1:]
    return rest[0] if len(rest) == 1 else None


def _ip_addr(session: Session, host: Host, rest: list[str], brief: bool,
             argv: list[str]) -> CommandResult:
    if not rest or _matches(rest[0], "show") or _matches(rest[0], "list"):
        rest = rest[1:]
        names = model.link_names(host)
        if rest:
            name = _dev_arg(rest)
            if name is None:
                return _unmodelled("ip", argv)
            if not model.has_link(host, name):
                return CommandResult.fail(f'Device "{name}" does not exist.', 1)
            names = [name]
        shown = ipfmt.brief_addr(host, names) if brief else ipfmt.addr_show(host, names)
        return CommandResult(stdout=shown)
    if rest[0] == "add" and len(rest) == 4 and rest[2] == "dev":
        _check_prefix(rest[1])
        model.add_address(host, rest[3], rest[1])
        return CommandResult()
    return _unmodelled("ip", argv)


def _check_prefix(text: str) -> None:
    """iproute2's get_prefix(): an address with an optional /length, else its error."""
    if text == "default":
        return
    try:
        ipaddress.IPv4Interface(text)
    except ValueError:
        raise NetError(f'Error: any valid prefix is expected rather than "{text}".', 1) from None


def _check_address(text: str) -> None:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        raise NetError(f'Error: inet address is expected rather than "{text}".', 1) from None


def _ip_route(host: Host, rest: list[str], argv: list[str]) -> CommandResult:
    if not rest or (len(rest) == 1 and (_matches(rest[0], "show")
                                        or _matches(rest[0], "list"))):
        return CommandResult(stdout=ipfmt.route_show(host))
    if rest[0] == "add" and len(rest) >= 4 and len(rest) % 2 == 0:
        options = dict(zip(rest[2::2], rest[3::2], strict=True))
        if set(options) - {"dev", "via"}:
            return _unmodelled("ip", argv)
        _check_prefix(rest[1])
        if "via" in options:
            _check_address(options["via"])
        model.add_route(host, rest[1], dev=options.get("dev"), via=options.get("via"))
        return CommandResult()
    if rest[0] in ("del", "delete") and len(rest) == 2:
        _check_prefix(rest[1])
        model.delete_route(host, rest[1])
        return CommandResult()
    return _unmodelled("ip", argv)


def _ip_link(session: Session, host: Host, rest: list[str], argv: list[str]) -> CommandResult:
    if rest[:1] == ["add"]:
        words = rest[1:]
        if words[:1] == ["dev"]:
            words = words[1:]
        if len(words) == 3 and words[1] == "type":
            if words[2] != "wireguard":
                return CommandResult.fail("Error: Unknown device type.", 2)
            model.add_wireguard_link(host, words[0])
            return CommandResult()
    elif rest[:1] in (["set"], ["del"], ["delete"]):
        words = rest[1:]
        if words[:1] == ["dev"]:
            words = words[1:]
        if rest[0] == "set" and len(words) == 2 and words[1] in ("up", "down"):
            model.set_link(host, words[0], words[1] == "up")
            if words[1] == "up":
                delivery.settle(session.network, session.now())
            return CommandResult()
        if rest[0] != "set" and len(words) == 1:
            model.delete_link(host, words[0])
            return CommandResult()
    return _unmodelled("ip", argv)


# -------------------------------------------------------------------------------------- ping

PING_TIMEOUT = 10.0
"""Seconds ping waits for a last reply that does not come (MAXWAIT in ping.h), unless -W."""


def ping(session: Session, argv: list[str]) -> CommandResult:
    """`ping -c N [-W S] [-i S] ADDRESS`: one echo per second through the model."""
    count, timeout, interval, target = None, PING_TIMEOUT, 1.0, None
    args = argv[1:]
    try:
        while args:
            word = args.pop(0)
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
        return CommandResult.fail("labsim: ping: give -c N (without it ping runs until "
                                  "interrupted)", 2)
    return _ping(session, address, count, timeout, interval)


def _ping(session: Session, address: ipaddress.IPv4Address, count: int, timeout: float,
          interval: float) -> CommandResult:
    network, start = session.network, session.now()
    text = str(address)
    trips: list[int] = []
    stderr = []
    stdout = pingfmt.header(text)
    last_ok = False
    deliveries: list[delivery.Delivery] = []
    errors = 0
    for seq in range(1, count + 1):
        now = start + (seq - 1) * interval
        delivery.settle(network, now)
        trip = delivery.echo(network, session.hostname, address, now)
        delivery.apply(network, trip)
        deliveries.append(trip)
        session.last_ping = tuple(deliveries)
        drop = trip.dropped
        if drop is not None and drop.reason == delivery.NO_ROUTE and drop.errno and seq == 1:
            # ping connect()s its socket first: no route ends it before anything is sent.
            return CommandResult.fail(f"ping: connect: {drop.errno}", 2)
        if drop is not None and drop.unreachable_from is not None:
            # receive_error_msg() finds the ICMP error first, then sendmsg's error is shown.
            errors += 1
            stdout += pingfmt.unreachable(str(drop.unreachable_from), seq)
        if drop is not None and drop.errno and not drop.reply:
            stderr.append(f"ping: sendmsg: {drop.errno}\n")
        last_ok = trip.ok
        if trip.ok:
            us = round(trip.rtt_ms * 1000)
            trips.append(us)
            stdout += pingfmt.reply(str(trip.reply_from), seq, trip.reply_ttl, us)
    # finish()'s "time": from the first send to the last event; the model puts the last
    # event 1 ms after the last send whenever there is more than one packet.
    elapsed_ms = 0 if count == 1 else int((count - 1) * interval * 1000) + 1
    stdout += pingfmt.statistics(text, count, trips, elapsed_ms, errors)
    # ping stops as soon as every packet is answered or failed (main_loop() counts errors).
    waited = trips[-1] / 1e6 if last_ok else 0.0 if errors == count else timeout
    session.clock += (count - 1) * interval + waited
    return CommandResult(stdout=stdout, stderr="".join(stderr), status=0 if trips else 1)


# ------------------------------------------------------------------------------------ sysctl

SYSCTL_KEYS = ("net.ipv4.ip_forward",)


def sysctl(session: Session, argv: list[str]) -> CommandResult:
    """`sysctl [-n] KEY`, `sysctl [-w] KEY=VALUE` for net.ipv4.ip_forward."""
    host = _host(session)
    args, value_only = argv[1:], False
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option == "-n":
            value_only = True
        elif option != "-w":
            return _unmodelled("sysctl", argv)
    if not args:
        return _unmodelled("sysctl", argv)
    out = []
    for item in args:
        key, equals, value = item.partition("=")
        key = key.replace("/", ".")
        if key not in SYSCTL_KEYS:
            path = "/proc/sys/" + key.replace(".", "/")
            return CommandResult(stdout="".join(out), stderr=f"sysctl: cannot stat {path}: "
                                 "No such file or directory\n", status=1)
        if equals:
            try:
                model.set_ip_forward(host, int(value))
            except ValueError:
                return _unmodelled("sysctl", argv)
        out.append(f"{host.ip_forward}\n" if value_only
                   else f"{key} = {host.ip_forward}\n")
    return CommandResult(stdout="".join(out))


# ---------------------------------------------------------------------------------- iptables

IPTABLES_POLICIES = ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING")


def iptables(session: Session, argv: list[str]) -> CommandResult:
    """`iptables -t nat -A POSTROUTING -o IF -j MASQUERADE` and `iptables -t nat -S`."""
    host = _host(session)
    args = argv[1:]
    if args == ["-t", "nat", "-S"] or args == ["-t", "nat", "-S", "POSTROUTING"]:
        lines = ([f"-P {chain} ACCEPT\n" for chain in IPTABLES_POLICIES]
                 if len(args) == 3 else ["-P POSTROUTING ACCEPT\n"])
        lines += [f"-A POSTROUTING -o {dev} -j MASQUERADE\n" for dev in host.masquerade]
        return CommandResult(stdout="".join(lines))
    if len(args) == 8 and len(set(args[0::2])) == 4:
        options = dict(zip(args[0::2], args[1::2], strict=True))
        if options.keys() == {"-t", "-A", "-o", "-j"} and (
                options["-t"], options["-A"], options["-j"]) == ("nat", "POSTROUTING",
                                                                "MASQUERADE"):
            model.add_masquerade(host, options["-o"])
            return CommandResult()
    return _unmodelled("iptables", argv)

