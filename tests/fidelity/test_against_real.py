"""Simulator versus reality: each lab script, run through labsim, must agree with the
transcript recorded on real OpenZFS in the lab VM (`make record-real`).

Tolerances (see transcripts.py): SIZE/FREE/USED/AVAIL/REFER within 1 %, per-vdev ALLOC
within 5 %, error texts identical. Where labsim misses, fix the model, not the tolerance.
"""

from pathlib import Path

import pytest
from transcripts import compare

from labsim import Session, run_script
from labsim.shell.session import transcript
from labsim.zfs.versions import get_version

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "labs" / "scripts"
FIXTURES = ROOT / "tests" / "fixtures" / "real"
# <zfs release>/<script>.txt, and further recordings of the same script as <script>.runN.txt
RECORDED = sorted(p for p in FIXTURES.glob("*/*.txt") if ".run" not in p.name)
# Labs whose `zpool status` numbers depend on which blocks a dd hit, which real allocation
# decides: compared as zero or not zero (transcripts.compare(presence=True)).
PRESENCE_ONLY = {"08-copies"}


def simulate(script: Path, zfs_release: str) -> str:
    major_minor = ".".join(zfs_release.split(".")[:2])
    session = Session(version=get_version(major_minor))
    return transcript(run_script(script.read_text(), session))


def test_every_lab_script_has_a_real_transcript():
    recorded = {path.stem for path in RECORDED}
    missing = [s.name for s in SCRIPTS.glob("*.sh") if s.stem not in recorded]
    assert not missing, f"record these on real OpenZFS with `make record-real`: {missing}"


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_labsim_matches_real_openzfs(fixture):
    script = SCRIPTS / f"{fixture.stem}.sh"
    assert script.exists(), f"{fixture} has no script {script}"
    runs = [fixture, *sorted(fixture.parent.glob(f"{fixture.stem}.run*.txt"))]
    problems = compare([run.read_text() for run in runs],
                       simulate(script, fixture.parent.name),
                       presence=fixture.stem in PRESENCE_ONLY)
    assert not problems, "\n".join(problems)
