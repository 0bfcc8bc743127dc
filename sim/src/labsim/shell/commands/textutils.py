"""seq, yes and head (GNU coreutils 9), the commands that make the files whose compression
a lesson compares (printf is bash's builtin: labsim.shell.printf). Their output is content
(labsim.shell.streams), so that ``seq 1 10000000 > f`` and ``yes | head -c 1G > f`` cost
what their records cost to compress, not what their bytes cost to hold. Options the lessons
do not use are said to be not simulated rather than refused."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content, Repeat
from labsim.content.seq import SeqText
from labsim.shell import fs, streams
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.gnu_options import unmodelled_option
from labsim.shell.registry import command
from labsim.shell.streams import ENDLESS
from labsim.shell.units import parse_coreutils_size
from labsim.zfs.pool import file_content

if TYPE_CHECKING:
    from labsim.shell.session import Session

# head -n on content other than yes and seq output reads it this far at most.
HEAD_LINES_SCAN_LIMIT = 256 << 20
_INTEGER = re.compile(r"^[+-]?\d+$")


def _usage(tool: str, message: str) -> UsageError:
    return UsageError(f"{tool}: {message}\nTry '{tool} --help' for more information.", 1)


def not_simulated(tool: str, what: str) -> CommandResult:
    return CommandResult.fail(msg.notice(f"{tool} {what}"))


# seq -f's one conversion: %g prints an integer as is up to 6 significant digits
# (coreutils' seq formats a long double with it; 1000000 is "1e+06").
_G_LIMIT = 10 ** 6


@command("seq")
def seq(session: Session, argv: list[str]) -> CommandResult:
    """seq [-f FORMAT] [FIRST [INCREMENT]] LAST with integers: one number a line, or
    FORMAT's text around it (a single %g)."""
    args = argv[1:]
    template = None
    if args and (args[0] == "-f" or args[0].startswith(("-f", "--format="))):
        if args[0] in ("-f", "--format"):
            if len(args) < 2:
                raise _usage("seq", "option requires an argument -- 'f'")
            template, args = args[1], args[2:]
        else:
            template = args[0][2:] if args[0].startswith("-f") else args[0][9:]
            args = args[1:]
    options = [a for a in args if a.startswith("-") and not _INTEGER.match(a)]
    if options:
        raise unmodelled_option("seq", options[0])
    prefix = suffix = ""
    if template is not None:
        parts = template.replace("%%", "\0").split("%g")
        if len(parts) != 2 or "%" in "".join(parts):
            return not_simulated("seq", f"-f '{template}' (only one %g is)")
        prefix, suffix = (part.replace("\0", "%") for part in parts)
    if not args:
        raise _usage("seq", "missing operand")
    if len(args) > 3:
        raise _usage("seq", f"extra operand '{args[3]}'")
    for arg in args:
        if not _INTEGER.match(arg):
            try:
                float(arg)
            except ValueError:
                raise _usage("seq", f"invalid floating point argument: '{arg}'") from None
            return not_simulated("seq", f"with the non-integer operand '{arg}'")
    numbers = [int(a) for a in args]
    if len(numbers) == 1:
        first, step, last = 1, 1, numbers[0]
    elif len(numbers) == 2:
        first, step, last = numbers[0], 1, numbers[1]
    else:
        first, step, last = numbers
    if step == 0:
        raise _usage("seq", f"invalid Zero increment value: '{args[1]}'")
    if template is not None and max(abs(first), abs(last)) >= _G_LIMIT:
        return not_simulated("seq", "-f %g for numbers of 7 digits or more (1e+06)")
    text = SeqText(first, step, last, prefix, suffix)
    return CommandResult(data=model.of_source(text) if text.count else Content())


@command("yes")
def yes(session: Session, argv: list[str]) -> CommandResult:
    """yes [STRING]...: the words and a newline, forever (ENDLESS bytes)."""
    # parse_gnu_standard_options_only(): --help, --version (or a prefix of one) and "--"
    # are options, any other word starting with "-" an invalid one; the rest is printed.
    words = argv[1:]
    if words and words[0].startswith("-") and words[0] != "-":
        if words[0] == "--":
            words = words[1:]
        else:
            raise unmodelled_option("yes", words[0])
    unit = (" ".join(words) if words else "y") + "\n"
    return CommandResult(data=model.of_source(Repeat(unit.encode()), ENDLESS))


def _input(session: Session, tool: str, names: list[str],
           stdin_data: Content | None) -> tuple[Content, str]:
    """What a filter reads: its files one after the other, or standard input."""
    parts, errors = [], []
    for name in names or ["-"]:
        if name == "-":
            parts.append(stdin_data if stdin_data is not None else Content())
            continue
        data = read_file(session, name)
        if data is None:
            errors.append(f"{tool}: {name}: No such file or directory\n")
        else:
            parts.append(data)
    return model.concat(*parts), "".join(errors)


def _random_device(session: Session, path: str) -> Content:
    """/dev/urandom: each read new bytes (seeded by the read's number, so a script repeats)."""
    session.device_reads += 1
    seed = streams.seed_for(session, f"{path}#{session.device_reads}")
    return model.of_source(model.RandomBytes(seed), ENDLESS)


# The character devices a shell reads: endless zeros, endless random bytes, nothing.
DEVICES = {
    "/dev/zero": lambda session, path: model.zeros(ENDLESS),
    "/dev/urandom": _random_device,
    "/dev/random": _random_device,
    "/dev/null": lambda session, path: Content(),
}


def read_file(session: Session, name: str) -> Content | None:
    """A file's bytes: a dataset's file, or a host file (its text, or the zeros of a
    sparse file). None if there is no such file."""
    path = session.absolute(name)
    if path in DEVICES:
        return DEVICES[path](session, path)
    host = session.host_files.get(path)
    if host is not None:
        return streams.host_content(host)
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name in hit.dataset.files:
        return file_content(hit.dataset.files[hit.name])
    return None


@command("head")
def head(session: Session, argv: list[str], stdin_data: Content | None = None
         ) -> CommandResult:
    """head -c N or head -n N (default -n 10) of files or standard input."""
    args = argv[1:]
    mode, count, names = "n", 10, []
    i = 0
    while i < len(args):
        arg = args[i]
        match = re.match(r"^-([cn])(.*)$", arg) or re.match(r"^--(bytes|lines)=(.*)$", arg)
        if match:
            mode = "c" if match.group(1) in ("c", "bytes") else "n"
            value = match.group(2)
            if not value:
                i += 1
                if i >= len(args):
                    raise _usage("head", f"option requires an argument -- '{mode}'")
                value = args[i]
            if value.startswith("-"):
                return not_simulated("head", f"-{mode} with a negative count")
            parsed = parse_coreutils_size(value)
            if parsed is None:
                kind = "bytes" if mode == "c" else "lines"
                return CommandResult.fail(f"head: invalid number of {kind}: '{value}'")
            count = parsed
        elif re.match(r"^-\d+$", arg):
            mode, count = "n", int(arg[1:])
        elif arg.startswith("-") and arg != "-":
            raise unmodelled_option("head", arg)
        else:
            names.append(arg)
        i += 1
    if len(names) > 1:
        return not_simulated("head", "with several files (its ==> headers <==)")
    data, errors = _input(session, "head", names, stdin_data)
    length = min(count, data.size) if mode == "c" else _line_bytes(data, count)
    if length is None:
        return not_simulated("head", f"-n {count} of this much data")
    return CommandResult(data=model.window(data, 0, length), stderr=errors,
                         status=1 if errors else 0)


def _line_bytes(data: Content, lines: int) -> int | None:
    """The bytes of the first ``lines`` lines."""
    if lines == 0:
        return 0
    if len(data.pieces) == 1 and isinstance(data.pieces[0].source, Repeat):
        unit = data.pieces[0].source.unit
        if unit.count(b"\n") == 1 and unit.endswith(b"\n") and data.pieces[0].start == 0:
            return min(data.size, lines * len(unit))
    seen, pos = 0, 0
    step = 1 << 20
    while pos < min(data.size, HEAD_LINES_SCAN_LIMIT):
        chunk = model.read(data, pos, step)
        here = chunk.count(b"\n")
        if seen + here >= lines:
            cut = -1
            for _ in range(lines - seen):
                cut = chunk.index(b"\n", cut + 1)
            return pos + cut + 1
        seen += here
        pos += len(chunk)
    return data.size if pos >= data.size else None

