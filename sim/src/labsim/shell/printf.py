"""bash's printf builtin (bash 5.2 builtins/printf.def): the format's escapes, conversions
%d %i %u %o %x %X %f %F %e %E %g %G %c %s %b and %%, with flags, width and precision (``*``
from the arguments), the format reused until the arguments run out, ``-v VAR``, and
"invalid number" for an argument that is not one (its leading number is printed, status 1).
"""

from __future__ import annotations

import re

# flags, width, precision, the length modifiers bash skips, and the conversion
_CONVERSION = re.compile(r"%([-+ #0]*)(\*|[0-9]+)?(?:\.(\*|[0-9]*))?[hjlLtz]*"
                         r"([diouxXfFeEgGcsbq%])?")
_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t", "v": "\v", "\\": "\\", "'": "'", "\"": "\"", "?": "?"}
# %q leaves a word of these characters as it is; others it quotes (not simulated here).
_SAFE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


class PrintfError(Exception):
    """A format bash refuses, or a conversion labsim does not simulate (``simulated``)."""

    def __init__(self, message: str, simulated: bool = True):
        super().__init__(message)
        self.message = message
        self.simulated = simulated


def _byte(value: int) -> str:
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def unescape(text: str, stop_at_c: bool = False) -> tuple[str, bool]:
    """Backslash escapes as printf's format (and %b's argument, where \\c stops all output
    and octal is \\0NNN) reads them; returns the text and whether \\c was met."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        code = text[i + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code == "c" and stop_at_c:
            return "".join(out), True
        elif code == "x" and re.match(r"[0-9a-fA-F]", text[i + 2:i + 3]):
            digits = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2:])
            assert digits is not None
            out.append(_byte(int(digits.group(), 16)))
            i += 2 + len(digits.group())
        elif code in "uU" and re.match(r"[0-9a-fA-F]", text[i + 2:i + 3]):
            digits = re.match(f"[0-9a-fA-F]{{1,{4 if code == 'u' else 8}}}", text[i + 2:])
            assert digits is not None
            value = int(digits.group(), 16)
            # in the C locale the recordings run in, beyond ASCII stays written out
            out.append(chr(value) if value < 0x80 else
                       f"\\{code}{value:0{4 if code == 'u' else 8}X}")
            i += 2 + len(digits.group())
        elif code in "01234567":
            start = i + 2 if (stop_at_c and code == "0") else i + 1
            digits = re.match(r"[0-7]{1,3}", text[start:]) if start < len(text) else None
            value = int(digits.group(), 8) if digits else 0
            out.append(_byte(value & 0xFF))
            i = start + (len(digits.group()) if digits else 0)
        else:
            out.append("\\" + code)
            i += 2
    return "".join(out), False


def _number(text: str, errors: list[str]) -> int:
    """An integer argument as bash reads it (strtoimax; 'c gives c's code)."""
    if text[:1] in ("'", "\"") and len(text) > 1:
        return ord(text[1])
    found = re.match(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", text)
    if found is None:
        errors.append(f"{text}: invalid number")
        return 0
    digits = found.group(2)
    value = int(digits, 16) if digits[:2].lower() == "0x" else (
        int(digits, 8) if digits.startswith("0") else int(digits))
    if found.end() != len(text):
        errors.append(f"{text}: invalid number")
    return -value if found.group(1) == "-" else value


def _float(text: str, errors: list[str]) -> float:
    if text[:1] in ("'", "\"") and len(text) > 1:
        return float(ord(text[1]))
    found = re.match(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|nan)", text,
                     re.I)
    if found is None:
        errors.append(f"{text}: invalid number")
        return 0.0
    if found.end() != len(text):
        errors.append(f"{text}: invalid number")
    return float(found.group())


def format_all(form: str, args: list[str]) -> tuple[str, list[str]]:
    """The output of printf FORMAT ARGS... and its error messages (without "bash: printf: ")."""
    out: list[str] = []
    errors: list[str] = []
    remaining = list(args)
    while True:
        consumed = False
        position = 0
        while position < len(form):
            if form[position] != "%":
                following = form.find("%", position)
                following = len(form) if following < 0 else following
                out.append(unescape(form[position:following])[0])
                position = following
                continue
            found = _CONVERSION.match(form, position)
            assert found is not None
            flags, width, precision, kind = found.groups()
            position = found.end()
            if kind is None:
                if found.end() < len(form):
                    raise PrintfError(f"`{form[found.end()]}': invalid format character")
                raise PrintfError(f"`{form[found.start():]}': missing format character")
            if kind == "%":
                out.append("%")
                continue

            def take() -> str | None:
                nonlocal consumed
                if not remaining:
                    return None
                consumed = True
                return remaining.pop(0)

            if width == "*":
                width = str(_number(take() or "0", errors))
            if precision == "*":
                precision = str(_number(take() or "0", errors))
            if width and width.startswith("-"):
                flags, width = flags + "-", width[1:]
            argument = take()
            spec = "%" + flags + (width or "") + ("." + precision if precision is not None
                                                  else "")
            if kind in "di":
                out.append((spec + "d") % _number(argument or "0", errors))
            elif kind in "ouxX":
                value = _number(argument or "0", errors) & ((1 << 64) - 1)
                out.append((spec + ("d" if kind == "u" else kind)) % value)
            elif kind in "fFeEgG":
                out.append((spec + kind) % _float(argument or "0", errors))
            elif kind == "c":
                # no argument: getchr() gives NUL, which %c prints
                out.append((spec.replace("." + (precision or ""), "") + "s")
                           % ((argument or "")[:1] if argument is not None else "\0"))
            elif kind == "s":
                out.append((spec + "s") % (argument or ""))
            elif kind == "b":
                text, stop = unescape(argument or "", stop_at_c=True)
                out.append((spec + "s") % text)
                if stop:
                    return "".join(out), errors
            else:  # q
                word = argument or ""
                if word and not _SAFE.fullmatch(word):
                    raise PrintfError("%q of words with spaces or shell characters is not "
                                      "simulated", simulated=False)
                out.append((spec + "s") % (word or "''"))
        if not remaining or not consumed:
            return "".join(out), errors
