"""GNU coreutils' and grep's text filters over content (labsim.content.model): wc, sort, uniq,
cut, tr, tail and grep, with their output formats (coreutils 9.1, grep 3.8, Debian 12) in the
C.UTF-8 locale the lab VM runs (byte order for sort).

They read their input whole, up to TEXT_LIMIT bytes; beyond it they say so (wc -c, which
only needs the size, and tail -c do not read).
"""

from __future__ import annotations

import getopt
import re
from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content
from labsim.format import coreutils as fmt
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands.textutils import DEVICES, read_file
from labsim.shell.gnu_options import not_simulated_option, option_error
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

# The most bytes a filter reads (a 16 MiB text file is far more than a terminal shows).
TEXT_LIMIT = 16 << 20


def _usage(tool: str, message: str) -> UsageError:
    return UsageError(f"{tool}: {message}\nTry '{tool} --help' for more information.", 1)


class _TooBig(Exception):
    pass


def _options(tool: str, argv: list[str], short: str, long: list[str]
             ) -> tuple[list[tuple[str, str]], list[str]]:
    try:
        return getopt.gnu_getopt(argv[1:], short, long)
    except getopt.GetoptError as err:
        raise option_error(tool, err) from None


def _inputs(session: Session, tool: str, names: list[str], stdin: Content | None
            ) -> tuple[list[tuple[str, Content | None]], list[str]]:
    """Each operand's content (None if it could not be read) and the error lines."""
    out: list[tuple[str, Content | None]] = []
    errors: list[str] = []
    for name in names or ["-"]:
        if name == "-":
            out.append((name, stdin if stdin is not None else Content()))
            continue
        data = read_file(session, name)
        if data is None:
            from labsim.shell import fs

            if fs.is_dir(session, session.absolute(name)):
                errors.append(f"{tool}: {name}: Is a directory\n")
            else:
                errors.append(f"{tool}: {name}: No such file or directory\n")
        out.append((name, data))
    return out, errors


def _bytes(data: Content) -> bytes:
    if data.size > TEXT_LIMIT:
        raise _TooBig
    return model.read(data, 0, data.size)


def _too_big(tool: str) -> CommandResult:
    return CommandResult.fail(msg.tool_not_simulated(
        tool, f"reading more than {TEXT_LIMIT} bytes of text"))


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _joined(lines: list[bytes]) -> Content:
    data = b"".join(line + b"\n" for line in lines)
    return model.of_source(model.Literal(data)) if data else Content()


# ---------------------------------------------------------------- wc


@command("wc")
def wc(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """wc [-clwm] [FILE]...: lines, words, bytes (chars in C.UTF-8 = characters), in wc.c's
    widths: one count of one input alone; otherwise as wide as the regular files' total
    size, at least 7 when an input is not a regular file."""
    opts, names = _options("wc", argv, "clwmL", ["bytes", "lines", "words", "chars",
                                                   "max-line-length"])
    letters = {"-c": "c", "--bytes": "c", "-l": "l", "--lines": "l", "-w": "w", "--words": "w",
               "-m": "m", "--chars": "m", "-L": "L", "--max-line-length": "L"}
    chosen = {letters[k] for k, _ in opts}
    columns = [c for c in "lwmcL" if c in chosen] or ["l", "w", "c"]
    inputs, errors = _inputs(session, "wc", names, stdin_data)
    rows: list[tuple[list[int], str]] = []
    totals = [0] * len(columns)
    regular_total, minimum = 0, 1
    try:
        for name, data in inputs:
            if data is None:
                continue
            counts = _wc_counts(data, columns)
            rows.append((counts, "" if name == "-" and not names else name))
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            if name == "-" or session.absolute(name) in DEVICES:
                minimum = 7
            else:
                regular_total += data.size
    except _TooBig:
        return _too_big("wc")
    width = max(len(str(regular_total)), minimum)
    if len(columns) == 1 and len(inputs) == 1:
        width = 1
    out = []
    for counts, name in rows + ([(totals, "total")] if len(inputs) > 1 else []):
        text = " ".join(str(c).rjust(width) for c in counts)
        out.append(text + (" " + name if name else "") + "\n")
    return CommandResult(stdout="".join(out), stderr="".join(errors), status=1 if errors else 0)


def _wc_counts(data: Content, columns: list[str]) -> list[int]:
    if columns == ["c"]:
        return [data.size]
    raw = _bytes(data)
    text = raw.decode(errors="replace")
    values = {"l": raw.count(b"\n"), "w": len(raw.split()), "c": len(raw),
              "m": len(text), "L": max((len(line) for line in text.split("\n")), default=0)}
    return [values[c] for c in columns]


# ---------------------------------------------------------------- sort and uniq


def _numeric_prefix(line: bytes) -> float:
    found = re.match(rb"\s*(-?[0-9]*\.?[0-9]+|-?[0-9]+)", line)
    return float(found.group(1)) if found else 0.0


_SUFFIX = {b"": 0, b"K": 1, b"k": 1, b"M": 2, b"G": 3, b"T": 4, b"P": 5, b"E": 6, b"Z": 7,
           b"Y": 8}


def _human(line: bytes) -> tuple[int, float]:
    found = re.match(rb"\s*(-?[0-9]*\.?[0-9]+)([KkMGTPEZY]?)", line)
    if not found:
        return (0, 0.0)
    value = float(found.group(1))
    return (_SUFFIX[found.group(2)] if value else 0, value) if value >= 0 \
        else (-_SUFFIX[found.group(2)], value)


@command("sort")
def sort(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """sort [-nhrufb] [-t SEP] [-k F[,F]] [FILE]...: byte order (C.UTF-8), GNU's last-resort
    comparison of whole lines between equal keys (none with -u, which keeps the first)."""
    opts, names = _options("sort", argv, "nhrufbk:t:s", ["numeric-sort", "human-numeric-sort",
                                                         "reverse", "unique", "ignore-case",
                                                         "key=", "field-separator=", "stable"])
    flags = {k for k, _ in opts}
    numeric = bool(flags & {"-n", "--numeric-sort"})
    human = bool(flags & {"-h", "--human-numeric-sort"})
    reverse = bool(flags & {"-r", "--reverse"})
    unique = bool(flags & {"-u", "--unique"})
    fold = bool(flags & {"-f", "--ignore-case"})
    stable = bool(flags & {"-s", "--stable"})
    separator = next((v for k, v in opts if k in ("-t", "--field-separator")), None)
    keys = [v for k, v in opts if k in ("-k", "--key")]
    if separator is not None and len(separator) != 1:
        return CommandResult.fail("sort: multi-character tab '" + separator + "'", 2)
    inputs, errors = _inputs(session, "sort", names, stdin_data)
    if errors:
        return CommandResult(stderr=errors[0].replace("sort: ", "sort: cannot read: ", 1),
                             status=2)
    try:
        lines = [line for _, data in inputs if data is not None for line in _lines(_bytes(data))]
    except _TooBig:
        return _too_big("sort")
    if len(keys) > 1 or any(not re.fullmatch(r"[0-9]+(,[0-9]+)?", k) for k in keys):
        return CommandResult.fail(msg.tool_not_simulated("sort", "this -k form"), 2)

    def key_text(line: bytes) -> bytes:
        if not keys:
            return line
        first, _, last = keys[0].partition(",")
        if separator is not None:
            fields = line.split(separator.encode())
            chosen = fields[int(first) - 1:int(last) if last else None]
            return separator.encode().join(chosen)
        starts = [m.start() for m in re.finditer(rb"(?:^|(?<=\S))\s*\S", line)]
        begin = starts[int(first) - 1] if int(first) - 1 < len(starts) else len(line)
        end = starts[int(last)] if last and int(last) < len(starts) else len(line)
        return line[begin:end]

    def key(line: bytes) -> tuple:
        text = key_text(line)
        if fold:
            text = text.upper()
        main: tuple = (_human(text),) if human else ((_numeric_prefix(text),) if numeric
                                                    else (text,))
        return main if (stable or unique) else (*main, line)

    ordered = sorted(lines, key=key, reverse=reverse)
    if unique:
        kept: list[bytes] = []
        for line in ordered:
            if not kept or key(kept[-1]) != key(line):
                kept.append(line)
        ordered = kept
    return CommandResult(data=_joined(ordered))


@command("uniq")
def uniq(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """uniq [-cdu] [INPUT]: adjacent equal lines once; -c as "%7d %s"."""
    opts, names = _options("uniq", argv, "cdui", ["count", "repeated", "unique",
                                                  "ignore-case"])
    flags = {k for k, _ in opts}
    if len(names) > 1:
        return CommandResult.fail(msg.tool_not_simulated("uniq", "an output file"), 1)
    inputs, errors = _inputs(session, "uniq", names, stdin_data)
    if errors:
        return CommandResult(stderr=errors[0], status=1)
    data = inputs[0][1] or Content()
    try:
        lines = _lines(_bytes(data))
    except _TooBig:
        return _too_big("uniq")
    fold = bool(flags & {"-i", "--ignore-case"})
    groups: list[tuple[bytes, int]] = []
    for line in lines:
        if groups and (groups[-1][0].lower() == line.lower() if fold else groups[-1][0] == line):
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((line, 1))
    if flags & {"-d", "--repeated"}:
        groups = [g for g in groups if g[1] > 1]
    if flags & {"-u", "--unique"}:
        groups = [g for g in groups if g[1] == 1]
    if flags & {"-c", "--count"}:
        return CommandResult(data=_joined([f"{n:7d} ".encode() + line for line, n in groups]))
    return CommandResult(data=_joined([line for line, _ in groups]))


# ---------------------------------------------------------------- cut, tr, tail


def _ranges(spec: str, tool: str) -> list[tuple[int, int]]:
    out = []
    for item in spec.split(","):
        found = re.fullmatch(r"([0-9]*)(-?)([0-9]*)", item)
        if not found or not (found.group(1) or found.group(3)) or item == "-":
            raise _usage(tool, "invalid field range" if item else "fields are numbered from 1")
        first = int(found.group(1)) if found.group(1) else 1
        last = int(found.group(3)) if found.group(3) else (first if not found.group(2)
                                                           else 1 << 62)
        if first == 0:
            raise _usage(tool, "fields and positions are numbered from 1")
        out.append((first, last))
    return out


@command("cut")
def cut(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """cut -f LIST [-d DELIM] [-s] | -c LIST | -b LIST [FILE]..."""
    opts, names = _options("cut", argv, "f:d:c:b:s", ["fields=", "delimiter=", "characters=",
                                                      "bytes=", "only-delimited"])
    values = dict(opts)
    fields = values.get("-f") or values.get("--fields")
    chars = values.get("-c") or values.get("--characters") or values.get("-b") \
        or values.get("--bytes")
    delimiter = values.get("-d", values.get("--delimiter", "\t"))
    only = any(k in ("-s", "--only-delimited") for k, _ in opts)
    if (fields is None) == (chars is None):
        raise _usage("cut", "you must specify a list of bytes, characters, or fields")
    if len(delimiter) != 1:
        raise _usage("cut", "the delimiter must be a single character")
    ranges = _ranges(fields or chars or "", "cut")
    inputs, errors = _inputs(session, "cut", names, stdin_data)
    out: list[bytes] = []
    try:
        for _, data in inputs:
            for line in _lines(_bytes(data)) if data is not None else []:
                if chars is not None:
                    out.append(bytes(b for i, b in enumerate(line, 1)
                                     if any(a <= i <= z for a, z in ranges)))
                    continue
                parts = line.split(delimiter.encode())
                if len(parts) == 1:
                    if not only:
                        out.append(line)
                    continue
                out.append(delimiter.encode().join(
                    p for i, p in enumerate(parts, 1) if any(a <= i <= z for a, z in ranges)))
    except _TooBig:
        return _too_big("cut")
    return CommandResult(data=_joined(out), stderr="".join(errors), status=1 if errors else 0)


_CLASSES = {"[:lower:]": "abcdefghijklmnopqrstuvwxyz", "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "[:digit:]": "0123456789", "[:space:]": " \t\n\r\f\v", "[:blank:]": " \t",
            "[:alpha:]": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "[:alnum:]": "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "[:punct:]": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"}
_TR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
               "v": "\v"}


def _tr_set(spec: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(spec):
        for name, members in _CLASSES.items():
            if spec.startswith(name, i):
                out.append(members)
                i += len(name)
                break
        else:
            char = spec[i]
            if char == "\\" and i + 1 < len(spec):
                char = _TR_ESCAPES.get(spec[i + 1], spec[i + 1])
                i += 1
            if i + 2 < len(spec) and spec[i + 1] == "-":
                last = spec[i + 2]
                if last < char:
                    raise _usage("tr", f"range-endpoints of '{char}-{last}' are in reverse "
                                 "collating sequence order")
                out.append("".join(chr(c) for c in range(ord(char), ord(last) + 1)))
                i += 3
                continue
            out.append(char)
            i += 1
    return "".join(out)


@command("tr")
def tr(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """tr [-ds] SET1 [SET2]: standard input only, as GNU tr."""
    opts, sets = _options("tr", argv, "dsc", ["delete", "squeeze-repeats", "complement"])
    flags = {k for k, _ in opts}
    if flags & {"-c", "--complement"}:
        return CommandResult.fail(msg.tool_not_simulated("tr", "-c"), 1)
    delete = bool(flags & {"-d", "--delete"})
    squeeze = bool(flags & {"-s", "--squeeze-repeats"})
    # coreutils src/tr.c main(): how many strings each combination of -d and -s takes.
    min_operands = 1 + (delete == squeeze)
    max_operands = 1 + (delete <= squeeze)
    if not sets:
        raise _usage("tr", "missing operand")
    if len(sets) < min_operands:
        why = ("both deleting and squeezing repeats" if squeeze else "translating")
        raise _usage("tr", f"missing operand after '{sets[-1]}'\nTwo strings must be given "
                     f"when {why}.")
    if len(sets) > max_operands:
        hint = ("\nOnly one string may be given when deleting without squeezing repeats."
                if len(sets) == 2 else "")
        raise _usage("tr", f"extra operand '{sets[max_operands]}'{hint}")
    first = _tr_set(sets[0])
    second = _tr_set(sets[1]) if len(sets) > 1 else ""
    try:
        text = _bytes(stdin_data or Content()).decode("latin-1")
    except _TooBig:
        return _too_big("tr")
    if delete:
        text = text.translate({ord(c): None for c in first})
        squeeze_set = second
    elif second:
        padded = second + second[-1] * max(0, len(first) - len(second))
        text = text.translate({ord(a): b for a, b in zip(first, padded, strict=False)})
        squeeze_set = second
    else:
        squeeze_set = first
    if squeeze and squeeze_set:
        text = re.sub("([" + re.escape(squeeze_set) + "])\\1+", r"\1", text)
    data = text.encode("latin-1")
    return CommandResult(data=model.of_source(model.Literal(data)) if data else Content())


@command("tail")
def tail(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """tail [-n [+]N | -c [+]N] [FILE]... (default the last 10 lines); headers with several
    files, as GNU tail."""
    args = [("-n" + a[1:] if re.fullmatch(r"-[0-9]+", a) else a) for a in argv]
    opts, names = _options("tail", args, "n:c:qvf", ["lines=", "bytes=", "quiet", "verbose",
                                                     "follow"])
    if any(k in ("-f", "--follow") for k, _ in opts):
        return CommandResult.fail(msg.tool_not_simulated(
            "tail", "-f (the file would never grow here)"), 1)
    lines_arg = next((v for k, v in opts if k in ("-n", "--lines")), None)
    bytes_arg = next((v for k, v in opts if k in ("-c", "--bytes")), None)
    spec = bytes_arg if bytes_arg is not None else (lines_arg if lines_arg is not None else "10")
    from_start = spec.startswith("+")
    try:
        count = int(spec.lstrip("+-"))
    except ValueError:
        kind = "bytes" if bytes_arg is not None else "lines"
        return CommandResult.fail(f"tail: invalid number of {kind}: '{spec}'", 1)
    inputs, errors = _inputs(session, "tail", names, stdin_data)
    parts: list[Content] = []
    headers = len(inputs) > 1
    for index, (name, data) in enumerate(inputs):
        if data is None:
            continue
        if headers:
            shown = "standard input" if name == "-" else name
            parts.append(_joined([("\n" if index else "").encode() + f"==> {shown} <==".encode()]))
        if bytes_arg is not None:
            start = min(data.size, max(0, count - 1)) if from_start \
                else max(0, data.size - count)
            parts.append(model.window(data, start, data.size - start))
            continue
        try:
            lines = _lines(_bytes(data))
            ends_newline = _bytes(data).endswith(b"\n")
        except _TooBig:
            return _too_big("tail")
        chosen = lines[max(0, count - 1):] if from_start else (lines[-count:] if count else [])
        text = b"\n".join(chosen)
        if chosen and (ends_newline or chosen[-1] is not lines[-1]):
            text += b"\n"
        parts.append(model.of_source(model.Literal(text)) if text else Content())
    return CommandResult(data=model.concat(*parts), stderr="".join(errors),
                         status=1 if errors else 0)


# ---------------------------------------------------------------- grep


def _bre(pattern: str) -> str:
    """A POSIX basic regular expression as Python's: \\( \\) \\{ \\} \\| \\+ \\? are the
    operators, ( ) { } | + ? are characters."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            following = pattern[i + 1]
            out.append(following if following in "(){}|+?" else "\\" + following)
            i += 2
            continue
        out.append("\\" + char if char in "(){}|+?" else char)
        i += 1
    return "".join(out)


@command("grep")
def grep(session: Session, argv: list[str], stdin_data: Content | None = None) -> CommandResult:
    """grep [-EFivcnqowxlh] [-e PATTERN] PATTERN [FILE]...: exit 0 with a match, 1 without,
    2 on an error."""
    try:
        opts, args = getopt.gnu_getopt(argv[1:], "EFGivcnqowxlhHe:rs",
                                       ["extended-regexp", "fixed-strings", "ignore-case",
                                        "invert-match", "count", "line-number", "quiet",
                                        "silent", "only-matching", "word-regexp", "line-regexp",
                                        "files-with-matches", "no-filename", "with-filename",
                                        "regexp="])
    except getopt.GetoptError as err:
        unmodelled = not_simulated_option("grep", err)
        if unmodelled is not None:
            raise unmodelled from None
        return CommandResult(stderr=f"grep: {fmt.getopt_message(err)}\nUsage: grep [OPTION]... "
                             "PATTERNS [FILE]...\nTry 'grep --help' for more information.\n",
                             status=2)
    flags = {k for k, _ in opts}
    if flags & {"-r"}:
        return CommandResult.fail(msg.tool_not_simulated("grep", "-r"), 2)
    patterns = [v for k, v in opts if k in ("-e", "--regexp")]
    if not patterns:
        if not args:
            return CommandResult(stderr="Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep "
                                 "--help' for more information.\n", status=2)
        patterns, args = [args[0]], args[1:]
    patterns = [p for pattern in patterns for p in pattern.split("\n")]
    fixed = bool(flags & {"-F", "--fixed-strings"})
    extended = bool(flags & {"-E", "--extended-regexp"})
    sources = [re.escape(p) if fixed else (p if extended else _bre(p)) for p in patterns]
    if flags & {"-w", "--word-regexp"}:
        sources = [rf"(?<!\w)(?:{s})(?!\w)" for s in sources]
    if flags & {"-x", "--line-regexp"}:
        sources = [rf"^(?:{s})$" for s in sources]
    try:
        regex = re.compile("|".join(f"(?:{s})" for s in sources),
                           re.I if flags & {"-i", "--ignore-case"} else 0)
    except re.error:
        return CommandResult.fail(msg.tool_not_simulated("grep", "this pattern"), 2)
    invert = bool(flags & {"-v", "--invert-match"})
    quiet = bool(flags & {"-q", "--quiet", "--silent"})
    silent_errors = "-s" in flags
    inputs, errors = _inputs(session, "grep", args, stdin_data)
    with_name = (len(inputs) > 1 or bool(flags & {"-H", "--with-filename"})) \
        and not flags & {"-h", "--no-filename"}
    out: list[str] = []
    matched_any = False
    try:
        for name, data in inputs:
            if data is None:
                continue
            shown = "(standard input)" if name == "-" else name
            text = _bytes(data).decode(errors="replace")
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            count = 0
            for number, line in enumerate(lines, 1):
                if (regex.search(line) is not None) == invert:
                    continue
                count += 1
                matched_any = True
                if quiet:
                    return CommandResult()
                if flags & {"-c", "--count", "-l", "--files-with-matches"}:
                    continue
                prefix = (f"{shown}:" if with_name else "") + \
                    (f"{number}:" if flags & {"-n", "--line-number"} else "")
                if flags & {"-o", "--only-matching"} and not invert:
                    out.extend(f"{prefix}{m.group()}\n" for m in regex.finditer(line)
                               if m.group())
                else:
                    out.append(f"{prefix}{line}\n")
            if flags & {"-l", "--files-with-matches"}:
                if count:
                    out.append(f"{shown}\n")
            elif flags & {"-c", "--count"}:
                out.append((f"{shown}:" if with_name else "") + f"{count}\n")
    except _TooBig:
        return _too_big("grep")
    status = 2 if errors and not (quiet and matched_any) else (0 if matched_any else 1)
    return CommandResult(stdout="".join(out), stderr="" if silent_errors else "".join(errors),
                         status=status)
