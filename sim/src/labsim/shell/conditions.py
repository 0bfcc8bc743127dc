"""``test``, ``[`` and ``[[ ]]`` (bash 5.2's test.c): POSIX's rules by argument count, then
``!``, ``-a``, ``-o`` and parentheses; the file tests over the session's files.

Messages as bash prints them (``bash: [: abc: integer expression expected``, status 2).
"""

from __future__ import annotations

import re

from labsim.shell import expand, fs
from labsim.shell import messages as msg
from labsim.shell.executor import Executor, Sink
from labsim.shell.syntax import ast

UNARY_FILE = {"-e", "-f", "-d", "-s", "-r", "-w", "-a"}
UNARY_STRING = {"-n", "-z"}
UNSIMULATED_UNARY = {"-x", "-L", "-h", "-b", "-c", "-p", "-S", "-t", "-O", "-G", "-N", "-u",
                     "-g", "-k", "-v", "-R", "-o"}
BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot",
          "-ef", "=~"}


class _TestError(Exception):
    def __init__(self, message: str, status: int = 2, simulated: bool = True):
        super().__init__(message)
        self.message = message
        self.status = status
        self.simulated = simulated

    def line(self, name: str) -> str:
        prefix = "bash: " if self.simulated else "labsim: "
        return f"{prefix}{name + ': ' if name else ''}{self.message}\n"


class _Evaluator:
    def __init__(self, shell: Executor, args: list[str], double: bool,
                 patterns: dict[int, ast.Word] | None = None):
        self.shell = shell
        self.args = args
        self.double = double
        self.patterns = patterns or {}

    # -------------------------------------------------------- POSIX by count

    def evaluate(self) -> bool:
        args = self.args
        if self.double:
            return self._expression(0, len(args))
        n = len(args)
        if n == 0:
            return False
        if n == 1:
            return args[0] != ""
        if n == 2:
            if args[0] == "!":
                return args[1] == ""
            return self._unary(args[0], args[1])
        if n == 3:
            if args[1] in BINARY - {"=~"}:
                return self._binary(0)
            if args[0] == "!":
                return not self._two(1)
            if args[0] == "(" and args[2] == ")":
                return args[1] != ""
            if args[1] in ("-a", "-o"):
                left, right = args[0] != "", args[2] != ""
                return (left and right) if args[1] == "-a" else (left or right)
            raise _TestError(f"{args[1]}: binary operator expected")
        if n == 4 and args[0] == "!":
            saved, self.args = self.args, args[1:]
            try:
                return not self.evaluate()
            finally:
                self.args = saved
        if n == 4 and args[0] == "(" and args[3] == ")":
            return self._two(1)
        return self._expression(0, n)

    def _two(self, at: int) -> bool:
        if self.args[at] == "!":
            return self.args[at + 1] == ""
        return self._unary(self.args[at], self.args[at + 1])

    # -------------------------------------------------------- full expressions

    def _expression(self, start: int, end: int) -> bool:
        self.position, self.end = start, end
        value = self._or()
        if self.position < self.end:
            raise _TestError("too many arguments" if not self.double
                             else f"syntax error near `{self.args[self.position]}'")
        return value

    def _or(self) -> bool:
        value = self._and()
        while self.position < self.end and self.args[self.position] in ("-o", "||"):
            self.position += 1
            right = self._and()
            value = value or right
        return value

    def _and(self) -> bool:
        value = self._term()
        while self.position < self.end and self.args[self.position] in ("-a", "&&"):
            self.position += 1
            right = self._term()
            value = value and right
        return value

    def _term(self) -> bool:
        args, at = self.args, self.position
        if at >= self.end:
            raise _TestError("argument expected" if not self.double
                             else "unexpected argument")
        if args[at] == "!":
            self.position += 1
            return not self._term()
        if args[at] == "(":
            self.position += 1
            value = self._or()
            if self.position >= self.end or args[self.position] != ")":
                raise _TestError("`)' expected")
            self.position += 1
            return value
        if at + 2 < self.end and args[at + 1] in BINARY:
            self.position += 3
            return self._binary(at)
        if args[at].startswith("-") and len(args[at]) == 2 and at + 1 < self.end \
                and args[at] not in ("-a", "-o"):
            self.position += 2
            return self._unary(args[at], args[at + 1])
        self.position += 1
        return args[at] != ""

    # -------------------------------------------------------- operators

    def _unary(self, operator: str, operand: str) -> bool:
        session = self.shell.session
        if operator in UNARY_STRING:
            return (operand != "") == (operator == "-n")
        if operator in UNARY_FILE:
            path = session.absolute(operand) if operand else ""
            if not operand or not fs.exists(session, path):
                return False
            if operator == "-d":
                return fs.is_dir(session, path)
            if operator == "-f":
                return not fs.is_dir(session, path)
            if operator == "-s":
                return fs.is_dir(session, path) or _size(self.shell, operand) > 0
            return True
        if operator in UNSIMULATED_UNARY:
            raise _TestError(msg.notice_body(operator), 2, simulated=False)
        raise _TestError(f"{operator}: unary operator expected")

    def _binary(self, at: int) -> bool:
        left, operator, right = self.args[at], self.args[at + 1], self.args[at + 2]
        if operator in ("=", "==", "!="):
            if self.double and at + 2 in self.patterns:
                matched = bool(expand.pattern(self.shell, self.patterns[at + 2]).fullmatch(left))
            else:
                matched = left == right
            return matched == (operator != "!=")
        if operator == "=~":
            try:
                return re.search(right, left) is not None
            except re.error:
                raise _TestError(f"{right}: invalid regular expression", 2) from None
        if operator in ("<", ">"):
            return (left < right) if operator == "<" else (left > right)
        if operator in ("-nt", "-ot", "-ef"):
            raise _TestError(msg.notice_body(operator), 2, simulated=False)
        a, b = self._integer(left), self._integer(right)
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
                "-ge": a >= b}[operator]

    def _integer(self, text: str) -> int:
        stripped = text.strip()
        if self.double:
            from labsim.shell import arith

            try:
                return arith.number(stripped) if stripped else 0
            except arith.ArithmeticError_:
                pass
        if re.fullmatch(r"[+-]?[0-9]+", stripped):
            return int(stripped)
        raise _TestError(f"{text}: integer expression expected")


def _size(shell: Executor, name: str) -> int:
    from labsim.shell.commands.textutils import read_file

    data = read_file(shell.session, name)
    return data.size if data is not None else 0


def test(shell: Executor, argv: list[str], sink: Sink) -> int:
    """The test and [ builtins."""
    name, args = argv[0], argv[1:]
    if name == "[":
        if not args or args[-1] != "]":
            sink.err.append("bash: [: missing `]'\n")
            return 2
        args = args[:-1]
    try:
        return 0 if _Evaluator(shell, args, double=False).evaluate() else 1
    except _TestError as error:
        sink.err.append(error.line(name))
        return error.status


def double_brackets(shell: Executor, command: ast.TestCommand, sink: Sink) -> int:
    """``[[ ... ]]``: no field splitting or globbing; ``==`` matches a pattern."""
    try:
        args = [expand.single(shell, word) for word in command.words]
    except expand.ExpansionError as error:
        sink.err.append(error.line)
        return 1
    patterns = {i: word for i, word in enumerate(command.words)
                if i > 0 and args[i - 1] in ("==", "=", "!=")}
    try:
        return 0 if _Evaluator(shell, args, double=True, patterns=patterns).evaluate() else 1
    except _TestError as error:
        sink.err.append(error.line(""))
        return error.status
