"""The handouts and slides of the built site (tools/mkdocs_handout_hooks.py) open in chromium:
the exercise edition of a track has no solution text, the solutions edition has every one,
the figures are the lessons' static SVGs and fit the printed page; a lesson's deck has a slide
per section; the instructor view of a lesson links them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import course  # noqa: E402
import slides  # noqa: E402

MANIFEST = course.load()
TRACK = "storage"
LESSON = "01-pools-vdevs"

IMAGES_LOADED = """() => Promise.all([...document.querySelectorAll('.zfl-handout-figure img')]
    .map(img => { img.loading = 'eager'; return img.decode().then(() => img.naturalWidth); }))"""


def _solution_texts(page, site: str) -> list[str]:
    page.goto(f"{site}handouts/{TRACK}-solutions/")
    return page.locator(".admonition.solution, .admonition.answer").evaluate_all(
        """nodes => nodes.map(n => [...n.children].filter(c => !c.matches('.admonition-title'))
                                    .map(c => c.textContent).join(' ').trim())""")


def test_solutions_edition_shows_every_solution(page, site):
    lessons = MANIFEST.track_lessons(TRACK)
    sources = "".join((REPO / "docs" / lesson.page).read_text() for lesson in lessons)
    texts = _solution_texts(page, site)
    assert len(texts) == len(re.findall(r"^\?\?\? (?:solution|answer)\b", sources, re.M))
    assert all(len(text) > 40 for text in texts)
    assert page.locator(".admonition.solution").first.is_visible()  # open, not folded
    assert page.locator("details.solution, details.answer").count() == 0


def test_exercise_edition_has_no_solution_text(page, site):
    texts = _solution_texts(page, site)
    page.goto(f"{site}handouts/{TRACK}-exercises/")
    lessons = MANIFEST.track_lessons(TRACK)
    assert page.locator("h2.zfl-handout-lesson").count() == len(lessons)
    assert page.locator(".solution, .answer, .instructor, .labsim-terminal").count() == 0
    assert page.locator(".admonition.example").count() > len(lessons)  # the exercises
    content = page.locator(".md-content").evaluate("n => n.textContent.replace(/\\s+/g, ' ')")
    shown = [text for text in texts if " ".join(text.split())[:80] in content]
    assert shown == []
    widths = page.evaluate(IMAGES_LOADED)
    assert len(widths) == sum(len(lesson.simulations) for lesson in lessons)
    assert all(width > 0 for width in widths)
    # No simulation's controls, no quiz buttons (a handout's quizzes are questions on paper).
    assert page.locator(".labsim-ui, .zfl-quiz input, .zfl-quiz-reset").count() == 0
    # In print: the figures within the page's width.
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 700, "height": 900})
    overflow = page.evaluate("""() => [...document.querySelectorAll('.zfl-handout-figure img')]
        .filter(img => img.getBoundingClientRect().right >
                       document.querySelector('.md-content').getBoundingClientRect().right + 1)
        .length""")
    assert overflow == 0


def _titles(deck_markdown: str) -> list[str]:
    body = deck_markdown.split("\n---\n", 1)[1]
    return [re.search(r"^#{1,2} (.+)$", part, re.M).group(1) for part in body.split("\n---\n")]


def test_slides_have_a_slide_per_section(page, site):
    lesson = next(lesson for lesson in MANIFEST.lessons if lesson.id == LESSON)
    deck = slides.extract((REPO / "docs" / lesson.page).read_text(), lesson)
    source = page.request.get(f"{site}slides/{LESSON}/slides.md")
    assert source.ok
    titles = _titles(source.text())
    page.goto(f"{site}slides/{LESSON}/")
    assert page.title() == deck.title
    shown = page.locator("section h1, section h2").all_text_contents()
    assert shown == titles
    assert page.locator("svg[data-marpit-svg]").count() == len(titles)
    sections = [re.sub(r" \(\d+/\d+\)$", "", title) for title in titles]
    assert sections[0] == deck.title
    assert sorted(set(sections[1:])) == ["Key points", "Lab", "Objectives", "Simulation"]
    assert sections.count("Simulation") == deck.figures
    items = page.locator("section li").all_text_contents()
    assert len(items) == len(deck.objectives) + len(deck.key_points)
    # (Marp shows a code block as <marp-pre>, which scales it down to fit the slide)
    assert page.locator("section :is(pre, marp-pre)").count() == len(deck.lab_commands)
    widths = page.locator("section img").evaluate_all(
        "imgs => Promise.all(imgs.map(img => img.decode().then(() => img.naturalWidth)))")
    assert len(widths) == deck.figures and all(width > 0 for width in widths)


def test_instructor_view_links_the_slides_and_handouts(page, site):
    page.goto(f"{site}lessons/{LESSON}/?view=student")
    assert not page.locator(".zfl-teaching").is_visible()
    page.goto(f"{site}lessons/{LESSON}/?view=instructor")
    links = page.locator(".zfl-teaching a")
    assert page.locator(".zfl-teaching").is_visible()
    hrefs = links.evaluate_all("links => links.map(a => a.href)")
    assert hrefs == [f"{site}slides/{LESSON}/", f"{site}handouts/{TRACK}-exercises/",
                     f"{site}handouts/{TRACK}-solutions/"]
    for href in hrefs:
        assert page.request.get(href).ok, href
