"""bash's own words: an unknown command (bash execute_cmd.c), exit 127."""

from __future__ import annotations

EXIT_COMMAND_NOT_FOUND = 127


def command_not_found(name: str) -> str:
    """bash: "bash: foo: command not found", exit 127 (bash execute_cmd.c)."""
    return f"bash: {name}: command not found"
