"""Where the concrete tree comes from: tree-sitter-bash (MIT), in CPython through the
``tree_sitter`` and ``tree_sitter_bash`` wheels, in Pyodide through the page's web-tree-sitter
(the worker defines ``labsimParseBash``, which returns the tree as JSON; see cst.from_json).

tree-sitter-bash is the grammar; this module only carries its tree over.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from labsim.shell.syntax.cst import Node, Tree, from_json


class ParserUnavailable(Exception):
    """Neither tree-sitter backend is available in this Python."""


@cache
def _python_parser() -> Any:
    try:
        import tree_sitter
        import tree_sitter_bash
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _page_parser() -> Any:
    try:
        import js  # type: ignore[import-not-found]  # Pyodide's bridge to the worker's globals
    except ImportError:
        return None
    return getattr(js, "labsimParseBash", None)


# In bash ``[`` is an ordinary command (the test builtin); tree-sitter-bash reads ``[ ... ]``
# as a grammar rule of its own, and refuses what bash runs (``[ a b ]``, ``[ x; echo $?``). Each
# ``[`` that stands as a word of its own is handed to the parser as STANDIN, an ordinary word.
_BRACKET_WORD = re.compile(r"(?<![^\s;&|(){}!`])\[(?=[\s;&|)]|$)")
# Outside ASCII, bash's lexer sees only word characters; so does tree-sitter-bash, but its
# native scanner (0.25.1 with py-tree-sitter 0.25.2) crashes the process now and then on such
# text (found by tests/unit/test_shell_robustness.py). Each such character reaches the parser
# as ".", a word character that names no variable and starts no expansion; one code point
# each way, so the offsets hold and all text is read from the line as written.
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# A "$" that starts no expansion is an ordinary character to bash (``echo $,`` prints "$,");
# tree-sitter-bash refuses it, so it too reaches the parser as STANDIN.
_LONE_DOLLAR = re.compile(r"\$(?![A-Za-z0-9_{(\[?!#$*@'\"-])")
STANDIN = "."


def prepared(source: str) -> str:
    """What the parser is given for ``source``: ASCII, one character for each of the line's."""
    return _LONE_DOLLAR.sub(STANDIN, _NON_ASCII.sub(STANDIN, _BRACKET_WORD.sub(STANDIN, source)))


def parse(source: str) -> Tree:
    """The concrete tree of ``source``."""
    parsed = prepared(source)
    parser = _python_parser()
    if parser is not None:
        return Tree(source, _from_python(parser.parse(parsed.encode()).root_node, parsed))
    page = _page_parser()
    if page is not None:
        return Tree(source, from_json(json.loads(str(page(parsed)))))
    raise ParserUnavailable("tree-sitter-bash is not available (pip install tree-sitter "
                            "tree-sitter-bash; in the page, the worker loads web-tree-sitter)")


def _from_python(root: Any, parsed: str) -> Node:
    """py-tree-sitter's tree as plain nodes (``parsed`` is ASCII: bytes are code points)."""

    def convert(node: Any, field: str | None) -> Node:
        children = tuple(convert(child, node.field_name_for_child(i))
                         for i, child in enumerate(node.children))
        return Node(node.type, node.is_named, field, node.start_byte, node.end_byte,
                    children, node.is_missing)

    return convert(root, None)
