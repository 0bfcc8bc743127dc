"""pytest imports test modules by their base name (rootdir import mode): two test files of
one name in different folders fail the whole run at collection, as tests/unit/test_bundle.py
and tests/browser/test_bundle.py once did. Each name once."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_module_name_is_unique():
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if "node_modules" not in p.parts)
    assert [n for n, c in names.items() if c > 1] == []
