"""A lesson page's Markdown read by its blocks: front matter, fenced code, admonitions and
collapsible blocks (``!!! kind "Title"``, ``??? kind "Title"``), sections, lists and console
blocks. Standard library only; tools/handouts.py and tools/slides.py build on it.

Everything works on lines and knows which lines are inside fenced code, so a ``# comment`` in a
console block is never taken for a heading, nor a ``!!!`` in one for an admonition.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# pymdownx.details (???, ???+) and admonition (!!!): the kind, then an optional quoted title
BLOCK = re.compile(r'^(?P<indent>\s*)(?P<marker>!!!|\?\?\?\+?)\s+(?P<kind>[\w-]+)'
                   r'(?:\s+"(?P<title>[^"]*)")?\s*$')
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
TAB = re.compile(r'^(\s*)===\+?\s+"([^"]*)"\s*$')


def strip_front_matter(markdown: str) -> str:
    """``markdown`` without its YAML front matter (``---`` ... ``---`` at the top)."""
    if markdown.startswith("---\n"):
        end = markdown.find("\n---\n", 4)
        if end != -1:
            return markdown[end + 5:].lstrip("\n")
    return markdown


def in_code(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (its fences included)."""
    mask = []
    fence = ""
    for line in lines:
        match = FENCE.match(line)
        if fence:
            mask.append(True)
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip()[len(match.group(1)):].strip():
                fence = ""
        elif match:
            mask.append(True)
            fence = match.group(1)
        else:
            mask.append(False)
    return mask


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def block_end(lines: list[str], start: int) -> int:
    """The end (exclusive) of the indented block whose first line is ``start``: the lines
    after it that are blank or indented deeper, without the blank lines at its end."""
    base = indent_of(lines[start])
    end = start + 1
    last = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and indent_of(line) <= base:
            break
        end += 1
        if line.strip():
            last = end
    return last


@dataclass(frozen=True)
class Block:
    """An admonition (``!!!``) or collapsible block (``???``, ``???+``) of a page: lines
    ``start`` (its header) to ``end`` (exclusive)."""

    start: int
    end: int
    indent: int
    marker: str
    kind: str
    title: str


def blocks(lines: list[str], code: list[bool] | None = None) -> list[Block]:
    """Every admonition and collapsible block, outermost and nested, in page order."""
    code = in_code(lines) if code is None else code
    found = []
    for number, line in enumerate(lines):
        match = BLOCK.match(line)
        if match and not code[number]:
            found.append(Block(number, block_end(lines, number), len(match.group("indent")),
                               match.group("marker"), match.group("kind"),
                               match.group("title") or ""))
    return found


def block_body(lines: list[str], block: Block) -> str:
    """The text inside ``block``, dedented."""
    return textwrap.dedent("\n".join(lines[block.start + 1:block.end])).strip("\n")


def admonition_body(markdown: str, kind: str, title: str) -> str | None:
    """The dedented text of the first block of ``kind`` titled ``title``, or None."""
    lines = strip_front_matter(markdown).splitlines()
    for block in blocks(lines):
        if block.kind == kind and block.title == title:
            return block_body(lines, block)
    return None


def headings(lines: list[str], code: list[bool] | None = None) -> list[tuple[int, int, str]]:
    """(line, level, text) of every heading outside code."""
    code = in_code(lines) if code is None else code
    found = []
    for number, line in enumerate(lines):
        match = HEADING.match(line)
        if match and not code[number]:
            found.append((number, len(match.group(1)), match.group(2)))
    return found


def section(markdown: str, title_prefix: str, level: int = 2) -> str | None:
    """The text under the first heading of ``level`` whose title starts with
    ``title_prefix``, up to the next heading of that level or higher; None without one."""
    lines = strip_front_matter(markdown).splitlines()
    found = headings(lines)
    for index, (number, depth, text) in enumerate(found):
        if depth == level and text.startswith(title_prefix):
            end = next((n for n, d, _ in found[index + 1:] if d <= level), len(lines))
            return "\n".join(lines[number + 1:end]).strip("\n")
    return None


def list_items(text: str) -> list[str]:
    """The top-level items of the bulleted list in ``text`` (``- `` or ``* `` at the left
    margin), each on one line; other paragraphs are left out."""
    items: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(("- ", "* ")):
            current = [line[2:].strip()]
            items.append("")
        elif current is not None and line.startswith(" ") and line.strip():
            current.append(line.strip())
        elif not line.strip():
            pass
        else:
            current = None
            continue
        if current is not None:
            items[-1] = " ".join(current)
    return items


@dataclass(frozen=True)
class CodeBlock:
    """A fenced console block, under the content tab it is in (``label``, "" outside tabs);
    ``line``: where its fence is in the text it was found in."""

    label: str
    code: str
    line: int = field(default=0, compare=False)


def console_blocks(text: str) -> list[CodeBlock]:
    """The ``console`` fenced blocks of ``text`` in order, each with its tab's label."""
    lines = text.splitlines()
    found = []
    label = ""
    number = 0
    while number < len(lines):
        line = lines[number]
        tab = TAB.match(line)
        if tab:
            label = tab.group(2)
        elif line.strip() and indent_of(line) == 0 and not FENCE.match(line):
            label = ""
        fence = re.match(r"^(\s*)(`{3,}|~{3,})\s*console\b", line)
        if fence:
            start = number + 1
            end = start
            while end < len(lines) and lines[end].strip() != fence.group(2):
                end += 1
            if indent_of(line) == 0:
                label = ""
            body = textwrap.dedent("\n".join(lines[start:end]))
            found.append(CodeBlock(label, body.strip("\n"), number))
            number = end
        number += 1
    return found
