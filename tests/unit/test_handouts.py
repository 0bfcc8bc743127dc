"""Handouts (tools/handouts.py): what each edition keeps of a lesson page, and the page of a
track."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import course  # noqa: E402
import handouts  # noqa: E402
from lesson_markdown import block_body, blocks, in_code  # noqa: E402

MANIFEST = course.load()
DOCS = ROOT / "docs"


def _read(page: str) -> str:
    return (DOCS / page).read_text()


def _folded_bodies(markdown: str, kind: str) -> list[str]:
    lines = markdown.splitlines()
    return [block_body(lines, b) for b in blocks(lines) if b.kind == kind and b.marker == "???"]


def _outside_code(markdown: str) -> list[str]:
    lines = markdown.splitlines()
    return [line for line, code in zip(lines, in_code(lines), strict=True) if not code]


@pytest.fixture(scope="module", params=[lesson.id for lesson in MANIFEST.lessons])
def lesson(request) -> course.Lesson:
    return next(lesson for lesson in MANIFEST.lessons if lesson.id == request.param)


def _part(lesson: course.Lesson, edition: str) -> str:
    return handouts.lesson_markdown(_read(lesson.page), lesson, edition,
                                    handouts.page_path(lesson.track, edition))


def test_exercise_edition_has_no_solution_and_no_answer(lesson):
    source = _read(lesson.page)
    solutions = _folded_bodies(source, "solution")
    answers = _folded_bodies(source, "answer")
    assert solutions and answers, "a lesson has exercises with solutions and a quiz"
    part = _part(lesson, "exercises")
    for body in solutions + answers:
        first_line = body.strip().splitlines()[0].strip()
        assert first_line not in part
    assert not re.search(r"^\s*(\?\?\?|!!!)\+? (solution|answer|instructor)", part, re.M)
    assert "data-answer=" not in part
    # the exercises themselves are kept
    assert part.count('!!! example "Exercise') == source.count('!!! example "Exercise')


def test_solution_edition_shows_every_solution_open(lesson):
    source = _read(lesson.page)
    part = _part(lesson, "solutions")
    for kind in ("solution", "answer"):
        bodies = _folded_bodies(source, kind)
        assert len(re.findall(rf"^\s*!!! {kind}\b", part, re.M)) == len(bodies)
        for body in bodies:
            assert body.strip().splitlines()[0].strip() in part
    assert "??? " not in "\n".join(_outside_code(part))


def test_both_editions_leave_out_what_paper_cannot_hold(lesson):
    for edition in handouts.EDITIONS:
        part = _part(lesson, edition)
        assert "labsim-terminal" not in part and "labsim-widget" not in part
        assert "Things to try" not in part
        assert "Instructor notes" not in part
        assert part.count('class="zfl-handout-figure"') == len(lesson.simulations)
        assert "On the [lesson's page]" in part


def test_headings_go_one_level_down_and_code_is_kept(lesson):
    source = _read(lesson.page)
    part = _part(lesson, "exercises")
    outside = _outside_code(part)
    assert [line for line in outside if line.startswith("# ")] == []
    title = next(line for line in _outside_code(source) if line.startswith("# "))
    assert f"#{title} {{ #{lesson.id} .zfl-handout-lesson }}" in part
    assert course.duration_html(lesson.duration) in part
    # console blocks come through unchanged, "# " lines in them included
    for block in re.findall(r"```console\n(.*?)```", source, re.S):
        if "labsim" not in block:
            assert block in part


def test_links_are_rewritten_for_the_handout_page():
    lesson = MANIFEST.lessons[0]
    page = ("# T\n\nSee [setup](../setup.md), [lesson 2](02-vdev-layouts.md#raid-z) and "
            "[the web](https://example.org/x.md).\n")
    part = handouts.lesson_markdown(page, lesson, "exercises", "handouts/storage-exercises.md")
    assert ("[setup](../setup.md), [lesson 2](../lessons/02-vdev-layouts.md#raid-z) and "
            "[the web](https://example.org/x.md)") in part


def test_a_track_page_has_its_lessons_in_order():
    for track in MANIFEST.tracks:
        text = handouts.handout_markdown(MANIFEST, track.id, "exercises", _read)
        anchors = re.findall(r"\{ #([\w-]+) \.zfl-handout-lesson \}", text)
        assert anchors == [lesson.id for lesson in MANIFEST.track_lessons(track.id)]
        assert "search:\n  exclude: true" in text.split("\n---\n", 1)[0]


def test_unknown_edition():
    with pytest.raises(ValueError, match="edition"):
        handouts.lesson_markdown("# T\n", MANIFEST.lessons[0], "answers", "handouts/x.md")
