"""Failures the model reports. The shell layer turns each into the real tool's message."""

from __future__ import annotations


class ZfsError(Exception):
    """Base class: every model failure carries the names needed to word the message."""


class NotSimulated(ZfsError):
    """Something real OpenZFS does that the model does not: the shell says so in its one
    notice (labsim.shell.messages.notices), never as a refusal. ``what`` names it."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class NoSpace(ZfsError):
    """ENOSPC: the pool (after slop space) cannot hold more data."""

    def __init__(self, written: int):
        super().__init__("No space left on device")
        self.written = written


class DeviceTooSmall(ZfsError):
    def __init__(self, path: str):
        super().__init__(path)
        self.path = path


class DeviceInUse(ZfsError):
    def __init__(self, path: str, pool: str):
        super().__init__(path)
        self.path = path
        self.pool = pool
