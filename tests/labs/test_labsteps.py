"""labsteps, the step format labkit and netkit share: both read every script of the course
into the same steps, differing only where they must (a command before the first marker is an
error for labkit, a host's set-up for netkit), and a verdict becomes the same StepResult."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

LABS_DIR = Path(__file__).resolve().parents[2] / "labs"
sys.path.insert(0, str(LABS_DIR))

import netkit  # noqa: E402

import labkit  # noqa: E402
from labsteps import StepResult, first_stray_line, sections  # noqa: E402

SCRIPTS = sorted((LABS_DIR / "scripts").glob("*.sh")) + sorted(
    p for p in (LABS_DIR / "net").glob("*/*.sh"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_both_kits_read_a_script_into_the_same_steps(script):
    text = script.read_text()
    assert first_stray_line(text) is None  # every command of the course is in a step
    assert [(name, lines) for name, _title, lines in labkit.split_steps(text)] == (
        netkit.steps(text))


def test_a_command_before_the_first_step_is_an_error_for_labkit_a_set_up_for_netkit():
    text = "ip link\n# step up: bring it up\nip link set wg0 up\n"
    with pytest.raises(labkit.LabError, match="line 1: command 'ip link' comes before"):
        labkit.split_steps(text)
    assert netkit.steps(text) == [("", ["ip link"]), ("up", ["ip link set wg0 up"])]


def test_the_format_marks_steps_and_leaves_comments_out():
    text = ("ip link\n# a comment\n  # step keys:  make the keys \nwg genkey\n\n"
            "# step up: bring it up\nip link set wg0 up # expect-fail\n")
    assert sections(text)[0].lines == ("ip link",)
    assert [(s.name, s.title) for s in sections(text)[1:]] == [("keys", "make the keys"),
                                                               ("up", "bring it up")]
    assert sections(text)[2].lines == ("ip link set wg0 up # expect-fail",)
    assert first_stray_line(text) == (1, "ip link")
    assert first_stray_line(text.split("\n", 1)[1]) is None


def test_a_verdict_and_an_outcome_become_step_results():
    lab = labkit.load_lab("01-pools-vdevs")
    step = lab.steps[0]
    check = step.checks[0]
    failed = labkit.Verdict(step, ((check, "'nothing'"),)).result(lab.name)
    assert failed == StepResult(lab.name, step.name, False,
                                f"expected {check.what} ({check.expectation()}), got 'nothing'")
    assert labkit.Verdict(step, ()).result(lab.name) == StepResult(lab.name, step.name, True)
    assert StepResult.from_dict(failed.as_dict()) == failed
    topology = netkit.load("01-wg-peers")
    ping = topology.checks[0]
    outcome = netkit.Outcome(ping, False, "failure", "1 packets transmitted, 0 received")
    assert outcome.result("01-wg-peers") == StepResult(
        "01-wg-peers", ping.name, False,
        f"{ping.describe()}: failure (1 packets transmitted, 0 received)")
