"""The shell's abstract syntax: the few shapes the executor (labsim.shell.executor) walks.

Made from tree-sitter-bash's concrete tree by labsim.shell.syntax.convert. Words keep which of
their parts were quoted, since that decides field splitting and globbing; a construct labsim
does not run is an ``Unsupported`` node naming it, so the executor can say so.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------- words


@dataclass(frozen=True)
class Literal:
    text: str
    quoted: bool = False  # quoted or escaped: no field splitting, no globbing, no tilde


@dataclass(frozen=True)
class Parameter:
    """``$name``, ``${name}``, ``${#name}``, ``${name:-word}`` and the other operators."""

    name: str
    quoted: bool = False
    # "", "-", ":-", "=", ":=", "+", ":+", "?", ":?", "#", "##", "%", "%%", or "len" (${#name})
    operator: str = ""
    argument: Word | None = None


@dataclass(frozen=True)
class CommandSubstitution:
    body: Program
    quoted: bool = False


@dataclass(frozen=True)
class ArithmeticExpansion:
    expression: Arithmetic
    quoted: bool = False


@dataclass(frozen=True)
class BraceRange:
    """``{1..3}``, ``{a..e}``: expanded to one word per element."""

    first: str
    last: str


Part = Literal | Parameter | CommandSubstitution | ArithmeticExpansion | BraceRange


@dataclass(frozen=True)
class Word:
    parts: tuple[Part, ...]


# ---------------------------------------------------------------- arithmetic


@dataclass(frozen=True)
class Number:
    text: str


@dataclass(frozen=True)
class Variable:
    name: str


@dataclass(frozen=True)
class Unary:
    operator: str  # "-", "+", "!", "~", "++x", "--x", "x++", "x--"
    operand: Arithmetic


@dataclass(frozen=True)
class Binary:
    operator: str  # also "=", "+=", ...: assignments, whose left side is a Variable
    left: Arithmetic
    right: Arithmetic


@dataclass(frozen=True)
class Conditional:
    condition: Arithmetic
    then: Arithmetic
    otherwise: Arithmetic


@dataclass(frozen=True)
class Expanded:
    """A ``$x`` or ``$(...)`` inside an arithmetic expression: its text, evaluated."""

    word: Word


Arithmetic = Number | Variable | Unary | Binary | Conditional | Expanded

# ---------------------------------------------------------------- commands


@dataclass(frozen=True)
class Assignment:
    name: str
    value: Word
    append: bool = False


@dataclass(frozen=True)
class Redirect:
    """``[fd]op target``: op is one of > >> >| < <> >& <& &> &>> << <<- <<<. For a here-document
    ``target`` is its body (to expand unless ``literal``), for ``>&`` a descriptor number."""

    op: str
    target: Word
    fd: int | None = None
    literal: bool = False  # a here-document whose delimiter was quoted


@dataclass(frozen=True)
class Simple:
    assignments: tuple[Assignment, ...]
    words: tuple[Word, ...]


@dataclass(frozen=True)
class Redirected:
    command: Command
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[Command, ...]
    negated: bool = False


@dataclass(frozen=True)
class AndOr:
    """``first && second || third``: (operator, command) pairs after the first."""

    first: Command
    rest: tuple[tuple[str, Command], ...]


@dataclass(frozen=True)
class Program:
    commands: tuple[Command, ...]


@dataclass(frozen=True)
class Group:
    body: Program
    subshell: bool  # ( ... ) rather than { ...; }


@dataclass(frozen=True)
class For:
    variable: str
    words: tuple[Word, ...] | None  # None: no "in" (the positional parameters)
    body: Program


@dataclass(frozen=True)
class ArithmeticFor:
    """``for ((init; condition; update))``."""

    init: Arithmetic | None
    condition: Arithmetic | None
    update: Arithmetic | None
    body: Program


@dataclass(frozen=True)
class While:
    condition: Program
    body: Program
    until: bool = False


@dataclass(frozen=True)
class If:
    branches: tuple[tuple[Program, Program], ...]
    otherwise: Program | None


@dataclass(frozen=True)
class Case:
    word: Word
    items: tuple[tuple[tuple[Word, ...], Program], ...]


@dataclass(frozen=True)
class FunctionDefinition:
    name: str
    body: Command


@dataclass(frozen=True)
class ArithmeticCommand:
    """``(( expression ))``: status 0 when the value is not zero."""

    expression: Arithmetic


@dataclass(frozen=True)
class TestCommand:
    """``[[ ... ]]`` (its words, run as test would) or ``[ ... ]`` written as a test_command."""

    words: tuple[Word, ...]
    double: bool


@dataclass(frozen=True)
class Timed:
    """``time COMMAND``: the command, then bash's TIMEFORMAT report on standard error."""

    command: Command


@dataclass(frozen=True)
class Unsupported:
    """A construct the executor does not run (named for the message)."""

    what: str


Command = (Simple | Redirected | Pipeline | AndOr | Program | Group | For | ArithmeticFor | While
           | If | Case | FunctionDefinition | ArithmeticCommand | TestCommand | Timed
           | Unsupported)


@dataclass(frozen=True)
class SyntaxError_:
    """A line bash would refuse: the message bash prints (without "bash: ")."""

    message: str
