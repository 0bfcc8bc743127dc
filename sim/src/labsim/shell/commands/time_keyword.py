"""bash's `time` keyword before a command: how far the command moved the session's clock,
in bash 5.2's default TIMEFORMAT. labsim.shell.compound times a pipeline with the same
figures.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import TYPE_CHECKING

from labsim.shell.base import CommandResult
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


# bash's `time` prints CPU times too; labsim does not model them: small fixed figures.
USER_SECONDS, SYS_SECONDS = 0.003, 0.001


def minutes(seconds: float) -> str:
    """bash's %3lR: minutes, then seconds with three decimals."""
    ms = round(seconds * 1000)
    return f"{ms // 60000}m{ms % 60000 // 1000}.{ms % 1000:03d}s"


@command("time")
def time_keyword(session: Session, argv: list[str]) -> CommandResult:
    """`time COMMAND...`: runs the command, then prints bash 5.2's default TIMEFORMAT
    ("\\nreal\\t%3lR\\nuser\\t%3lU\\nsys\\t%3lS") on stderr. real is how far the command
    moved the session clock. Only the command after `time` is timed, not a pipeline."""
    start = session.clock
    result = session.run(shlex.join(argv[1:])) if argv[1:] else CommandResult()
    user, system = (USER_SECONDS, SYS_SECONDS) if argv[1:] else (0.0, 0.0)
    times = (f"\nreal\t{minutes(session.clock - start)}\nuser\t{minutes(user)}\n"
             f"sys\t{minutes(system)}\n")
    return replace(result, stderr=result.stderr + times)
