"""Redirections, as bash applies them (redir.c): left to right over a table of descriptors.

``> f 2>&1`` sends both streams to f; ``2>&1 > f`` sends standard error where standard output
went before (the terminal or the pipe) and standard output to f. Files are checked before the
command runs, as bash opens them first (a missing directory stops the command); what the
command wrote goes into each file once it has finished (labsim.shell.streams.write_to).
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.content import model
from labsim.content.model import Content
from labsim.shell import expand, fs, streams
from labsim.shell.commands.textutils import read_file
from labsim.shell.executor import Executor, Input, Sink
from labsim.shell.syntax import ast


@dataclass(frozen=True)
class _File:
    path: str  # as written (for messages)
    append: bool


# Where a descriptor points: "out" and "err" are the streams of the command around it (the
# terminal, a pipe, an outer redirection), a _File, or None once closed.
Target = str | _File | None


class _Refused(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def run(shell: Executor, command: ast.Redirected, sink: Sink, stdin: Input | None) -> int:
    table: dict[int, Target] = {1: "out", 2: "err"}
    try:
        for redirect in command.redirects:
            stdin = _apply(shell, redirect, table, stdin)
    except _Refused as refused:
        sink.err.append(f"bash: {refused.message}\n")
        return 1
    except expand.ExpansionError as error:
        sink.err.append(error.line)
        return error.status
    inner = Sink()
    status = shell.run(command.command, inner, stdin)
    writes: dict[str, tuple[bool, list[Content]]] = {}
    for fd, data in ((1, inner.content()), (2, _text("".join(inner.err)))):
        target = table.get(fd)
        if target == "out":
            sink.out.append(data)
        elif target == "err":
            sink.err.append(_decoded(data))
        elif isinstance(target, _File):
            writes.setdefault(target.path, (target.append, []))[1].append(data)
    for path, (append, parts) in writes.items():
        written = streams.write_to(shell.session, path, model.concat(*parts), append,
                                   shell.last_command or "bash")
        if written.stderr:
            sink.err.append(written.stderr)
            status = status or written.status
    return status


def _apply(shell: Executor, redirect: ast.Redirect, table: dict[int, Target],
           stdin: Input | None) -> Input | None:
    op = redirect.op
    if op in ("<<", "<<-"):
        body = "".join(p.text for p in redirect.target.parts if isinstance(p, ast.Literal)) \
            if redirect.literal else expand.single(shell, redirect.target)
        return _input_for(redirect, Input(_text(body)), stdin)
    if op == "<<<":
        return _input_for(redirect, Input(_text(expand.single(shell, redirect.target) + "\n")),
                          stdin)
    if op in (">&-", "<&-"):
        table[redirect.fd if redirect.fd is not None else (0 if op == "<&-" else 1)] = None
        return stdin
    words = expand.words(shell, (redirect.target,))
    if len(words) != 1:
        raise _Refused(f"{_written(redirect.target)}: ambiguous redirect")
    target = words[0]
    if op in (">&", "<&") and (target.isdigit() or target == "-"):
        fd = redirect.fd if redirect.fd is not None else (0 if op == "<&" else 1)
        if target == "-":
            table[fd] = None
        elif int(target) in table:
            table[fd] = table[int(target)]
        elif int(target) != 0:
            raise _Refused(f"{target}: Bad file descriptor")
        return stdin
    if op == "<":
        fd = redirect.fd if redirect.fd is not None else 0
        path = shell.session.absolute(target)
        if fs.is_dir(shell.session, path):
            raise _Refused(f"{target}: Is a directory")
        data = read_file(shell.session, target)
        if data is None:
            raise _Refused(f"{target}: No such file or directory")
        return Input(data) if fd == 0 else stdin
    if op in (">", ">>", ">|", "&>", "&>>", ">&"):
        _check_writable(shell, target)
        path = shell.session.absolute(target)
        file: Target = _File(target, op in (">>", "&>>"))
        if path in ("/dev/stdout", "/dev/stderr"):
            file = table.get(1 if path == "/dev/stdout" else 2)
        if op in ("&>", "&>>", ">&"):
            table[1] = table[2] = file
        else:
            table[redirect.fd if redirect.fd is not None else 1] = file
        return stdin
    raise _Refused(f"{op}: this redirection is not simulated")


def _input_for(redirect: ast.Redirect, given: Input, stdin: Input | None) -> Input | None:
    return given if redirect.fd in (None, 0) else stdin


def _check_writable(shell: Executor, target: str) -> None:
    session = shell.session
    path = session.absolute(target)
    if path == "/dev/null" or path in ("/dev/stdout", "/dev/stderr"):
        return
    if fs.is_dir(session, path):
        raise _Refused(f"{target}: Is a directory")
    if not fs.parent_exists(session, path):
        raise _Refused(f"{target}: No such file or directory")


def _text(text: str) -> Content:
    data = text.encode("utf-8", "surrogateescape")
    return model.of_source(model.Literal(data)) if data else Content()


def _decoded(data: Content) -> str:
    size = min(data.size, streams.TERMINAL_LIMIT)
    return model.read(data, 0, size).decode(errors="replace")


def _written(word: ast.Word) -> str:
    return "".join(p.text if isinstance(p, ast.Literal) else "$" + getattr(p, "name", "")
                   for p in word.parts)
