"""The commands labsim runs, by name.

Each command module (labsim.shell.commands) registers its own names with ``@command("zpool")``
(or ``register("sync", noop)`` for a handler that answers to a name of another's): the names
live next to the code they run. ``labsim.shell.commands`` imports every command module once;
``commands()`` imports that package the first time it is asked, so the executor, the ``type``
builtin and tab completion (labsim.completion) all see the same table, and none of them
lists the commands.

The table is filled while the command modules are imported, and only then: a name
registered twice for two handlers is an error, and after that the table is read (a
read-only view of it) and never changes.

A handler is called as ``handler(session, argv)`` and returns a CommandResult
(labsim.shell.base); one that reads standard input takes it as text (a ``stdin`` keyword)
or as content (``stdin_data``), which ``takes()`` tells the executor.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType
from typing import TypeVar

from labsim.shell.base import CommandResult

Handler = Callable[..., CommandResult]
H = TypeVar("H", bound=Handler)

_TABLE: dict[str, Handler] = {}


def register(name: str, handler: Handler) -> None:
    """Make ``name`` run ``handler``; a name belongs to one handler."""
    held = _TABLE.get(name)
    if held is not None and held is not handler:
        raise ValueError(f"command {name!r} is registered twice: {held.__module__}."
                         f"{held.__qualname__} and {handler.__module__}.{handler.__qualname__}")
    _TABLE[name] = handler


def command(*names: str) -> Callable[[H], H]:
    """A decorator: the function it decorates runs as each of ``names``."""
    if not names:
        raise ValueError("a command needs a name")

    def registered(handler: H) -> H:
        for name in names:
            register(name, handler)
        return handler

    return registered


@cache  # the command modules are imported once, the first time any name is looked up
def commands() -> Mapping[str, Handler]:
    """Every command by name (a read-only view)."""
    import labsim.shell.commands  # noqa: F401  (importing it registers every command)

    return MappingProxyType(_TABLE)


def lookup(name: str) -> Handler | None:
    """The handler of the command ``name``, or None for a name labsim does not run."""
    return commands().get(name)


@cache
def takes(handler: Handler, keyword: str) -> bool:
    """Whether a command takes standard input: as text (a ``stdin`` keyword) or as
    content (``stdin_data``); the others ignore it."""
    return keyword in inspect.signature(handler).parameters
