"""The page's shell parses with web-tree-sitter (labsim-shell-grammar.js, in the worker) and
answers as CPython's labsim does: pipes, redirections, loops, here-strings, non-ASCII text;
and it stands the fuzzing and the absurd requests the CPython shell is tested with."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shell_fuzz import ABSURD, LINE
from test_site import TERMINAL, open_lesson, run_in_terminal, terminal_text, wait_terminal

from labsim.shell.session import Session

LINES = ["echo hi | cat > f; cat f", "for i in 1 2 3; do echo n$i; done | tail -n 2",
         "x=5; echo \"$((x * 2)) é😀 $(echo sub)\"", "seq 1000 | wc -l", "ls nofile 2>&1 | wc -l",
         "cat <<< 'here string'", "[ 1 -lt 2 ] && echo yes || echo no"]


def test_the_page_runs_the_grammar_as_cpython_does(page, site):
    session = Session()
    expected = [session.run(line) for line in LINES]
    open_lesson(page, site)
    page.click(f"{TERMINAL} .xterm")
    for line, result in zip(LINES, expected, strict=True):
        run_in_terminal(page, line)
        shown = [x for x in (result.stdout + result.stderr).splitlines() if x.strip()]
        assert shown, line
        text = wait_terminal(page, lambda t, s=shown: all(x in t for x in s))
        for x in shown:
            assert x in text, (line, x, text)
    source = ("from labsim.shell.session import Session as _S\n"
              "import json as _j\n_s = _S()\n"
              f"_j.dumps([_s.run(_l).stdout for _l in {json.dumps(LINES, ensure_ascii=False)}])")
    page_out = json.loads(page.evaluate("(s) => window.labsim.call('_exec', s)", source))
    assert page_out == [r.stdout for r in expected]
    assert "root@lab:~# seq 1000 | wc -l" in terminal_text(page)


# Issue 16, item 4 in Pyodide: the worker's labsim runs the lines the CPython fuzzing draws
# and the absurd requests, with the same small budgets.
_FUZZ = """
from labsim.shell.session import Session as _S
import json as _j, time as _t
def _fuzz(lines, steps, seconds):
    s = _S()
    s.step_limit, s.time_limit = steps, seconds
    for line in ("truncate -s 128M /tmp/d0 /tmp/d1", "zpool create p /tmp/d0",
                 "zfs create p/fs", "echo hello > f", "seq 100 > g"):
        s.run(line)
    out = []
    for line in lines:
        t0 = _t.monotonic()
        r = s.run(line)
        out.append([r.stdout, r.stderr, r.status, _t.monotonic() - t0])
    return _j.dumps(out)
"""
STEPS, SECONDS = 3_000, 2.0


def _run_in_worker(page, lines: list[str]) -> list[list]:
    source = f"{_FUZZ}\n_fuzz({json.dumps(lines)}, {STEPS}, {SECONDS})"
    return json.loads(page.evaluate("(s) => window.labsim.call('_exec', s)", source))


def test_absurd_requests_end_with_their_message_in_the_page(page, site):
    open_lesson(page, site)
    lines = [line for line, _ in ABSURD]
    for (line, said), (stdout, stderr, status, seconds) in zip(
            ABSURD, _run_in_worker(page, lines), strict=True):
        assert said in stdout + stderr, (line, stdout, stderr)
        assert 0 <= status <= 255, line
        assert seconds < SECONDS + 3.0, (line, seconds)


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lines=st.lists(LINE, min_size=1, max_size=3))
def test_fuzzed_lines_get_an_answer_in_the_page_without_a_traceback(page, site, lines):
    if not page.evaluate("() => !!(window.labsim && window.labsim.call)"):
        open_lesson(page, site)
    for line, (stdout, stderr, status, seconds) in zip(
            lines, _run_in_worker(page, lines), strict=True):
        assert "Traceback" not in stdout + stderr, (line, stderr)
        assert "internal error" not in stderr, (line, stderr)
        assert 0 <= status <= 255, line
        assert seconds < SECONDS + 3.0, (line, seconds)
