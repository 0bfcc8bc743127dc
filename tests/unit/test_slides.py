"""The slides' extraction from a lesson page (tools/slides.py, tools/lesson_markdown.py), the
deck Marp gets, and Marp's rendering of it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import course  # noqa: E402
import mkdocs_course_hooks  # noqa: E402
import slides  # noqa: E402
from lesson_markdown import CodeBlock, console_blocks, section  # noqa: E402

LESSON = course.Lesson("09-example", "storage", "9. Example", "lessons/09-example.md",
                       (course.Simulation("pools-vdevs"),), (),
                       course.Duration(teaching=20, exercises=15, lab=10))

PAGE = '''---
title: "9. Example"
---

# 9. Example

!!! abstract "Objectives"
    By the end of this lesson you can:

    - name the first thing;
    - explain the second thing,
      over two lines.

!!! instructor "Instructor notes"
    - not an objective

## Simulation

<div class="labsim-widget" data-scenario="pools-vdevs"></div>

## Lab: the real thing

1. **files**: make the files;
2. **pool**: make the pool.

```console
# not a heading: a comment in a console block
root@lab:~# zpool list
```

=== "In the simulator"

    ```console
    $ python -m labsim labs/scripts/09-example.sh
    ```

=== "In the VM"

    ```console
    $ sudo labkit run 09-example
    ```

A second lab:

1. **copy**: copy a file;
2. **check**: check it.

```console
$ sudo labkit run 09-second
```

## Exercises

```console
root@lab:~# not a lab command
```

## Key points

!!! success "Key points"
    - One.
    - Two, with `code`.
'''


def test_extract_reads_what_a_deck_shows():
    deck = slides.extract(PAGE, LESSON)
    assert deck.title == "9. Example"
    assert deck.duration == "45 min: 20 teaching, 15 exercises, 10 lab"
    assert deck.objectives == ("name the first thing;", "explain the second thing, over two lines.")
    assert deck.key_points == ("One.", "Two, with `code`.")
    assert deck.figures == 1
    assert deck.lab == (
        slides.Steps(("files", "pool")),
        CodeBlock("", "# not a heading: a comment in a console block\nroot@lab:~# zpool list"),
        CodeBlock("In the simulator", "$ python -m labsim labs/scripts/09-example.sh"),
        CodeBlock("In the VM", "$ sudo labkit run 09-example"),
        slides.Steps(("copy", "check")),
        CodeBlock("", "$ sudo labkit run 09-second"),
    )


def test_a_comment_in_code_does_not_end_a_section():
    lab = section(PAGE, "Lab")
    assert lab is not None and "09-example.sh" in lab and "not a lab command" not in lab
    assert [b.label for b in console_blocks(lab)] == ["", "In the simulator", "In the VM", ""]


def test_a_page_without_objectives_says_so():
    page = PAGE.replace('!!! abstract "Objectives"', '!!! note "Aims"')
    with pytest.raises(slides.SlideError, match="Objectives"):
        slides.extract(page, LESSON)


def _slide_titles(deck_markdown: str) -> list[str]:
    body = deck_markdown.split("\n---\n", 1)[1]  # after the front matter
    return [re.search(r"^#{1,2} (.+)$", slide, re.M).group(1)
            for slide in body.split("\n---\n")]


def test_deck_has_a_slide_per_section():
    deck = slides.extract(PAGE, LESSON)
    text = slides.deck_markdown(deck, [slides.Figure("../../assets/figures/f.svg", "Chart: A.")],
                                "../../lessons/09-example/")
    assert text.startswith("---\nmarp: true\n")
    assert _slide_titles(text) == ["9. Example", "Objectives", "Simulation", "Key points", "Lab"]
    assert "![Chart: A. h:520](../../assets/figures/f.svg)" in text
    assert "Steps: **files** → **pool**\n\n```console\n# not a heading" in text
    assert ("In the VM:\n\n```console\n$ sudo labkit run 09-example\n```\n\n"
            "Steps: **copy** → **check**\n\n```console\n$ sudo labkit run 09-second") in text


def test_long_lists_and_labs_go_on_over_more_slides():
    items = tuple(f"point {n} " + "x" * 300 for n in range(5))
    commands = tuple(CodeBlock("", "\n".join(f"$ cmd {n}.{i}" for i in range(6)))
                     for n in range(3))
    deck = slides.Deck("x", "X", "1 min", ("one",), 0, items, commands)
    text = slides.deck_markdown(deck, [], "../")
    assert _slide_titles(text) == ["X", "Objectives", "Key points (1/3)", "Key points (2/3)",
                                   "Key points (3/3)", "Lab (1/2)", "Lab (2/2)"]
    assert [int(n) for n in re.findall(r"point (\d)", text)] == [0, 1, 2, 3, 4]
    assert [int(n) for n in re.findall(r"cmd (\d)\.0", text)] == [0, 1, 2]


def test_figures_must_match_the_widgets():
    deck = slides.extract(PAGE, LESSON)
    with pytest.raises(slides.SlideError, match="1 widgets but 0 static figures"):
        slides.deck_markdown(deck, [], "../")


@pytest.mark.parametrize("lesson", course.load().lessons, ids=lambda lesson: lesson.id)
def test_every_lesson_has_a_deck(lesson):
    source = (ROOT / "docs" / lesson.page).read_text()
    page, errors = mkdocs_course_hooks.steps_substitute(source, lesson.page)  # as the build does
    assert errors == []
    deck = slides.extract(page, lesson)
    steps = [part for part in deck.lab if isinstance(part, slides.Steps)]
    assert len(steps) == source.count("[[lab:steps:") and all(s.names for s in steps)
    assert len(deck.objectives) >= 3 and len(deck.key_points) >= 3
    assert deck.figures == len(lesson.simulations)
    assert deck.lab_commands and all(block.code for block in deck.lab_commands)
    assert not [item for item in deck.objectives + deck.key_points if "\n" in item]


def test_marp_renders_a_deck_once(tmp_path):
    deck = slides.Deck("x", "A title", "1 min", ("one", "two"), 0,
                       ("costs $5 or $6 a month",),
                       (slides.Steps(("s",)), CodeBlock("", "$ echo $HOME")))
    text = slides.deck_markdown(deck, [], "../")
    first = slides.render({"x": text}, cache=tmp_path)["x"]
    html = first.read_text()
    assert html.count('data-marpit-svg=""') == 4  # title, objectives, key points, lab
    assert "costs $5 or $6 a month" in html  # no math: Marp's $...$ would have eaten it
    assert '<html lang="en"' in html
    assert not re.search(r"""(?:src|href)=["']https?://""", html)  # nothing from a CDN
    stamp = first.stat().st_mtime_ns
    again = slides.render({"x": text}, cache=tmp_path)["x"]
    assert again == first and again.stat().st_mtime_ns == stamp
