"""`curl` (7.88.1, Debian 12): one HTTP GET through the network model
(labsim.net.delivery.http_get). Outputs and exit statuses were recorded from the real tool
(tests/unit/test_net_http.py).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from labsim.net import delivery, trace
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


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
                return unmodelled("curl", argv)
        elif word in ("-s", "--silent"):
            silent = True
        elif word in ("-S", "--show-error"):
            show_error = True
        elif word in ("-sS", "-Ss"):
            silent = show_error = True
        elif not word.startswith("-") and url is None:
            url = word
        else:
            return unmodelled("curl", argv)
    if not silent or url is None or not url.startswith("http://"):
        return unmodelled("curl", argv)
    authority = url[len("http://"):].partition("/")[0]
    name, colon, port_text = authority.partition(":")
    port = int(port_text) if colon and port_text.isdigit() and 0 < int(port_text) < 65536 \
        else None if colon else 80
    if port is None or not name:
        return unmodelled("curl", argv)

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
    if drop is None or (drop.reason in trace.WHAT_ENDS_CURL and drop.errno):
        # curl's Curl_timediff(): whole milliseconds, rounded down.
        elapsed_ms = int(trip.rtt_ms or 0)
        session.clock += (trip.rtt_ms or 0) / 1000
        if drop is None and not trip.refused:
            assert trip.server is not None and trip.seen_source is not None
            return CommandResult(stdout=trace.http_body(trip.server, trip.seen_source))
        return failed(7, f"Failed to connect to {address} port {port} after {elapsed_ms} ms: "
                         "Couldn't connect to server")
    if max_time is None:
        return CommandResult.fail(msg.tool_not_simulated(
            "curl", "waiting minutes for the kernel to give up on a silent server")
            + "; give --max-time N", 2)
    session.clock += max_time
    return failed(28, f"Connection timed out after {round(max_time * 1000)} milliseconds")
