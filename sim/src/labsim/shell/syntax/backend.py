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
# ``[`` that stands as a word of its own is handed to the parser as a private-use character, an
# ordinary word to it; the tree's offsets are the same (one code point each way), and all text
# is read from the line as written.
_BRACKET_WORD = re.compile(r"(?<![^\s;&|(){}!`])\[(?=[\s;&|)]|$)")
BRACKET_STANDIN = "\ue000"


def parse(source: str) -> Tree:
    """The concrete tree of ``source``."""
    parsed = _BRACKET_WORD.sub(BRACKET_STANDIN, source)
    parser = _python_parser()
    if parser is not None:
        return Tree(source, _from_python(parser.parse(parsed.encode()).root_node, parsed))
    page = _page_parser()
    if page is not None:
        return Tree(source, from_json(json.loads(str(page(parsed)))))
    raise ParserUnavailable("tree-sitter-bash is not available (pip install tree-sitter "
                            "tree-sitter-bash; in the page, the worker loads web-tree-sitter)")


def _from_python(root: Any, source: str) -> Node:
    """py-tree-sitter's tree as plain nodes, byte offsets turned into code-point offsets."""
    encoded = source.encode()
    if len(encoded) == len(source):
        def at(offset: int) -> int:
            return offset
    else:
        positions = [0] * (len(encoded) + 1)
        index = 0
        for i, char in enumerate(source):
            width = len(char.encode())
            for k in range(width):
                positions[index + k] = i
            index += width
        positions[index] = len(source)

        def at(offset: int) -> int:
            return positions[offset]

    def convert(node: Any, field: str | None) -> Node:
        children = tuple(convert(child, node.field_name_for_child(i))
                         for i, child in enumerate(node.children))
        return Node(node.type, node.is_named, field, at(node.start_byte), at(node.end_byte),
                    children, node.is_missing)

    return convert(root, None)
