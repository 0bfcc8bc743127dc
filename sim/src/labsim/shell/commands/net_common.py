"""What the network commands (ip, ping, curl, sysctl, iptables, nft, ss) share: the
session's host of its ``Network`` (labsim.net), and the message for a form the model does
not run.

Versions as on Debian 12: iproute2 6.1.0, iputils-ping 20221126, curl 7.88.1, procps 4.0.2
(sysctl), iptables 1.8.9 (nf_tables), nftables 1.0.6. Only the forms the WireGuard lessons
and wg-quick use are modelled; any other form gets a message that says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.net.model import Host
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult

if TYPE_CHECKING:
    from labsim.shell.session import Session


def host_of(session: Session) -> Host:
    assert session.network is not None  # Session.__post_init__ always makes one
    return session.network.hosts[session.hostname]


def unmodelled(tool: str, argv: list[str]) -> CommandResult:
    return CommandResult.fail(msg.command_line_not_simulated(tool, argv), 2)
