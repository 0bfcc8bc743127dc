"""The bands the lessons quote from real recordings are the bands in the fixtures.

Real OpenZFS splits a write between vdevs differently from run to run (the allocation
throttle), so lessons 1 and 3 quote the range over every recording of a step rather than one
number. Recording the lab again adds a run (tests/fixtures/real/<release>/<lab>.runN.txt);
this test then names the sentence that has to follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
LESSONS = ROOT / "docs" / "lessons"
MiB = 1 << 20
COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
               8: "eight", 9: "nine", 10: "ten"}


def runs(release: str, lab: str) -> list[str]:
    return [p.read_text() for p in sorted((REAL / release).glob(f"{lab}*.txt"))
            if re.fullmatch(rf"{re.escape(lab)}(\.run\d+)?\.txt", p.name)]


def vdev_alloc(transcript: str, command: str, nth: int, leaf: str) -> int:
    """ALLOC of ``leaf`` in the ``nth`` (1-based) output of ``command`` (zpool list -vp)."""
    blocks = transcript.split("\n$ ")
    outputs = [b for b in blocks if b.startswith(command + "\n")]
    for line in outputs[nth - 1].splitlines():
        if line.split() and line.split()[0].endswith(leaf):
            return int(line.split()[2])
    raise AssertionError(f"no row for {leaf} in output {nth} of {command}")


def band(values: list[float]) -> tuple[int, int]:
    return round(min(values)), round(max(values))


def test_lesson_1_quotes_the_recorded_split_of_the_three_files():
    recorded = runs("2.3.9", "01-pools-vdevs")
    large = [vdev_alloc(t, "zpool list -vp lab1", 2, "lab1-a.raw") / MiB for t in recorded]
    small = [vdev_alloc(t, "zpool list -vp lab1", 2, "lab1-b.raw") / MiB for t in recorded]
    text = " ".join((LESSONS / "01-pools-vdevs.md").read_text().split())
    lo, hi = band(large)
    slo, shi = band(small)
    expected = (f"put {lo} to {hi} MiB on the large vdev and {slo} to {shi} MiB on the small one "
                f"({COUNT_WORDS[len(recorded)]} recordings)")
    assert expected in text


@pytest.mark.parametrize("release", ["2.3.9", "2.1.11"])
def test_lesson_3_quotes_the_recorded_share_of_the_small_vdev(release):
    recorded = runs(release, "03-metaslabs")
    taken = [vdev_alloc(t, "zpool list -vp lab3", 1, "lab3-a.raw") / MiB for t in recorded]
    lo, hi = band(taken)
    text = " ".join((LESSONS / "03-metaslabs.md").read_text().split())
    assert f"{lo} to {hi} MiB" in text and COUNT_WORDS[len(recorded)] in text
    sentence = re.search(rf"{lo} to {hi} MiB\b[^.]*? in (\w+) [^.]*?on {re.escape(release)}", text)
    assert sentence and sentence.group(1) == COUNT_WORDS[len(recorded)], (release, lo, hi)
