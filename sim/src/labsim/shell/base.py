"""What the shell and every command share: a command's result, a usage error, GNU option
parsing as zpool and zfs use it, and the host's own files.

The command modules (labsim.shell.commands) and the shell's lower modules import these from
here; the session (labsim.shell.session) and the executor (labsim.shell.executor) sit above
them and import them too.
"""

from __future__ import annotations

import getopt
from collections.abc import Callable
from dataclasses import dataclass, field

from labsim.content.model import Content
from labsim.zfs.labels import LabelCopy


@dataclass(frozen=True)
class CommandResult:
    stdout: str = ""
    stderr: str = ""
    status: int = 0
    # Standard output as content (labsim.content.model) instead of text, for commands
    # that make a file's worth of bytes (seq, yes, head, cat): labsim.shell.streams.
    data: Content | None = None
    # What a terminal shows, in the order it came: (1, text) from standard output, (2, text)
    # from standard error. A command line's run sets it (labsim.shell.executor), and so does a
    # command that interleaves its streams (ping's sendmsg errors come before its
    # statistics); empty where the order is unknown, and a terminal shows stdout then
    # stderr (interleaved()). The same text as stdout and stderr, so not part of a result's
    # equality.
    output: tuple[tuple[int, str], ...] = field(default=(), compare=False)

    @classmethod
    def fail(cls, message: str, status: int = 1) -> CommandResult:
        return cls(stderr=message if message.endswith("\n") else message + "\n", status=status)


def interleaved(result: CommandResult) -> list[tuple[int, str]]:
    """What ``result`` printed on a terminal, in order: (1, stdout text) and (2, stderr text)
    pieces."""
    if result.output:
        return list(result.output)
    return [(fd, text) for fd, text in ((1, result.stdout), (2, result.stderr)) if text]


class UsageError(Exception):
    """A command line the tool rejects; carries the tool's text and exit status."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.message = message
        self.status = status


def parse_options(args: list[str], optstring: str, *, missing_argument: Callable[[str], str],
                  invalid_option: Callable[[str], str], usage: str):
    """GNU getopt as zpool and zfs use it; a bad option becomes the tool's text + usage (exit 2)."""
    try:
        return getopt.gnu_getopt(args, optstring)
    except getopt.GetoptError as err:
        if err.opt and "requires argument" in err.msg:
            text = missing_argument(err.opt)
        else:
            # getopt() without long options reads "--name" as the option '-' (recorded on
            # 2.1.11: `zpool add --allow-in-use` is "invalid option '-'").
            text = invalid_option(err.opt if len(err.opt) <= 1 else "-")
        raise UsageError(text + "\n" + usage, 2) from None


# The session clock at the start, seconds since the epoch (2026-11-18 11:06:40 UTC).
START_CLOCK = 1_795_000_000.0


@dataclass
class HostFile:
    """A file on the host's own filesystem (the sparse files vdevs are made of).

    ``text`` is the contents of a file whose contents matter (a key or a configuration
    file); None for the others, which hold the zeros of a sparse file (or ``data``). ``labels`` are
    the ZFS label copies written into it, for a file that is (or was) a vdev: they go
    where the file goes (mv), are copied with it (cp), and bytes written over one
    destroy that copy (labsim.zfs.labels).
    """

    size: int
    mtime: float
    text: str | None = None
    labels: tuple[LabelCopy, ...] = ()
    # The file's bytes, when labsim knows them exactly (a redirection wrote them, cp copied
    # them): real bytes for a small file, lazy content (labsim.content.model) for a large
    # one. Readers prefer it to ``text`` (labsim.shell.commands.textutils.read_file).
    data: Content | None = None
    # What the host's file system holds for it (st_blocks * 512), where labsim knows: 0 for
    # a sparse file truncate made, whole blocks for a file labsim wrote whole (a
    # redirection, touch, fallocate, cp of such a file). None where it does not: what dd,
    # fio and qemu-img wrote, and a vdev file ZFS writes into (see host_allocated()).
    allocated: int | None = None


# The block size of the lab VM's host file systems (ext4 for /root and /var/tmp, tmpfs for
# /tmp): a file written whole takes its size rounded up to it.
HOST_BLOCK = 4096


def written_whole(size: int) -> int:
    """The blocks (st_blocks * 512) a file of ``size`` bytes written from start to end takes
    on the host's file system."""
    return -(-size // HOST_BLOCK) * HOST_BLOCK


def host_allocated(host_file: HostFile) -> int | None:
    """What the host's file system holds for ``host_file``, or None where labsim does not
    know it: a file with ZFS labels is a vdev, into which ZFS writes its labels and blocks
    (never punched out again: file vdevs are not trimmed unless asked)."""
    return None if host_file.labels else host_file.allocated


def appended(old: HostFile, new_size: int) -> int | None:
    """What ``old`` holds once bytes are written from its end up to ``new_size``: the
    blocks from the one its end is in (a hole there too, if it was sparse) to the new end."""
    if old.allocated is None:
        return None
    start = old.size // HOST_BLOCK * HOST_BLOCK
    if old.allocated >= written_whole(old.size):  # no hole at the end
        start = written_whole(old.size)
    return old.allocated + max(0, written_whole(new_size) - start)

