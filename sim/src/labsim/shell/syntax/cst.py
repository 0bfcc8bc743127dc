"""The concrete syntax tree of a command line as plain data, whichever parser made it.

tree-sitter-bash runs in CPython through the ``tree_sitter`` wheels and in the page through
web-tree-sitter (docs/javascripts/labsim-worker.js), which hands the tree over as JSON. Both
become ``Node``: the grammar's node type, whether it is a named node, the field its parent holds
it in, and where it starts and ends as offsets into the Python string of the line (code points,
not the bytes or UTF-16 units the parsers count in).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    type: str
    named: bool
    field: str | None
    start: int
    end: int
    children: tuple[Node, ...] = ()
    missing: bool = False


@dataclass(frozen=True)
class Tree:
    source: str
    root: Node

    def text(self, node: Node) -> str:
        return self.source[node.start:node.end]


def from_json(value: list) -> Node:
    """A node in the page's shape: ``[type, named, field, start, end, children, missing]``
    (docs/javascripts/labsim-worker.js, labsimParseBash), offsets already in code points."""
    type_, named, field, start, end, children, missing = value
    return Node(str(type_), bool(named), field or None, int(start), int(end),
                tuple(from_json(child) for child in children), bool(missing))


def has_error(node: Node) -> bool:
    return node.type == "ERROR" or node.missing or any(has_error(c) for c in node.children)


def first_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node, in source order."""
    if node.type == "ERROR" or node.missing:
        return node
    for child in node.children:
        found = first_error(child)
        if found is not None:
            return found
    return None
