"""How many words of prose a lesson page asks its reader to read: the measure behind "no
lesson page carries more than about 2,800 words" (issue 17, item 7; tests/docs/test_prose_length.py
holds the pages to it).

What counts: the running text, headings, list items, the text of admonitions and collapsible
blocks (instructor notes, solutions and quiz answers included), table cells and the lab's step
list as the page shows it. What does not: the front matter, fenced code, an admonition's or
collapsible block's title line, HTML tags and widget markup, attribute lists, link targets, and
table separator rows. An inline code span, a ``[[zfs:...]]`` value and a ``++key++`` each count
as one word, as a reader takes them in at a glance.

Standard library only; the lab step lists are expanded by the caller (``expand``), as the site
build does (tools/mkdocs_course_hooks.steps_substitute).

    python tools/prose_words.py            every lesson page's count, largest first
    python tools/prose_words.py PAGE.md    one page's
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from lesson_markdown import BLOCK, FENCE, in_code, strip_front_matter

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "docs" / "lessons"
LIMIT = 2800  # words of prose on one lesson page

_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1")
_ZFS_VALUE = re.compile(r"\[\[zfs:[^\]]+\]\]")
_KEYS = re.compile(r"\+\+[\w+-]+\+\+")
_TAG = re.compile(r"<[^>]*>")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_ATTR_LIST = re.compile(r"\{:?\s*[.#][^}]*\}")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_TAB_TITLE = re.compile(r'^\s*===\+?\s+"([^"]*)"\s*$')
_WORD = re.compile(r"\w", re.UNICODE)


def prose_lines(markdown: str) -> list[str]:
    """The page's lines that carry prose, each cleaned of markup (see the module's doc)."""
    lines = strip_front_matter(markdown).splitlines()
    code = in_code(lines)
    kept = []
    for line, is_code in zip(lines, code, strict=True):
        if is_code or FENCE.match(line) or BLOCK.match(line) or _TABLE_RULE.match(line):
            continue
        tab = _TAB_TITLE.match(line)
        if tab:
            line = tab.group(1)
        line = _CODE_SPAN.sub(" CODE ", line)
        line = _ZFS_VALUE.sub(" VALUE ", line)
        line = _KEYS.sub(" KEY ", line)
        line = _TAG.sub(" ", line)
        line = _LINK.sub(r"\1", line)
        line = _ATTR_LIST.sub(" ", line)
        line = line.replace("|", " ")
        if line.strip():
            kept.append(line)
    return kept


def count(markdown: str, expand: Callable[[str], str] | None = None) -> int:
    """Words of prose in a page's Markdown; ``expand`` first replaces what the site build
    replaces (the lab step lists)."""
    text = expand(markdown) if expand else markdown
    return sum(1 for line in prose_lines(text) for token in line.split() if _WORD.search(token))


def site_expand(page_name: str) -> Callable[[str], str]:
    """The build's own expansion of ``[[lab:steps:NAME]]`` (needs mkdocs installed)."""
    tools = str(Path(__file__).resolve().parent)
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import mkdocs_course_hooks

    def expand(markdown: str) -> str:
        text, errors = mkdocs_course_hooks.steps_substitute(markdown, page_name)
        if errors:
            raise ValueError("; ".join(errors))
        return text

    return expand


def page_counts(pages: list[Path]) -> dict[Path, int]:
    return {page: count(page.read_text(), site_expand(page.name)) for page in pages}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="default: every lesson page")
    args = parser.parse_args(argv)
    counts = page_counts(args.pages or sorted(LESSONS.glob("*.md")))
    over = 0
    for page, words in sorted(counts.items(), key=lambda item: -item[1]):
        mark = "  over" if words > LIMIT else ""
        over += words > LIMIT
        print(f"{words:6d}  {page.name}{mark}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
