"""What course.toml and the console blocks give every lesson in the browser: previous and next
links, the minutes under the title, and copy buttons that copy the commands alone."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import console_blocks  # noqa: E402
import course  # noqa: E402

pytestmark = pytest.mark.browser

MANIFEST = course.load()


def test_copy_buttons_copy_commands_without_prompts_or_output(page, site):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                   origin=site.rstrip("/"))
    # Lesson 2's first block (commands only) and its refused mix (a command and its error).
    lesson = next(lesson for lesson in MANIFEST.lessons if lesson.id == "02-vdev-layouts")
    blocks = [b for b in console_blocks.markdown_blocks((REPO / "docs" / lesson.page).read_text())
              if b.commands][:2]
    page.goto(site + lesson.page.removesuffix(".md") + "/")
    page.wait_for_selector(".language-console .md-code__button[data-md-type=copy]")
    for index, block in enumerate(blocks):
        code = page.locator(".language-console").nth(index)
        assert code.locator("pre").get_attribute("data-copy") is not None
        code.hover()
        code.locator(".md-code__button[data-md-type=copy]").click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == "\n".join(c.text for c in block.commands)
        assert "root@lab" not in copied
    # the second block shows an error after its command; the clipboard has the command alone
    assert blocks[1].commands[-1].output and blocks[1].commands[-1].output[0] not in copied


def test_every_lesson_links_to_the_previous_and_next_page(page, site):
    lessons = MANIFEST.lessons
    for before, lesson, after in zip(lessons, lessons[1:], lessons[2:], strict=False):
        page.goto(site + lesson.page.removesuffix(".md") + "/")
        prev = page.locator("a.md-footer__link--prev")
        nxt = page.locator("a.md-footer__link--next")
        assert before.title in prev.get_attribute("aria-label")
        assert after.title in nxt.get_attribute("aria-label")
        assert page.locator(".zfl-duration").first.is_visible()
        assert f"{lesson.duration.total} min" in page.locator(".zfl-duration").first.inner_text()
