"""Cheap host checks of tools/fresh-machine.sh (the fresh-root run itself is
`make fresh-machine SUITE=...`, as root): it parses, and its --help and argument checks work
without root and without touching anything."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "fresh-machine.sh"


def test_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_help():
    done = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True,
                          check=True, timeout=30)
    assert done.stdout.startswith("Usage: tools/fresh-machine.sh [--keep]")
    assert "bookworm|trixie [make target, default test-host]" in done.stdout
    assert "test-host" in done.stdout and "test-results/fresh-machine/" in done.stdout


def test_refuses_an_unknown_suite_before_doing_anything():
    done = subprocess.run(["bash", str(SCRIPT), "sid"], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 2
    assert "bookworm or trixie" in done.stderr


def test_makefile_target_runs_it():
    makefile = (ROOT / "Makefile").read_text()
    assert "fresh-machine:" in makefile
    assert "bash tools/fresh-machine.sh $(SUITE)" in makefile
