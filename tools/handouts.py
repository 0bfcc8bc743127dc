"""Printable handouts: one page per track and edition, made from the track's lesson pages.

Two editions of each track (course.toml's tracks and their lessons, in order):

* ``exercises``: the lessons' text, their charts as drawn at build time, the exercises and the
  quizzes' questions, with no solution and no answer anywhere in the page (left out of the
  Markdown, not folded);
* ``solutions``: the same with every solution and answer shown open.

Both leave out what paper cannot hold or a learner does not need: instructor notes and
timings, the terminals (a line says that the web page has one there), "Things to try" (it
names a widget's controls) and the quizzes' buttons. Each widget becomes a placeholder
``<div class="zfl-handout-figure" data-lesson=ID data-index=N>``, which the site build fills
with the static figure it drew for the lesson page (tools/mkdocs_handout_hooks.py), so the
handout shows the same SVG as the lesson does in print.

The result is Markdown for a page at ``handouts/TRACK-EDITION.md`` (see :func:`page_path`);
links relative to a lesson page are rewritten for it. Pure functions: the build hook reads the
files and gives their text.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

import course
from lesson_markdown import BLOCK, HEADING, blocks, in_code, strip_front_matter

EDITIONS = ("exercises", "solutions")
FOLDED = ("solution", "answer")  # collapsible blocks an edition leaves out or opens
ALWAYS_OUT = ("instructor", "timing")
WIDGET = re.compile(r'^\s*<div class="labsim-widget"[^>]*></div>\s*$')
TERMINAL = re.compile(r'^\s*<div class="labsim-terminal"[^>]*></div>\s*$')
QUIZ = re.compile(r'^(\s*<div class="zfl-quiz")\s+data-answer="[^"]*"')
QUIZ_START = '<div class="zfl-quiz"'
LINK = re.compile(r"\]\((?!https?:|mailto:|#|/)([^)\s]+?\.md)(#[^)\s]*)?\)")


def page_path(track: str, edition: str) -> str:
    """The handout's page under docs/ (generated, never a file there)."""
    return f"handouts/{track}-{edition}.md"


def track_name(track: str) -> str:
    return f"{track.capitalize()} track"


def _rebase_links(line: str, lesson_page: str, handout_page: str) -> str:
    """Links relative to the lesson's page, made relative to the handout's."""
    def relink(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(lesson_page),
                                                   match.group(1)))
        relative = posixpath.relpath(target, posixpath.dirname(handout_page))
        return f"]({relative}{match.group(2) or ''})"

    return LINK.sub(relink, line)


def _things_to_try(lines: list[str], start: int) -> int:
    """The end of a ``Things to try:`` paragraph that starts at ``start`` and its list."""
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and not line.startswith(("- ", "* ", " ")):
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def lesson_markdown(markdown: str, lesson: course.Lesson, edition: str,
                    handout_page: str) -> str:
    """One lesson's part of a handout of ``edition``: its headings one level down (the
    lesson's title is a section of the handout, with the lesson's id as its anchor) and the
    changes the module's docstring lists."""
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r} (editions: {', '.join(EDITIONS)})")
    lines = strip_front_matter(markdown).splitlines()
    code = in_code(lines)
    dropped = [False] * len(lines)
    for block in blocks(lines, code):
        if (block.kind in ALWAYS_OUT or (edition == "exercises" and block.kind in FOLDED)
                or (block.kind == "tip" and block.title == "Things to try")):
            dropped[block.start:block.end] = [True] * (block.end - block.start)
    for number, line in enumerate(lines):
        if not code[number] and line.strip() == "Things to try:":
            end = _things_to_try(lines, number)
            dropped[number:end] = [True] * (end - number)
    lesson_link = posixpath.relpath(lesson.page, posixpath.dirname(handout_page))
    out: list[str] = []
    figures = 0
    titled = False
    in_quiz_intro = False
    for number, line in enumerate(lines):
        if dropped[number]:
            continue
        if code[number]:
            out.append(line)
            continue
        heading = HEADING.match(line)
        if heading:
            in_quiz_intro = heading.group(2) == "Check yourself"
            if not titled:
                titled = True
                out += [f"#{heading.group(1)} {heading.group(2)} {{ #{lesson.id} "
                        ".zfl-handout-lesson }", "", course.duration_html(lesson.duration)]
                continue
            out.append(f"#{line}")
            if in_quiz_intro:
                out += ["", "Questions on the lesson's key points"
                        + (", with their answers." if edition == "solutions" else
                           "; the solutions edition of this handout has the answers."), ""]
            continue
        if in_quiz_intro:
            if not line.strip().startswith(QUIZ_START):
                continue  # the page's words about choosing options in the browser
            in_quiz_intro = False
        if WIDGET.match(line):
            out += [f'<div class="zfl-handout-figure" data-lesson="{lesson.id}" '
                    f'data-index="{figures}"></div>', "",
                    f"*On the [lesson's page]({lesson_link}) this chart is live: its settings "
                    "can be changed.*"]
            figures += 1
            continue
        if TERMINAL.match(line):
            if _terminal_note(lesson_link) not in out[-3:]:  # one line for a row of them
                out.append(_terminal_note(lesson_link))
            continue
        block = BLOCK.match(line)
        if block and block.group("kind") in FOLDED:
            rest = line.lstrip()[len(block.group("marker")):].lstrip()
            line = f"{block.group('indent')}!!! {rest}"  # shown open
        line = QUIZ.sub(r"\1", line)
        out.append(_rebase_links(line, lesson.page, handout_page))
    return "\n".join(_squeeze_blank(out)).strip("\n") + "\n"


def _terminal_note(lesson_link: str) -> str:
    return (f"*On the [lesson's page]({lesson_link}) a terminal here runs these commands in "
            "the simulator.*")


def _squeeze_blank(lines: list[str]) -> list[str]:
    """No two blank lines in a row (removed blocks leave them), except inside code."""
    out: list[str] = []
    code = in_code(lines)
    for number, line in enumerate(lines):
        if not line.strip() and out and not out[-1].strip() and not code[number]:
            continue
        out.append(line)
    return out


def handout_markdown(manifest: course.Course, track: str, edition: str,
                     read: Callable[[str], str]) -> str:
    """The whole handout page of ``track`` in ``edition``; ``read(page)`` gives a lesson
    page's Markdown (``page`` as in course.toml, under docs/)."""
    lessons = manifest.track_lessons(track)
    if not lessons:
        raise ValueError(f"track {track!r} has no lessons")
    path = page_path(track, edition)
    other = page_path(track, "solutions" if edition == "exercises" else "exercises")
    other_link = posixpath.relpath(other, posixpath.dirname(path))
    title = f"{track_name(track)}: handout, {edition}"
    if edition == "exercises":
        about = ("The lessons for reading and working on paper: their text, the charts of the "
                 "simulations as drawn when the site was built, the exercises and the quizzes' "
                 "questions, without solutions or answers. The "
                 f"[edition with solutions]({other_link}) has them.")
    else:
        about = ("The lessons for reading on paper, with the solution of every exercise and "
                 "the answer to every quiz question shown. The "
                 f"[edition without solutions]({other_link}) is the one to hand out before "
                 "the exercises.")
    contents = "\n".join(f"- [{lesson.title}](#{lesson.id})" for lesson in lessons)
    # Not in the site's search: every lesson is there already.
    parts = [f'---\ntitle: "{title}"\nhide:\n  - toc\nsearch:\n  exclude: true\n---\n',
             f"# {title}\n",
             f'<div class="zfl-handout-about" markdown>\n\n{about} Printing this page (or '
             "`make handouts`, which makes a PDF of it) gives one lesson per sheet; instructor "
             "notes, terminals and the simulations' controls are left out.\n\n</div>\n",
             f"{contents}\n"]
    for lesson in lessons:
        parts.append(lesson_markdown(read(lesson.page), lesson, edition, path))
    return "\n".join(parts)
