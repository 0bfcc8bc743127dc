"""The page's shell parses with web-tree-sitter (labsim-shell-grammar.js, in the worker) and
answers as CPython's labsim does: pipes, redirections, loops, here-strings, non-ASCII text."""

from __future__ import annotations

import json

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
