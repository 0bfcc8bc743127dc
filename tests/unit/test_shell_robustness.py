"""The whole shell under fuzzing (hypothesis) and absurd requests: no traceback, no hang (each
line has a step and a time budget), bounded memory, and a clear message when labsim stops.

A learner may type anything; labsim must answer every line as bash, the real tool, or with
its own notice, and come back promptly.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shell_fuzz import ABSURD, LINE

from labsim.shell.session import Session

# Small budgets keep each example short; the mechanism is the same at the default sizes.
STEPS, SECONDS = 3_000, 2.0


def _session() -> Session:
    session = Session()
    session.step_limit, session.time_limit = STEPS, SECONDS
    for line in ("truncate -s 128M /tmp/d0 /tmp/d1", "zpool create p /tmp/d0",
                 "zfs create p/fs", "echo hello > f", "seq 100 > g"):
        session.run(line)
    return session


def _check(session: Session, line: str) -> None:
    start = time.monotonic()
    result = session.run(line)
    elapsed = time.monotonic() - start
    assert isinstance(result.stdout, str) and isinstance(result.stderr, str), line
    assert isinstance(result.status, int) and 0 <= result.status <= 255, line
    assert "Traceback" not in result.stdout + result.stderr, line
    assert "internal error" not in result.stderr, (line, result.stderr)
    # the time budget, with room for one slow command finishing its step
    assert elapsed < SECONDS + 3.0, (line, elapsed)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(LINE, min_size=1, max_size=3))
def test_no_line_makes_a_traceback_or_hangs(lines):
    session = _session()
    for line in lines:
        _check(session, line)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_text_at_all_gets_an_answer(text):
    _check(_session(), text)




@pytest.mark.parametrize(("line", "said"), ABSURD)
def test_absurd_sizes_and_endless_loops_end_promptly_with_a_message(line, said):
    session = _session()
    tracemalloc.start()
    try:
        start = time.monotonic()
        result = session.run(line)
        elapsed = time.monotonic() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert said in result.stdout + result.stderr, (line, result)
    assert elapsed < SECONDS + 3.0, (line, elapsed)
    assert peak < 64 << 20, (line, peak)


def test_the_budget_is_per_line_and_the_status_is_bashs_for_an_interrupted_command():
    session = _session()
    session.time_limit = 60.0
    result = session.run("while :; do :; done")
    assert result.status == 130
    assert result.stderr == (f"labsim: stopped after {STEPS} steps: a command line running "
                             "more commands and loop turns is not simulated here; try it in "
                             "the lab VM (see vagrant/README.md)\n")
    assert session.run("echo $?").stdout == "130\n"
    assert session.run("for i in $(seq 100); do :; done; echo ok").stdout == "ok\n"


def test_the_time_budget_stops_a_loop_that_the_step_budget_would_let_run():
    session = _session()
    session.step_limit, session.time_limit = 10**9, 0.5
    start = time.monotonic()
    result = session.run("while :; do :; done")
    assert time.monotonic() - start < 3.0
    assert (result.stderr, result.status) == (
        "labsim: stopped after 0.5 seconds: a command line running longer on this computer is "
        "not simulated here; try it in the lab VM (see vagrant/README.md)\n", 130)


def test_sleep_moves_the_simulated_clock_without_waiting():
    session = Session()
    start = time.monotonic()
    session.run("sleep 86400")
    assert time.monotonic() - start < 1.0
    assert session.clock == Session().clock + 86400
