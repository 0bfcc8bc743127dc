"""`ss` (iproute2 6.1.0, Debian 12): the lab VM has it; labsim keeps no sockets table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


@command("ss")
def ss(session: Session, argv: list[str]) -> CommandResult:
    """iproute2's ss, which the lab VM has and no lesson uses: every form gets the notice
    (its table's columns are sized from what it lists, misc/ss.c; labsim keeps no sockets
    table to list)."""
    return CommandResult.fail(msg.command_line_not_simulated("ss", argv), 1)
