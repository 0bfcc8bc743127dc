"""Every lesson page can be read in the time the course gives it: no page carries more than
tools/prose_words.LIMIT (2,800) words of prose (issue 17, item 7). The counter leaves out what
a reader does not read as prose (code, markup, admonition titles) and counts the lab's step list
as the page shows it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import prose_words  # noqa: E402

LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))


@pytest.mark.parametrize("page", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_page_is_no_longer_than_the_limit(page):
    words = prose_words.count(page.read_text(), prose_words.site_expand(page.name))
    assert words <= prose_words.LIMIT, (
        f"{page.name} has {words} words of prose, more than {prose_words.LIMIT}: split it "
        "along a seam into two lessons (course.toml), or cut repetition")


def test_what_counts_as_prose():
    page = """---
title: "Front matter is not counted"
---

# One two

!!! note "An admonition title is not counted"
    Three four five.

```console
root@lab:~# zpool list none of this counts
```

Six `zpool list -v` [[zfs:2.3:metaslab_aliquot|iec]] ++up++ seven [eight](not/counted.md).

<div class="labsim-widget" data-scenario="x" data-params='{"a": 1}'></div>

| nine | ten |
|---|---:|
| eleven | `twelve thirteen` |
"""
    # words: One two | Three four five | Six CODE VALUE KEY seven eight | nine ten | eleven CODE
    assert prose_words.count(page) == 2 + 3 + 6 + 2 + 2


def test_the_lab_step_list_counts_as_the_page_shows_it():
    text = "Its steps:\n\n[[lab:steps:01-pools-vdevs]]\n"
    expanded = prose_words.count(text, prose_words.site_expand("x.md"))
    assert expanded > prose_words.count(text) + 20


def test_an_unknown_lab_is_an_error_not_a_short_page():
    with pytest.raises(ValueError, match="nope"):
        prose_words.count("[[lab:steps:nope]]", prose_words.site_expand("x.md"))
