"""Work done a short step at a time, so that a caller can let other work in between.

The page's worker runs one Python, which answers the terminals and the widgets of the page.
A scenario's one-off work (the copies widget fills three pools: thousands of commands,
seconds in Pyodide) is written as a generator that yields after each short step; the
worker advances it between the page's calls (labsim.web.Steps), so that a command typed
in a terminal waits for one step, not for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

Stepwise = Generator[None, None, T]
"""Work that yields after each short step and returns its result."""


@dataclass
class Resumable(Generic[T]):
    """One piece of stepwise work that is advanced a step at a time (step) by one caller
    and finished at once (result) by another, whichever comes first: no step is done
    twice. Work that raised starts over on the next call."""

    start: Callable[[], Stepwise[T]]
    _work: Stepwise[T] | None = field(default=None, init=False, repr=False)
    _done: bool = field(default=False, init=False)
    _value: T | None = field(default=None, init=False, repr=False)

    def step(self) -> bool:
        """Do one step; False once the work is done (then no step is left to do)."""
        if self._done:
            return False
        if self._work is None:
            self._work = self.start()
        try:
            next(self._work)
        except StopIteration as done:
            self._done, self._value, self._work = True, done.value, None
            return False
        except BaseException:
            self._work = None  # a generator that raised is closed: start over next time
            raise
        return True

    def result(self) -> T:
        """The work's result, doing at once the steps that are left."""
        while self.step():
            pass
        return self._value  # type: ignore[return-value]  # set once done
