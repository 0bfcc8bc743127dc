"""The text of words: backslashes outside quotes, inside double quotes and here-documents,
and in ``$'...'`` strings, as bash's lexer reads them."""

from __future__ import annotations

from labsim.shell.syntax import ast


def word_text(text: str, quoted: bool) -> list[ast.Part]:
    """An unquoted word's text: a backslash quotes the next character, and a backslash-newline
    is removed."""
    if quoted:
        return [ast.Literal(text, True)]
    parts: list[ast.Part] = []
    plain: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if plain:
                parts.append(ast.Literal("".join(plain)))
                plain = []
            if text[i + 1] != "\n":
                parts.append(ast.Literal(text[i + 1], True))
            i += 2
            continue
        plain.append(char)
        i += 1
    if plain:
        parts.append(ast.Literal("".join(plain)))
    return parts


def unescape(text: str, escapable: str) -> str:
    """A backslash before one of ``escapable`` quotes it (a backslash-newline goes away); any
    other backslash stays, as inside double quotes and here-documents."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in escapable:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
         "t": "\t", "v": "\v", "\\": "\\", "'": "'", "\"": "\"", "?": "?"}


def ansi_c(text: str) -> str:
    """The escapes of ``$'...'`` (bash's ansicstr): \\n, \\t, \\xHH, \\NNN octal and the rest."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        code = text[i + 1]
        if code in _ANSI:
            out.append(_ANSI[code])
            i += 2
        elif code == "x":
            digits = ""
            while len(digits) < 2 and i + 2 + len(digits) < len(text) \
                    and text[i + 2 + len(digits)] in "0123456789abcdefABCDEF":
                digits += text[i + 2 + len(digits)]
            out.append(chr(int(digits, 16)) if digits else "\\x")
            i += 2 + len(digits)
        elif code in "01234567":
            digits = ""
            while len(digits) < 3 and i + 1 + len(digits) < len(text) \
                    and text[i + 1 + len(digits)] in "01234567":
                digits += text[i + 1 + len(digits)]
            out.append(chr(int(digits, 8) & 0xFF))
            i += 1 + len(digits)
        else:
            out.append("\\" + code)
            i += 2
    return "".join(out)
