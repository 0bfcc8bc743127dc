"""Word expansion as bash does it (bash 5.2, subst.c), in its order: brace expansion, tilde,
parameters, command substitution and arithmetic, then field splitting of what was unquoted,
then pathname expansion (globs) over the session's files (labsim.shell.fs.entries).

The executor (labsim.shell.executor) is the ``Shell`` these functions ask for variables,
command substitutions and arithmetic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.syntax import ast

if TYPE_CHECKING:
    from labsim.shell.session import Session

IFS_WHITESPACE = " \t\n"
# The most words one expansion may make (brace ranges, globs, split command output).
MAX_FIELDS = 100_000


class ExpansionError(Exception):
    """An expansion bash refuses: its message (without "bash: ") and status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.message = message
        self.status = status

    @property
    def line(self) -> str:
        """The line printed: bash's message, or labsim's own where it does not simulate."""
        return (self.message if self.message.startswith("labsim:")
                else "bash: " + self.message) + "\n"


class Shell(Protocol):
    session: Session

    def variable(self, name: str) -> str | None: ...

    def assign(self, name: str, value: str) -> None: ...

    def positional(self) -> list[str]: ...

    def substitute(self, program: ast.Program) -> str: ...

    def evaluate(self, expression: ast.Arithmetic) -> int: ...


@dataclass
class _Field:
    chunks: list[tuple[str, bool]] = field(default_factory=list)  # (text, quoted)
    kept: bool = False  # a quoted empty string keeps an otherwise empty field

    def add(self, text: str, quoted: bool) -> None:
        if text:
            self.chunks.append((text, quoted))
        if quoted:
            self.kept = True

    @property
    def text(self) -> str:
        return "".join(t for t, _ in self.chunks)

    @property
    def present(self) -> bool:
        return self.kept or bool(self.chunks)


def words(shell: Shell, items: tuple[ast.Word, ...]) -> list[str]:
    """The fields a command's words expand to."""
    out: list[str] = []
    for word in items:
        for braced in brace_expand(word):
            for one in _split(shell, braced):
                out.extend(_glob(shell.session, one))
                if len(out) > MAX_FIELDS:
                    raise ExpansionError(msg.notice(f"an expansion to more than {MAX_FIELDS} "
                                                    "words"), 1)
    return out


def single(shell: Shell, word: ast.Word) -> str:
    """A word expanded without field splitting or globbing (assignments, here-documents,
    case words, redirection targets)."""
    return "".join(_value(shell, part, tilde=(i == 0)) for i, part in enumerate(word.parts))


def pattern(shell: Shell, word: ast.Word) -> re.Pattern[str]:
    """A word as a shell pattern (case, ${x#pattern}): unquoted * ? [...] match."""
    chunks = [(_value(shell, part, tilde=(i == 0)), _quoted(part))
              for i, part in enumerate(word.parts)]
    return _compiled(chunks, slash=True)


def _compiled(chunks: list[tuple[str, bool]], slash: bool) -> re.Pattern[str]:
    try:
        return re.compile(_translate(chunks, slash), re.S)
    except re.error:  # a bracket expression Python's re reads otherwise: match it literally
        return re.compile(re.escape("".join(t for t, _ in chunks)), re.S)


def _quoted(part: ast.Part) -> bool:
    return isinstance(part, ast.BraceRange) or bool(getattr(part, "quoted", False))


def _value(shell: Shell, part: ast.Part, tilde: bool = False) -> str:
    if isinstance(part, ast.Literal):
        if tilde and not part.quoted and part.text.startswith("~"):
            return _tilde(shell, part.text)
        return part.text
    if isinstance(part, ast.Parameter):
        return parameter(shell, part)
    if isinstance(part, ast.CommandSubstitution):
        return shell.substitute(part.body).rstrip("\n")
    if isinstance(part, ast.ArithmeticExpansion):
        return str(shell.evaluate(part.expression))
    return "{" + part.first + ".." + part.last + "}"


def _tilde(shell: Shell, text: str) -> str:
    head, slash, rest = text.partition("/")
    if head == "~":
        return (shell.variable("HOME") or "/root") + slash + rest
    if head == "~root":
        return "/root" + slash + rest
    return text


def parameter(shell: Shell, part: ast.Parameter) -> str:
    name, op = part.name, part.operator
    if name in ("@", "*"):
        value: str | None = " ".join(shell.positional())
    else:
        value = shell.variable(name)
    if op == "len":
        return str(len(value or ""))
    if op == "" or op is None:
        return value or ""
    argument = part.argument or ast.Word(())
    unset_or_null = value is None or (op.startswith(":") and value == "")
    if op in ("-", ":-"):
        return single(shell, argument) if unset_or_null else value or ""
    if op in ("=", ":="):
        if unset_or_null:
            value = single(shell, argument)
            shell.assign(name, value)
        return value or ""
    if op in ("+", ":+"):
        return "" if unset_or_null else single(shell, argument)
    if op in ("?", ":?"):
        if unset_or_null:
            message = single(shell, argument) or ("parameter null or not set" if op == ":?"
                                                 else "parameter not set")
            raise ExpansionError(f"{name}: {message}", 1)
        return value or ""
    value = value or ""
    regex = pattern(shell, argument)
    if op in ("#", "##"):
        ends = range(len(value) + 1) if op == "#" else range(len(value), -1, -1)
        for end in ends:
            if regex.fullmatch(value[:end]):
                return value[end:]
        return value
    starts = range(len(value), -1, -1) if op == "%" else range(len(value) + 1)
    for start in starts:
        if regex.fullmatch(value[start:]):
            return value[:start]
    return value


# ---------------------------------------------------------------- brace expansion

_BRACE_LIST = re.compile(r"\{([^{}]*,[^{}]*)\}")
_BRACE_SEQUENCE = re.compile(r"\{(-?[0-9]+|[A-Za-z])\.\.(-?[0-9]+|[A-Za-z])\}")


def brace_expand(word: ast.Word) -> list[ast.Word]:
    """``{1..3}`` (a BraceRange) and ``{a,b}`` written unquoted."""
    word = _merged(word)
    for index, part in enumerate(word.parts):
        if isinstance(part, ast.BraceRange):
            items = _range(part)
            if items is None:
                continue
            return [w for item in items for w in brace_expand(ast.Word(
                (*word.parts[:index], ast.Literal(item, True), *word.parts[index + 1:])))]
        if isinstance(part, ast.Literal) and not part.quoted:
            sequence = _BRACE_SEQUENCE.search(part.text)
            if sequence is not None:
                items = _range(ast.BraceRange(sequence.group(1), sequence.group(2)))
                if items is not None:
                    before, after = part.text[:sequence.start()], part.text[sequence.end():]
                    return [w for item in items for w in brace_expand(ast.Word((
                        *word.parts[:index], ast.Literal(before + item + after),
                        *word.parts[index + 1:])))]
            found = _BRACE_LIST.search(part.text)
            if found is None:
                continue
            before, after = part.text[:found.start()], part.text[found.end():]
            return [w for choice in found.group(1).split(",") for w in brace_expand(ast.Word((
                *word.parts[:index], ast.Literal(before + choice + after),
                *word.parts[index + 1:])))]
    return [word]


def _merged(word: ast.Word) -> ast.Word:
    """Neighbouring unquoted literals as one (tree-sitter-bash cuts ``a{b,c}`` in four)."""
    parts: list[ast.Part] = []
    for part in word.parts:
        if isinstance(part, ast.Literal) and not part.quoted and parts \
                and isinstance(parts[-1], ast.Literal) and not parts[-1].quoted:
            parts[-1] = ast.Literal(parts[-1].text + part.text)
        else:
            parts.append(part)
    return ast.Word(tuple(parts))


def _range(part: ast.BraceRange) -> list[str] | None:
    try:
        first, last = int(part.first), int(part.last)
    except ValueError:
        if len(part.first) == 1 and len(part.last) == 1:
            step = 1 if part.last >= part.first else -1
            return [chr(c) for c in range(ord(part.first), ord(part.last) + step, step)]
        return None
    if abs(last - first) >= MAX_FIELDS:
        raise ExpansionError(msg.notice(f"a brace expansion to more than {MAX_FIELDS} words"),
                             1)
    step = 1 if last >= first else -1
    width = max(len(part.first), len(part.last)) \
        if part.first.lstrip("-").startswith("0") or part.last.lstrip("-").startswith("0") else 0
    return [str(n).zfill(width) for n in range(first, last + step, step)]


# ---------------------------------------------------------------- field splitting


def _split(shell: Shell, word: ast.Word) -> list[_Field]:
    fields: list[_Field] = []
    current = _Field()
    for index, part in enumerate(word.parts):
        if isinstance(part, (ast.Literal, ast.BraceRange)):
            current.add(_value(shell, part, tilde=(index == 0)), _quoted(part))
            continue
        if isinstance(part, ast.Parameter) and part.name == "@" and part.quoted \
                and not part.operator:
            values = shell.positional()
            for n, value in enumerate(values):
                if n:
                    fields.append(current)
                    current = _Field()
                current.add(value, True)
            continue
        value = _value(shell, part)
        if part.quoted:
            current.add(value, True)
            continue
        pieces = re.split(f"[{IFS_WHITESPACE}]+", value)
        for n, piece in enumerate(pieces):
            if n:
                if current.present:
                    fields.append(current)
                current = _Field()
            current.add(piece, False)
    if current.present:
        fields.append(current)
    return fields


# ---------------------------------------------------------------- pathname expansion


def _has_glob(chunks: list[tuple[str, bool]]) -> bool:
    return any(not quoted and any(c in text for c in "*?[") for text, quoted in chunks)


def _glob(session: Session, one: _Field) -> list[str]:
    if not _has_glob(one.chunks):
        return [one.text]
    # split the pattern into path components, keeping which characters were quoted
    components: list[list[tuple[str, bool]]] = [[]]
    for text, quoted in one.chunks:
        for n, piece in enumerate(text.split("/")):
            if n:
                components.append([])
            if piece:
                components[-1].append((piece, quoted))
    absolute = one.text.startswith("/")
    bases = ["/" if absolute else ""]
    for n, component in enumerate(components):
        if n == 0 and absolute and not component:
            continue
        if not component:
            bases = [b + "/" if b and not b.endswith("/") else b for b in bases]
            continue
        literal = "".join(t for t, _ in component)
        next_bases: list[str] = []
        for base in bases:
            joined = (base.rstrip("/") + "/" if base.rstrip("/") else base) if base else ""
            if not _has_glob(component):
                next_bases.append(joined + literal)
                continue
            directory = session.absolute(base or ".")
            regex = _compiled(component, slash=False)
            hidden = literal.startswith(".")
            for name in fs.entries(session, directory):
                if (hidden or not name.startswith(".")) and regex.fullmatch(name):
                    next_bases.append(joined + name)
        bases = next_bases
        if not bases:
            break
    matches = sorted(b for b in bases if fs.exists(session, session.absolute(b)))
    return matches or [one.text]


def _translate(chunks: list[tuple[str, bool]], slash: bool) -> str:
    """A glob (its characters and whether each was quoted) as a regular expression."""
    items = [(c, quoted) for text, quoted in chunks for c in text]
    out: list[str] = []
    any_char = "." if slash else "[^/]"
    i = 0
    while i < len(items):
        char, quoted = items[i]
        if quoted:
            out.append(re.escape(char))
        elif char == "*":
            out.append(any_char + "*")
        elif char == "?":
            out.append(any_char)
        elif char == "[":
            end = i + 1
            if end < len(items) and items[end][0] in "!^":
                end += 1
            if end < len(items) and items[end][0] == "]":
                end += 1
            while end < len(items) and items[end][0] != "]":
                end += 1
            if end >= len(items):
                out.append(re.escape(char))
            else:
                body = "".join(c for c, _ in items[i + 1:end])
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\").replace("[:alpha:]", "a-zA-Z") \
                    .replace("[:digit:]", "0-9").replace("[:alnum:]", "a-zA-Z0-9") \
                    .replace("[:space:]", " \\t\\n").replace("[:upper:]", "A-Z") \
                    .replace("[:lower:]", "a-z")
                out.append("[" + ("^" if negate else "") + body + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)

