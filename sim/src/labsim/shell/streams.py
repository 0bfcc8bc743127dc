"""What a command writes to its standard output, when that is a file's worth of bytes:
``seq 1 10000000 > f``, ``yes abc | head -c 10M > f``, ``cat a > b``.

Such commands return their output as content (labsim.content.model) in
CommandResult.data rather than as text, so that 78 MB of seq output or yes's endless
stream travel through a pipe or into a file without being made. Bash's ``> FILE`` and
``>> FILE`` after the last command of a line write it (into a dataset through
write_path.write_file, where each record is compressed); on a terminal it is printed, up to
TERMINAL_LIMIT bytes."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content
from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, appended, written_whole
from labsim.shell.zil_writes import log_program_writes
from labsim.zfs.errors import NoSpace
from labsim.zfs.overwrite import can_overwrite_in_place, overwrite_range
from labsim.zfs.pool import file_content
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

# A stream with no end (yes, /dev/zero read whole): as many bytes as no pool can hold.
ENDLESS = 1 << 62
# The most output labsim prints to a terminal; beyond it, it says so.
TERMINAL_LIMIT = 1 << 20
# Host files keep their text (for cat) up to this size.
HOST_TEXT_LIMIT = 1 << 20


def text_content(text: str) -> Content:
    data = text.encode()
    return model.of_source(model.Literal(data)) if data else Content()


def output_of(result: CommandResult) -> Content:
    """A command's standard output as content: its data, or its text."""
    return result.data if result.data is not None else text_content(result.stdout)


def to_terminal(result: CommandResult, command: str) -> CommandResult:
    """A result whose output goes to the terminal: its content printed as text."""
    if result.data is None:
        return result
    data = result.data
    if data.size > TERMINAL_LIMIT:
        note = (msg.tool_not_simulated(command, f"printing {data.size} bytes to the terminal")
                + "; or redirect it to a file or pipe it into head\n")
        return CommandResult(stdout="", stderr=result.stderr + note, status=result.status)
    text = model.read(data, 0, data.size).decode(errors="replace")
    return CommandResult(stdout=text, stderr=result.stderr, status=result.status)


def seed_for(session: Session, path: str) -> int:
    """A seed for random bytes written to ``path`` now: the same script gives the same
    bytes, two writes different ones."""
    return zlib.crc32(f"{path}@{session.clock!r}".encode())


def write_to(session: Session, target: str, data: Content, append: bool,
             command: str) -> CommandResult:
    """Bash's ``> target`` (``>> target`` with ``append``): the file gets ``data``."""
    path = session.absolute(target)
    if path == "/dev/null":
        return CommandResult()
    if fs.is_dir(session, path):
        return CommandResult.fail(f"bash: {target}: Is a directory")
    if not fs.parent_exists(session, path):
        return CommandResult.fail(f"bash: {target}: No such file or directory")
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name:
        old = hit.dataset.files.get(hit.name)
        start = 0
        if append and old is not None:
            start = old.size
            data = model.concat(file_content(old), data)
        try:
            if start and can_overwrite_in_place(old, data.size):
                # O_APPEND: only the last record and the new ones are written
                # (labsim.zfs.overwrite).
                overwrite_range(hit.pool, hit.dataset, hit.name, start, data.size - start,
                                data)
            else:
                write_file(hit.pool, hit.dataset, hit.name, data.size, data)
        except NoSpace:
            hit.dataset.files[hit.name].mtime = session.clock
            return CommandResult.fail(f"{command}: write error: No space left on device")
        hit.dataset.files[hit.name].mtime = session.clock
        log_program_writes(session, hit.pool, hit.dataset, hit.name, data.size - start,
                           command, data)
        return CommandResult()
    old_host = session.host_files.get(path)
    allocated: int | None = written_whole(data.size)
    if append and old_host is not None:
        previous = host_content(old_host)
        data = model.concat(previous, data)
        allocated = appended(old_host, data.size)
    if data.size > ENDLESS // 2:
        return CommandResult.fail(f"{command}: write error: No space left on device")
    text = None
    if data.size <= HOST_TEXT_LIMIT:
        text = model.read(data, 0, data.size).decode(errors="replace")
    session.host_files[path] = HostFile(data.size, session.clock, text, data=data,
                                        allocated=allocated)
    return CommandResult()


def host_content(host: HostFile) -> Content:
    """A host file's bytes: its content, else its text, else the zeros of a sparse file."""
    if host.data is not None:
        return host.data
    return text_content(host.text) if host.text is not None else model.zeros(host.size)
