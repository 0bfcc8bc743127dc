"""Slides per lesson, from the lesson's Markdown, rendered by Marp (npm @marp-team/marp-cli).

:func:`extract` reads from a lesson page (as the site build has it, ``[[zfs:...]]`` and
``[[lab:steps:...]]`` already replaced) what a deck shows: the title, the objectives, how many
figures (widgets) it has, the key points, and the lab's steps and commands (the console
blocks of its ``## Lab`` section, each under its tab's label). :func:`deck_markdown` writes a
Marp deck from that and the lesson's static figures: a title slide, the objectives, one slide
per figure, the key points and the lab, a long list or lab going on over more slides.
:func:`render` turns decks into self-contained HTML with Marp's ``bespoke`` template (its
script and theme inlined: nothing is fetched at run time), caching each deck's HTML under
``build/slides/`` by its Markdown, Marp's version and the configuration.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import course
from lesson_markdown import CodeBlock, admonition_body, console_blocks, list_items, section

REPO = Path(__file__).resolve().parent.parent
MARP_PACKAGE = REPO / "node_modules" / "@marp-team" / "marp-cli"
MARP_CONFIG = REPO / "tools" / "marp.json"
CACHE = REPO / "build" / "slides"
STEP = re.compile(r"^(\d+)\.\s+\*\*([\w-]+)\*\*")
TITLE = re.compile(r"^#\s+(.+?)\s*$", re.M)
LIST_BUDGET = 800  # characters of list text per slide at the deck's font size
CODE_LINES = 14  # lines of code per slide


class SlideError(RuntimeError):
    pass


@dataclass(frozen=True)
class Steps:
    """A lab's steps, by name (the list ``[[lab:steps:NAME]]`` becomes on the page)."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Deck:
    lesson_id: str
    title: str
    duration: str
    objectives: tuple[str, ...]
    figures: int
    key_points: tuple[str, ...]
    lab: tuple[Steps | CodeBlock, ...]  # in the order of the page's lab section

    @property
    def lab_commands(self) -> tuple[CodeBlock, ...]:
        return tuple(part for part in self.lab if isinstance(part, CodeBlock))


def lab_parts(lab: str) -> tuple[Steps | CodeBlock, ...]:
    """A lab section's step lists and console blocks, in order. A list starts again at 1."""
    found: list[tuple[int, Steps | CodeBlock]] = []
    names: list[str] = []
    start = 0
    for number, line in enumerate(lab.splitlines()):
        step = STEP.match(line)
        if not step:
            continue
        if step.group(1) == "1" and names:
            found.append((start, Steps(tuple(names))))
            names = []
        if not names:
            start = number
        names.append(step.group(2))
    if names:
        found.append((start, Steps(tuple(names))))
    found += [(block.line, block) for block in console_blocks(lab)]
    return tuple(part for _, part in sorted(found, key=lambda pair: pair[0]))


@dataclass(frozen=True)
class Figure:
    """A static figure of the lesson: its image's URL from the deck, and its text."""

    src: str
    alt: str


def extract(markdown: str, lesson: course.Lesson) -> Deck:
    """What the deck of ``lesson`` shows, from its page's Markdown. SlideError names what
    the page lacks (a lesson has objectives, key points and a lab section)."""
    objectives = admonition_body(markdown, "abstract", "Objectives")
    key_points = admonition_body(markdown, "success", "Key points")
    lab = section(markdown, "Lab")
    missing = [name for name, text in (("an `!!! abstract \"Objectives\"`", objectives),
                                       ("a `!!! success \"Key points\"`", key_points),
                                       ("a `## Lab` section", lab)) if text is None]
    if missing:
        raise SlideError(f"{lesson.page}: no slides without {' and '.join(missing)}")
    assert objectives is not None and key_points is not None and lab is not None
    title = TITLE.search(markdown)
    d = lesson.duration
    return Deck(lesson.id, title.group(1) if title else lesson.title,
                f"{d.total} min: {d.teaching} teaching, {d.exercises} exercises, {d.lab} lab",
                tuple(list_items(objectives)), len(course.page_simulations(markdown)),
                tuple(list_items(key_points)), lab_parts(lab))


def _chunks(items: Sequence[str], budget: int = LIST_BUDGET) -> list[list[str]]:
    """Items in slide-sized groups, in order (an item longer than the budget is alone)."""
    groups: list[list[str]] = [[]]
    used = 0
    for item in items:
        if groups[-1] and used + len(item) > budget:
            groups.append([])
            used = 0
        groups[-1].append(item)
        used += len(item)
    return [group for group in groups if group]


def _numbered(title: str, index: int, count: int) -> str:
    return title if count == 1 else f"{title} ({index}/{count})"


def _lab_slides(deck: Deck) -> list[list[str]]:
    """The lab's slides: its steps and commands in order, CODE_LINES lines of code a slide at
    most."""
    slides: list[list[str]] = [[]]
    lines = 0
    for part in deck.lab:
        if isinstance(part, Steps):
            slides[-1].append("Steps: " + " → ".join(f"**{name}**" for name in part.names))
            continue
        size = part.code.count("\n") + 1
        if lines and lines + size > CODE_LINES:
            slides.append([])
            lines = 0
        if part.label:
            slides[-1].append(f"{part.label}:")
        slides[-1].append(f"```console\n{part.code}\n```")
        lines += size
    return [slide for slide in slides if slide]


STYLE = """\
  section { font-size: 26px; padding: 50px 70px; }
  section h1 { font-size: 48px; }
  section h2 { font-size: 36px; }
  section pre { font-size: 17px; }
  section li { margin: 0.15em 0; }
  section img { display: block; margin: 0 auto; max-width: 100%; }
  section.title { justify-content: center; }"""


def _alt(text: str) -> str:
    """An image's text for Marp's ``![...]``: no brackets, no Marp size keywords."""
    words = re.sub(r"[\[\]]", "", text).split()
    return " ".join(word for word in words if not re.match(r"^(w|h|width|height):", word))


def deck_markdown(deck: Deck, figures: Sequence[Figure], lesson_url: str) -> str:
    """The Marp deck of ``deck``, with ``figures`` (one per widget, in order) and a link back
    to the lesson's page at ``lesson_url`` (relative to the deck)."""
    if len(figures) != deck.figures:
        raise SlideError(f"lesson {deck.lesson_id}: {deck.figures} widgets but "
                         f"{len(figures)} static figures")
    front = ["---", "marp: true", "lang: en", "theme: default", "paginate: true", "size: 16:9",
             f"title: {json.dumps(deck.title)}", "style: |", STYLE, "---"]
    slides = [[f"<!-- _class: title -->\n<!-- _paginate: false -->\n\n# {deck.title}",
               f"{deck.duration}", f"ZFS Field Labs · [the lesson]({lesson_url})"]]
    groups = _chunks(deck.objectives)
    for index, group in enumerate(groups, 1):
        slides.append([f"## {_numbered('Objectives', index, len(groups))}",
                       "\n".join(f"- {item}" for item in group)])
    for index, figure in enumerate(figures, 1):
        slides.append([f"## {_numbered('Simulation', index, len(figures))}",
                       f"![{_alt(figure.alt)} h:520]({figure.src})"])
    groups = _chunks(deck.key_points)
    for index, group in enumerate(groups, 1):
        slides.append([f"## {_numbered('Key points', index, len(groups))}",
                       "\n".join(f"- {item}" for item in group)])
    labs = _lab_slides(deck)
    for index, lab in enumerate(labs, 1):
        slides.append([f"## {_numbered('Lab', index, len(labs))}", *lab])
    return "\n".join(front) + "\n\n" + "\n\n---\n\n".join("\n\n".join(s) for s in slides) + "\n"


# --- rendering ---------------------------------------------------------------------------------

def marp_version(package: Path = MARP_PACKAGE) -> str:
    try:
        return json.loads((package / "package.json").read_text())["version"]
    except (OSError, KeyError, ValueError) as err:
        raise SlideError(f"no Marp CLI in {package} (run `npm install`: @marp-team/marp-cli is "
                         "a devDependency)") from err


def _key(markdown: str, version: str) -> str:
    digest = hashlib.sha256()
    for part in (markdown.encode(), version.encode(), MARP_CONFIG.read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


def render(decks: Mapping[str, str], cache: Path = CACHE,
           package: Path = MARP_PACKAGE) -> dict[str, Path]:
    """The HTML file of each deck (name -> Marp Markdown), converting in one Marp run those
    the cache does not have yet; cached files no deck names any more are removed."""
    version = marp_version(package)
    keys = {name: _key(markdown, version) for name, markdown in decks.items()}
    cache.mkdir(parents=True, exist_ok=True)
    missing = [name for name, key in keys.items() if not (cache / f"{key}.html").is_file()]
    if missing:
        work = Path(tempfile.mkdtemp(prefix="marp-", dir=cache))  # builds may run at once
        sources = []
        for name in missing:
            source = work / f"{keys[name]}.md"
            source.write_text(decks[name])
            sources.append(str(source))
        done = subprocess.run(
            ["node", str(package / "marp-cli.js"), "--no-stdin", "--config-file",
             str(MARP_CONFIG), *sources],
            capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        if done.returncode != 0:
            raise SlideError("Marp could not convert the slides:\n"
                             + (done.stderr or done.stdout)[-4000:])
        for name in missing:
            (work / f"{keys[name]}.html").replace(cache / f"{keys[name]}.html")
        shutil.rmtree(work, ignore_errors=True)
    wanted = {f"{key}.html" for key in keys.values()}
    for old in cache.glob("*.html"):
        if old.name not in wanted:
            old.unlink()
    return {name: cache / f"{key}.html" for name, key in keys.items()}
