"""bash's messages for a line it cannot parse (parse.y), from the first error tree-sitter-bash
found in it."""

from __future__ import annotations

from labsim.shell.syntax.cst import Node, Tree


def message(tree: Tree, error: Node) -> str:
    """What bash says (parse.y's messages) for the first error tree-sitter found."""
    text = tree.text(error).strip()
    tokens = text.split()
    last = tokens[-1] if tokens else ""
    if last in ("<", ">", ">>", "<<", "<<<", ">&", "<&", "&>", ">|") and \
            error.end >= len(tree.source.rstrip()):
        return "syntax error near unexpected token `newline'"
    first = tokens[0] if tokens else ""
    if first in CLOSING or first[:1] in (")", "}"):
        return f"syntax error near unexpected token `{_token(first)}'"
    if error.missing or error.end >= len(tree.source.rstrip()):
        for quote in ("\"", "'", "`"):
            if _unbalanced(tree.source, quote):
                return f"unexpected EOF while looking for matching `{quote}'"
        if not tokens or tokens[0] not in ("|", "||", "&&", ";", "&", ";;"):
            return "syntax error: unexpected end of file"
    return f"syntax error near unexpected token `{_token(tokens[0] if tokens else text)}'"


CLOSING = {")", "}", ";;", "fi", "done", "esac", "then", "do", "else", "elif", "in"}
# Reserved words that cannot start a command (bash's parse.y reads them only inside one).
MISPLACED_WORDS = frozenset({"}", "fi", "done", "esac", "then", "do", "else", "elif"})


def _token(text: str) -> str:
    for operator in ("&&", "||", ";;", "|&", "|", ";", "&", ")", "}", "(", "<", ">"):
        if text.startswith(operator):
            return operator
    return text


def _unbalanced(source: str, quote: str) -> bool:
    """Whether ``quote`` opens a string the line does not close (outside other quotes)."""
    open_quote = ""
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\" and open_quote != "'":
            i += 2
            continue
        if open_quote:
            if char == open_quote:
                open_quote = ""
        elif char in "'\"`":
            open_quote = char
        i += 1
    return open_quote == quote
