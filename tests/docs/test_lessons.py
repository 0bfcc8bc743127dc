"""Every lesson page follows the course template (see docs/contributing.md), and the
course's prose is its own: no run of ten words copied from the source posts."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))
SEEDS = ROOT.parent / "shared" / "seeds"
WORD = re.compile(r"[a-z0-9']+")


def front_matter(text: str) -> dict[str, str]:
    if not text.startswith("---\n"):
        return {}
    block = text[4:text.index("\n---", 4)]
    return dict(line.split(":", 1) for line in block.splitlines() if ":" in line)


def test_there_are_lessons():
    assert LESSONS, "docs/lessons/ has no lesson pages"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_every_part_of_the_template(path):
    text = path.read_text()
    meta = front_matter(text)
    assert meta.get("title"), "front matter needs a title"
    # (its minutes are in course.toml: tests/docs/test_course.py)
    required = {
        "objectives": r'^!!! abstract "Objectives"',
        "instructor notes": r"^!!! instructor ",
        "a simulation widget": r'<div class="labsim-widget" data-scenario="[\w-]+"'
                               r"( data-params='[^']*')?></div>",
        "a terminal": r'<div class="labsim-terminal" data-session="[\w-]+"',
        "exercises": r"^## Exercises",
        "a collapsible solution": r'^\?\?\? solution "',
        "key points": r'^!!! success "Key points"',
        "sources": r"^## Sources",
    }
    for part, pattern in required.items():
        assert re.search(pattern, text, re.M), f"{path.name} lacks {part}"
    exercises = len(re.findall(r'^!!! example "Exercise', text, re.M))
    solutions = len(re.findall(r'^\?\?\? solution "', text, re.M))
    assert exercises == solutions, "every exercise has exactly one solution"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_scenario_named_by_the_page_exists(path):
    from labsim.scenarios import SCENARIOS

    for name in re.findall(r'data-scenario="([\w-]+)"', path.read_text()):
        assert name in SCENARIOS


def prose_words(text: str) -> list[str]:
    """Words outside code blocks and console lines (commands and outputs may be shared)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and not line.lstrip().startswith(("$", "#!", "root@", "    ")):
            kept.append(line)
    return WORD.findall(" ".join(kept).lower())


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source posts (../shared/seeds) are not here")
def test_no_ten_word_run_is_copied_from_the_source_posts():
    n = 10
    source = set()
    for seed in SEEDS.glob("*.txt"):
        words = WORD.findall(seed.read_text(errors="ignore").lower())
        source.update(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
    pages = sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "labs").glob("*.ipynb"))
    copied = []
    for page in pages:
        words = prose_words(page.read_text(errors="ignore"))
        copied += [(page.name, " ".join(words[i:i + n])) for i in range(len(words) - n + 1)
                   if " ".join(words[i:i + n]) in source]
    assert not copied, f"rewrite in the course's own words: {copied[:5]}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_quiz_is_closed_before_the_next_opens(path):
    """A quiz is a `<div class="zfl-quiz">` block that ends with its own `</div>`: one left
    open swallows what follows (the next quiz, a lab's tabs) on the page and in the
    handouts."""
    depth, opened_at = 0, 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith('<div class="zfl-quiz"'):
            assert depth == 0, (f"{path.name}:{number}: quiz opened inside the one of "
                                f"line {opened_at}")
            depth, opened_at = 1, number
        elif line.strip() == "</div>" and depth:
            depth = 0
    assert depth == 0, f"{path.name}:{opened_at}: quiz never closed"
