"""Simulator versus reality on generated lab scripts (issue 15, item 2).

tools/difftest/generate.py writes random valid lab scripts from seeds; `make
record-generated` runs a batch of them on real OpenZFS in the lab VM and stores
tests/fixtures/real/<release>/generated/seed-NNNN.{sh,txt,meta.json}. Here every stored
recording is replayed through labsim in that release's mode and compared by the fidelity
tests' own comparator (transcripts.compare(): space within 1 %, per-vdev allocation within
the recorded band widened by 5 %, error texts exact; `zpool status` numbers as zero or not
where part of a vdev was overwritten), as tools/difftest/agreement.py does for `make bench`.

A script labsim is known to disagree on is listed, with the reason, in that release's
generated/known-disagreements.json ({"seed-0007": "why"}); a listed script must still
disagree (else delete it: labsim got better), and nothing else may. Only tuning seeds may
be listed: the held-out seeds are measured, never explained away, and must agree in at
least HELD_OUT_TARGET of scripts.
"""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "difftest"))

from agreement import (  # noqa: E402
    FIXTURES,
    HELD_OUT_TARGET,
    agreement,
    disagreements,
    recordings,
    seed_set,
)

GENERATED = sorted(FIXTURES.glob("*/generated"))
RECORDINGS = recordings()


def known_disagreements(release: str) -> dict[str, str]:
    path = FIXTURES / release / "generated" / "known-disagreements.json"
    return json.loads(path.read_text()) if path.exists() else {}


NO_RECORDINGS = ("no recordings of generated scripts yet: `make record-generated` stores "
                 "them in tests/fixtures/real/<release>/generated/")


def _or_skip(params: list) -> list:
    """The parameters, or one that skips saying why there are none."""
    return params or [pytest.param(None, marks=pytest.mark.skip(reason=NO_RECORDINGS))]


def test_generated_directories_hold_recordings():
    """A generated/ directory that exists holds recordings, each with the script that ran."""
    if not GENERATED:
        pytest.skip(NO_RECORDINGS)
    for directory in GENERATED:
        transcripts = list(directory.glob("seed-*.txt"))
        assert transcripts, f"{directory} exists but holds no seed-NNNN.txt"
    for recording in RECORDINGS:
        assert recording.script.exists(), f"{recording.name}: no {recording.script.name}"


@pytest.mark.parametrize("recording", _or_skip(RECORDINGS),
                         ids=lambda r: r.name if r is not None else "none")
def test_labsim_agrees_on_generated_script(recording):
    problems = disagreements(recording)
    known = known_disagreements(recording.release)
    key = f"seed-{recording.seed:04d}"
    if key in known:
        assert seed_set(recording.seed) != "held_out", \
            f"{key} is a held-out seed: it may not be listed in known-disagreements.json"
        assert problems, f"labsim agrees now; remove {key} from known-disagreements.json"
        return
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("release", _or_skip(sorted({r.release for r in RECORDINGS})))
def test_held_out_agreement_meets_the_target(release):
    rates = agreement()[release]
    held_out = rates.get("held_out")
    if held_out is None:
        pytest.skip(f"{release}: no held-out seeds recorded")
    assert held_out["rate"] >= HELD_OUT_TARGET, (
        f"{release}: labsim agrees on {held_out['agree']} of {held_out['scripts']} held-out "
        f"scripts ({held_out['rate']:.1%}), the target is {HELD_OUT_TARGET:.0%}")
