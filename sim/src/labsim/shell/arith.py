"""Shell arithmetic, ``$(( ))``, ``(( ))`` and ``for (( ))``, as bash's expr.c evaluates it:
64-bit signed integers that wrap, C's operators, a variable's value read as an expression
itself (``x=1+2; echo $((x*2))`` is 6), 0x.. hexadecimal, 0.. octal and BASE#DIGITS numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from labsim.shell.syntax import ast

BITS = 64
# bash's EXP_EXPR_LIMIT-like guard on a variable whose value names itself (x=x).
MAX_DEPTH = 1024


class ArithmeticError_(Exception):
    """An expression bash refuses; ``what`` is bash's description (division by 0, ...)."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class Variables(Protocol):
    def variable(self, name: str) -> str | None: ...

    def assign(self, name: str, value: str) -> None: ...

    def expand(self, word: ast.Word) -> str: ...

    def parse_arithmetic(self, text: str) -> ast.Arithmetic | None: ...


def _wrap(value: int) -> int:
    value &= (1 << BITS) - 1
    return value - (1 << BITS) if value >> (BITS - 1) else value


def number(text: str) -> int:
    """An integer constant as bash reads it (expr.c strlong)."""
    text = text.strip()
    negative = text.startswith("-")
    digits = text.lstrip("+-")
    if not digits:
        raise ArithmeticError_("operand expected")
    try:
        if "#" in digits:
            base_text, _, body = digits.partition("#")
            base = int(base_text)
            if not 2 <= base <= 64:
                raise ArithmeticError_("invalid arithmetic base")
            value = 0
            for char in body:
                if char.isdigit():
                    digit = int(char)
                elif char.islower():
                    digit = ord(char) - ord("a") + 10
                elif char.isupper():
                    digit = ord(char) - ord("A") + (36 if base > 36 else 10)
                elif char == "@":
                    digit = 62
                elif char == "_":
                    digit = 63
                else:
                    raise ArithmeticError_("invalid number")
                if digit >= base:
                    raise ArithmeticError_("value too great for base")
                value = value * base + digit
        elif digits.lower().startswith("0x"):
            value = int(digits[2:], 16)
        elif digits.startswith("0") and len(digits) > 1:
            if any(c in "89" for c in digits):
                raise ArithmeticError_("value too great for base")
            value = int(digits, 8)
        else:
            value = int(digits)
    except ValueError:
        raise ArithmeticError_("invalid number") from None
    return _wrap(-value if negative else value)


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<<": lambda a, b: a << (b & 63), ">>": lambda a, b: a >> (b & 63),
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b, "^": lambda a, b: a ^ b, "|": lambda a, b: a | b,
    ",": lambda a, b: b,
}


def _divide(operator: str, a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError_("division by 0")
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates
    return quotient if operator == "/" else a - b * quotient


def _power(a: int, b: int) -> int:
    if b < 0:
        raise ArithmeticError_("exponent less than 0")
    result, base = 1, _wrap(a)
    while b:  # square and multiply, wrapping as it goes (no huge intermediate numbers)
        if b & 1:
            result = _wrap(result * base)
        base = _wrap(base * base)
        b >>= 1
    return result


def evaluate(expression: ast.Arithmetic, shell: Variables, depth: int = 0) -> int:
    if depth > MAX_DEPTH:
        raise ArithmeticError_("expression recursion level exceeded")
    if isinstance(expression, ast.Number):
        return number(expression.text)
    if isinstance(expression, ast.Variable):
        return _variable(expression.name, shell, depth)
    if isinstance(expression, ast.Expanded):
        return _text_value(shell.expand(expression.word), shell, depth)
    if isinstance(expression, ast.Conditional):
        chosen = expression.then if evaluate(expression.condition, shell, depth) \
            else expression.otherwise
        return evaluate(chosen, shell, depth)
    if isinstance(expression, ast.Unary):
        return _unary(expression, shell, depth)
    operator = expression.operator
    if operator == "&&":
        return int(bool(evaluate(expression.left, shell, depth))
                   and bool(evaluate(expression.right, shell, depth)))
    if operator == "||":
        return int(bool(evaluate(expression.left, shell, depth))
                   or bool(evaluate(expression.right, shell, depth)))
    if operator.endswith("=") and operator not in ("==", "!=", "<=", ">="):
        if not isinstance(expression.left, ast.Variable):
            raise ArithmeticError_("attempted assignment to non-variable")
        value = evaluate(expression.right, shell, depth)
        if operator != "=":
            current = _variable(expression.left.name, shell, depth)
            value = _apply(operator[:-1], current, value)
        shell.assign(expression.left.name, str(value))
        return value
    return _apply(operator, evaluate(expression.left, shell, depth),
                  evaluate(expression.right, shell, depth))


def _apply(operator: str, a: int, b: int) -> int:
    if operator in ("/", "%"):
        return _wrap(_divide(operator, a, b))
    if operator == "**":
        return _power(a, b)
    function = _BINARY.get(operator)
    if function is None:
        raise ArithmeticError_(f"syntax error in expression (operator {operator})")
    return _wrap(function(a, b))


def _unary(expression: ast.Unary, shell: Variables, depth: int) -> int:
    operator = expression.operator
    if operator in ("++x", "--x", "x++", "x--"):
        if not isinstance(expression.operand, ast.Variable):
            raise ArithmeticError_("attempted assignment to non-variable")
        name = expression.operand.name
        before = _variable(name, shell, depth)
        after = _wrap(before + (1 if "++" in operator else -1))
        shell.assign(name, str(after))
        return after if operator.endswith("x") else before
    value = evaluate(expression.operand, shell, depth)
    if operator == "-":
        return _wrap(-value)
    if operator == "+":
        return value
    if operator == "!":
        return int(not value)
    if operator == "~":
        return _wrap(~value)
    raise ArithmeticError_(f"syntax error in expression (operator {operator})")


def _variable(name: str, shell: Variables, depth: int) -> int:
    return _text_value(shell.variable(name) or "", shell, depth + 1)


def _text_value(text: str, shell: Variables, depth: int) -> int:
    """A variable's value (or an expansion's text) read as an expression, as bash does."""
    text = text.strip()
    if not text:
        return 0
    try:
        return number(text)
    except ArithmeticError_:
        pass
    if text.isidentifier():
        return _variable(text, shell, depth + 1)
    parsed = shell.parse_arithmetic(text)
    if parsed is None:
        raise ArithmeticError_("syntax error in expression")
    return evaluate(parsed, shell, depth + 1)
