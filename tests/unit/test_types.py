"""mypy over sim/ (the settings are sim/pyproject.toml's [tool.mypy]), so that pytest alone
catches a type error as `make test` does."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sim_type_checks():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "sim/pyproject.toml"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
