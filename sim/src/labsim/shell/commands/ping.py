"""`ping` (iputils-ping 20221126, Debian 12): echo requests through the network model
(labsim.net.delivery), printed as the real tool prints them (labsim.format.ping). Outputs
were recorded from the real tool (tests/unit/test_net_commands.py).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from labsim.format import ping as pingfmt
from labsim.net import delivery, trace
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


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
                return unmodelled("ping", argv)
            else:
                target = word
    except ValueError:
        return unmodelled("ping", argv)
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
    deliveries: list[trace.Delivery] = []
    errors = 0
    for seq in range(1, count + 1):
        session.tick()  # a packet a step of the line's budget (labsim.shell.executor)
        now = start + (seq - 1) * interval
        delivery.settle(network, now)
        trip = delivery.echo(network, session.hostname, address, now)
        delivery.apply(network, trip)
        deliveries.append(trip)
        drop = trip.dropped
        if drop is not None and drop.reason == trace.NO_ROUTE and drop.errno and seq == 1:
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
