"""Failures the model reports. The shell layer turns each into the real tool's message."""

from __future__ import annotations


class ZfsError(Exception):
    """Base class: every model failure carries the names needed to word the message."""


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
