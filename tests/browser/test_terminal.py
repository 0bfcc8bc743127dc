"""The page terminal in headless chromium: typing before Python is ready, pasting a lesson's
block with its prompts, leaving the terminal with the keyboard, Tab completion, history,
the terminal's own help, and long usage texts paged.

Expected answers come from the same labsim in CPython (labsim.web.Bridge)."""

from __future__ import annotations

import json
import time

import pytest

from labsim.web import Bridge

pytestmark = pytest.mark.browser

LESSON = "lessons/01-pools-vdevs/"
PYTHON_TIMEOUT = 90_000
TERMINAL = ".labsim-terminal"
INPUT = f"{TERMINAL} .xterm-helper-textarea"
# A block as lesson 1 prints it, prompts and an output line included.
BLOCK = """root@lab:~# mkdir -p /var/tmp/labs
root@lab:~# truncate -s 1G /var/tmp/labs/a.raw
root@lab:~# zpool create tank /var/tmp/labs/a.raw
root@lab:~# zpool list -H -o name
tank
"""


def text(page) -> str:
    return page.evaluate(f"() => document.querySelector('{TERMINAL}').labsimTerminal.text()")


def commands(page) -> int:
    return int(page.get_attribute(TERMINAL, "data-commands") or 0)


def wait_commands(page, count: int) -> None:
    page.wait_for_function(
        f"() => Number(document.querySelector('{TERMINAL}').dataset.commands) >= {count}",
        timeout=PYTHON_TIMEOUT)


def wait_text(page, condition, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        shown = text(page)
        if condition(shown) or time.monotonic() > deadline:
            return shown
        page.wait_for_timeout(50)


def open_terminal(page, site):
    page.goto(site + LESSON)
    page.wait_for_selector(INPUT)
    page.focus(INPUT)


def python_ready(page):
    page.wait_for_function("window.labsim?.python?.state === 'ready'", timeout=PYTHON_TIMEOUT)


def test_typing_before_python_is_ready_gets_the_answer(page, site):
    held, released = [], []

    def hold(route):
        # Python cannot start until the test lets the worker's first request through.
        if released:
            route.fallback()
        else:
            held.append(route)

    page.context.route("**/assets/wheels/*", hold)
    open_terminal(page, site)
    page.keyboard.type("zpool list\n")
    page.keyboard.type("help\n")
    assert page.evaluate("window.labsim.python.state") == "loading"
    assert held, "the worker asked for nothing to hold"
    assert commands(page) == 0
    released.append(True)
    for route in held:
        route.fallback()
    wait_commands(page, 2)
    # Python started from the build's memory snapshot (tools/pyodide_snapshot.mjs)
    assert page.evaluate("window.labsim.python.bootedFrom") == "snapshot"
    shown = text(page)
    assert "root@lab:~# zpool list\n" in shown
    assert json.loads(Bridge().terminal("t", "zpool list"))["stdout"].strip() in shown
    # help comes after the answer to zpool list: the order of typing holds
    assert shown.index("no pools available") < shown.index("This terminal runs labsim")


def test_typing_into_the_box_before_the_terminal_is_drawn(page, site):
    held, released = [], []

    def hold(route):  # xterm.js comes when the test says so
        if released:
            route.fallback()
        else:
            held.append(route)

    page.context.route("**/xterm.mjs", hold)
    page.goto(site + LESSON, wait_until="domcontentloaded")
    page.locator(TERMINAL).click()
    page.keyboard.type("zpool lisx")
    page.keyboard.press("Backspace")
    page.keyboard.type("t\n")
    assert page.locator(f"{TERMINAL} .labsim-term-early").text_content() == (
        "root@lab:~# zpool list\nroot@lab:~# ")
    assert page.locator(f"{TERMINAL} .xterm").count() == 0
    released.append(True)
    for route in held:
        route.fallback()
    wait_commands(page, 1)
    shown = text(page)  # ("starting Python…" between them if it was not up yet)
    assert "root@lab:~# zpool list\n" in shown and "no pools available" in shown
    assert page.locator(f"{TERMINAL} .labsim-term-early").count() == 0
    assert page.evaluate(f"document.activeElement === document.querySelector('{INPUT}')")


def test_without_the_snapshot_python_starts_the_long_way(page, site):
    page.context.route("**/*.snapshot.gz", lambda route: route.abort("aborted"))
    open_terminal(page, site)
    page.keyboard.type("zpool list\n")
    wait_commands(page, 1)
    assert page.evaluate("window.labsim.python.bootedFrom") == "wheel"
    assert "no pools available" in text(page)


def test_a_pasted_lesson_block_runs_its_commands_without_prompts(page, site):
    open_terminal(page, site)
    python_ready(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("(t) => navigator.clipboard.writeText(t)", BLOCK)
    page.keyboard.press("Control+v")
    wait_commands(page, 4)
    shown = text(page)
    for line in ("root@lab:~# mkdir -p /var/tmp/labs",
                 "root@lab:~# zpool create tank /var/tmp/labs/a.raw",
                 "root@lab:~# zpool list -H -o name\ntank"):
        assert line in shown, shown
    assert "command not found" not in shown
    assert commands(page) == 4  # the output line "tank" in the block did not run


def test_the_keyboard_leaves_the_terminal(page, site):
    open_terminal(page, site)
    hint = page.evaluate(f"""() => {{
        const input = document.querySelector('{INPUT}');
        const hint = document.getElementById(input.getAttribute('aria-describedby'));
        return hint && hint.checkVisibility() ? hint.textContent : null; }}""")
    assert hint and "Esc then Tab" in hint
    page.keyboard.press("Tab")  # Tab alone stays: it completes
    assert page.evaluate(f"document.activeElement === document.querySelector('{INPUT}')")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate(f"document.activeElement !== document.querySelector('{INPUT}')")
    assert page.evaluate("document.activeElement.closest('.labsim-terminal') !== null")
    page.focus(INPUT)
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(f"!document.querySelector('{TERMINAL}').contains(document.activeElement)")
    # Output is read out from a live region (role=log), which the next command's output
    # replaces; it is in the accessibility tree though not on screen.
    python_ready(page)
    page.focus(INPUT)
    page.keyboard.type("echo read aloud é")
    page.keyboard.press("Enter")
    spoken = page.locator(f"{TERMINAL} [role=log][aria-live=polite]")
    spoken.filter(has_text="read aloud é").wait_for(state="attached", timeout=60_000)
    assert page.evaluate(f"""() => document.querySelector('{TERMINAL} [role=log]')
        .getBoundingClientRect().width <= 1""")


def test_tab_completes_and_the_arrows_recall(page, site):
    open_terminal(page, site)
    python_ready(page)
    for line in ("truncate -s 1G /var/tmp/a.raw", "zpool create tank /var/tmp/a.raw"):
        before = commands(page)
        page.keyboard.type(line + "\n")
        wait_commands(page, before + 1)
    page.keyboard.type("zpool sta")
    page.keyboard.press("Tab")
    wait_text(page, lambda t: t.endswith("root@lab:~# zpool status "))
    page.keyboard.type("ta")
    page.keyboard.press("Tab")
    # (one candidate: the word and a space)
    assert wait_text(page, lambda t: t.endswith("zpool status tank ")).endswith(
        "root@lab:~# zpool status tank ")
    before = commands(page)
    page.keyboard.press("Enter")
    wait_commands(page, before + 1)
    assert "pool: tank" in text(page)
    # two candidates: a second Tab lists them
    page.keyboard.type("zpool l")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert "labelclear  list" in wait_text(page, lambda t: "labelclear" in t)
    page.keyboard.press("Control+u")
    # history: Up twice is the command before the last
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    recalled = "root@lab:~# zpool create tank /var/tmp/a.raw"
    assert wait_text(page, lambda t: t.rstrip().endswith(recalled)).rstrip().endswith(recalled)


def test_help_and_a_long_usage_text_paged(page, site):
    open_terminal(page, site)
    page.keyboard.type("help\n")
    assert "Esc then Tab" in wait_text(page, lambda t: "Esc then Tab" in t)
    page.keyboard.type("man zpool\n")
    assert "man zpool: not simulated" in wait_text(page, lambda t: "zpool: not simulated" in t)
    python_ready(page)
    before = commands(page)
    page.keyboard.type("zpool\n")
    shown = wait_text(page, lambda t: "more lines" in t)
    usage = json.loads(Bridge().terminal("t", "zpool"))["stderr"].splitlines()
    assert "missing command" in shown and usage[-1] not in shown  # one screen, then the pager
    assert commands(page) == before  # the prompt waits for the pager
    page.keyboard.press(" ")
    page.keyboard.press("q")
    wait_commands(page, before + 1)
    # rows - 2 lines, a page more (rows - 1) on Space, then q: the rest is skipped
    rows = page.evaluate(f"document.querySelector('{TERMINAL}').labsimTerminal.term.rows")
    last = usage[(rows - 2) + (rows - 1) - 1]
    assert text(page).rstrip().endswith(f"{last.strip()}\nroot@lab:~#")


def test_a_command_is_answered_while_a_widget_warms_up_or_runs(page, site):
    """The worker's one Python answers the terminals and the widgets: a scenario's one-off
    work (the copies widget fills three pools, seconds in Pyodide) goes a step at a time
    between the page's calls, and a widget's run that needs it waits for it the same way,
    so a command typed meanwhile is answered before either ends (it once waited for all of
    it: 2.9 s on reaching lesson 8 by the site's link). Lesson 1's page has no copies
    widget: its worker has not built those pools."""
    race = """async (first) => {
        const order = [];
        const work = (first === 'warm' ? window.labsim.call('warm', 'copies')
            : window.labsim.call('simulate', 'copies', '{"permille": 50}'))
            .then((result) => { order.push(first); return result; });
        const answer = window.labsim.call('terminal', 't1', 'zpool list')
            .then(() => order.push('terminal'));
        const [result] = await Promise.all([work, answer]);
        return {order, result};
    }"""
    open_terminal(page, site)
    python_ready(page)
    assert page.evaluate(race, "warm")["order"] == ["terminal", "warm"]
    page.reload()  # a new worker: the pools are to be built again
    python_ready(page)
    got = page.evaluate(race, "run")
    assert got["order"] == ["terminal", "run"]
    # pools built a step at a time give the result CPython gives
    assert json.loads(got["result"]) == json.loads(
        Bridge().simulate("copies", '{"permille": 50}'))
