"""The model probes of issue 15 (tools/probes/model/*.sh) through labsim against their
recordings on real OpenZFS: tests/fixtures/probes/model/<release>/<probe>.txt, further runs
of the same probe as <probe>.runN.txt. Compared by the lab transcripts' comparator
(transcripts.py: space within 1 %, per-vdev ALLOC within the recorded band widened by 5 %,
error texts exact, `zpool status` and `zpool import` listings exact but for what a
simulator cannot know: dates, durations and random guids), plus, word for word, every
command that printed nothing or an error on every real run.
"""

from pathlib import Path

import pytest
from transcripts import compare, parse

from labsim import Session, run_script
from labsim.shell.session import transcript
from labsim.zfs.versions import get_version

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "tools" / "probes" / "model"
FIXTURES = ROOT / "tests" / "fixtures" / "probes" / "model"
RECORDED = sorted(p for p in FIXTURES.glob("*/*.txt") if ".run" not in p.name)

# Differences labsim is known to have, by (release, probe): the start of each problem line
# and why. A listed gap must still show, and nothing else may.
KNOWN_GAPS: dict[tuple[str, str], dict[str, str]] = {}


def simulate(script: Path, release: str) -> str:
    session = Session(version=get_version(".".join(release.split(".")[:2])))
    return transcript(run_script(script.read_text(), session))


def _runs(fixture: Path) -> list[str]:
    return [p.read_text() for p in
            [fixture, *sorted(fixture.parent.glob(f"{fixture.stem}.run*.txt"))]]


def test_the_rename_import_probe_is_recorded():
    assert any(p.stem == "lab15-rename-import" for p in RECORDED)


@pytest.mark.parametrize("fixture", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_labsim_matches_the_probe_recordings(fixture):
    script = PROBES / f"{fixture.stem}.sh"
    assert script.exists(), f"{fixture} has no probe {script}"
    runs = _runs(fixture)
    simulated = simulate(script, fixture.parent.name)
    problems = compare(runs, simulated)
    # What compare() does not look at: commands every run answered the same way with
    # nothing, or with an error, must be answered so by labsim too.
    real_blocks = [parse(run) for run in runs]
    for index, block in enumerate(parse(simulated)):
        outputs = {blocks[index].output for blocks in real_blocks}
        if len(outputs) == 1:
            (real,) = outputs
            if (real == "" or real.startswith(("cannot ", "rm: ", "mv: "))) \
                    and block.output != real:
                problems.append(f"command {index + 1} `{block.command}`: real printed "
                                f"{real!r}, labsim {block.output!r}")
    known = KNOWN_GAPS.get((fixture.parent.name, fixture.stem), {})
    unexpected = [p for p in problems if not any(p.startswith(k) for k in known)]
    gone = [k for k in known if not any(p.startswith(k) for p in problems)]
    assert not unexpected, "\n".join(unexpected)
    assert not gone, f"labsim no longer differs here; remove from KNOWN_GAPS: {gone}"


def test_the_comparator_sees_a_wrong_import_listing():
    """The listing is compared (not skipped for its 2.3 headings): a device shown ONLINE
    where real OpenZFS could not open it is a problem."""
    fixture = FIXTURES / "2.3.9" / "lab15-rename-import.txt"
    simulated = simulate(PROBES / "lab15-rename-import.sh", "2.3.9")
    broken = simulated.replace("lab15r-renamed.raw  UNAVAIL  cannot open",
                               "lab15r-renamed.raw  ONLINE", 1)
    assert broken != simulated
    assert any("zpool import -d /var/tmp/labs`" in p for p in compare(_runs(fixture), broken))
