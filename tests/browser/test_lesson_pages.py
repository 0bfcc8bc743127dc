"""Every lesson page in headless chromium: each widget shows its scenario's embedded result,
re-runs in Python when a control changes, and the lesson's terminal answers its own first
session the way labsim does. (test_site.py covers the page machinery in depth on lesson 1.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labsim.web import Bridge, initial_payload

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs"
LESSONS = sorted(p.stem for p in (DOCS / "lessons").glob("*.md"))
PYTHON_TIMEOUT = 90_000


def widgets_of(markdown: str) -> list[tuple[str, dict]]:
    found = []
    for tag in re.findall(r'<div class="labsim-widget"[^>]*>', markdown):
        scenario = re.search(r'data-scenario="([^"]+)"', tag).group(1)
        params = re.search(r"data-params='([^']*)'", tag)
        found.append((scenario, json.loads(params.group(1)) if params else {}))
    return found


def terminals_of(markdown: str) -> list[dict[str, str]]:
    """Each terminal's data-* attributes (session, prompt, network, host, setup), in order."""
    return [dict(re.findall(r'data-([a-z]+)="([^"]*)"', tag))
            for tag in re.findall(r'<div class="labsim-terminal"[^>]*>', markdown)]


def first_session(markdown: str) -> list[str]:
    """The commands of the console block that follows the page's first terminal: the lines
    that start with that terminal's prompt."""
    prompt = terminals_of(markdown)[0]["prompt"]
    after = markdown.split('class="labsim-terminal"', 1)[1]
    block = re.search(r"```console\n(.*?)```", after, re.S).group(1)
    return [line[len(prompt):] for line in block.splitlines() if line.startswith(prompt)]


def bridge_args(markdown: str) -> tuple[str, str, str]:
    """(network, host, hosts) as the page's glue passes them to Bridge.terminal for the first
    terminal: the hosts of its network in page order, with their setup lines."""
    terminals = terminals_of(markdown)
    first = terminals[0]
    network = first.get("network", "")
    if not network:
        return "", "", ""
    hosts = [[t["host"], t.get("setup", "")] for t in terminals if t.get("network") == network]
    return network, first["host"], json.dumps(hosts)


def traces(figure: dict) -> list[dict]:
    return [{"name": t.get("name"), "x": list(t.get("x", [])), "y": list(t.get("y", []))}
            for t in json.loads(json.dumps(figure["data"]))]


def plotted(page, index: int) -> list[dict]:
    return page.evaluate("""i => document.querySelectorAll('.labsim-widget .labsim-chart')[i].data
        .map(t => ({name: t.name ?? null, x: Array.from(t.x ?? []), y: Array.from(t.y ?? [])}))""",
                         index)


def test_every_lesson_has_a_widget_and_a_terminal():
    assert LESSONS
    for name in LESSONS:
        text = (DOCS / "lessons" / f"{name}.md").read_text()
        assert widgets_of(text), name
        assert first_session(text), name


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_page_widgets_and_terminal(page, site, results_dir, lesson):
    text = (DOCS / "lessons" / f"{lesson}.md").read_text()
    page.goto(f"{site}lessons/{lesson}/")
    widgets = widgets_of(text)
    page.wait_for_selector(".labsim-widget .labsim-chart .main-svg")
    assert page.locator(".labsim-widget").count() == len(widgets)
    for index, (scenario, params) in enumerate(widgets):
        payload = initial_payload(scenario, params or None)
        assert plotted(page, index) == traces(payload["result"]["figure"]), scenario
    page.wait_for_selector(".labsim-widget[data-state=ready]", timeout=PYTHON_TIMEOUT)

    # change a control of the first widget (its last slider, else its last select) to the
    # other end of its range or options, and compare the new chart with CPython's
    scenario, _ = widgets[0]
    controls = initial_payload(scenario)["describe"]["controls"]
    widget = page.locator(".labsim-widget").first
    before = int(widget.get_attribute("data-renders") or 0)
    current_params = widget.evaluate("el => el.labsimWidget.params")
    sliders = [c for c in controls if c["kind"] == "range"]
    if sliders:
        control = sliders[-1]
        current = current_params[control["name"]]
        target = control["max"] if current != control["max"] else control["min"]
        widget.locator(f"input[name='{control['name']}']").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('change', {bubbles: true})) }",
            str(target))
    else:
        control = next(c for c in reversed(controls) if c["kind"] == "select")
        values = [o[0] if isinstance(o, list) else o.get("value", o) if isinstance(o, dict)
                  else o for o in control["options"]]
        index = len(values) - 1 if current_params[control["name"]] != values[-1] else 0
        target = values[index]
        widget.locator(f"select[name='{control['name']}']").select_option(str(index))
    page.wait_for_function(
        f"() => Number(document.querySelector('.labsim-widget').dataset.renders) > {before}",
        timeout=PYTHON_TIMEOUT)
    page.wait_for_selector(".labsim-widget[data-state=ready]")
    params = widget.evaluate("el => el.labsimWidget.params")
    assert params[control["name"]] == target
    expected = json.loads(Bridge().simulate(scenario, json.dumps(params)))
    assert plotted(page, 0) == traces(expected["figure"])
    assert widget.locator(".labsim-summary").text_content() == expected["summary"]
    widget.scroll_into_view_if_needed()
    page.screenshot(path=results_dir / f"{lesson}-widget.png")

    # the terminal: the page's own first session, answered as labsim answers it
    bridge = Bridge()
    terminal = page.locator(".labsim-terminal").first
    terminal.locator(".xterm").click()
    replies = []
    for line in first_session(text):
        count = int(terminal.get_attribute("data-commands") or 0)
        page.keyboard.type(line)
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => Number(document.querySelector('.labsim-terminal').dataset.commands) > {count}",
            timeout=PYTHON_TIMEOUT)
        replies.append(json.loads(bridge.terminal("expected", line, *bridge_args(text))))
    shown = page.evaluate(
        "() => document.querySelector('.labsim-terminal').labsimTerminal.text()")
    last = next(r for r in reversed(replies) if (r["stdout"] + r["stderr"]).strip())
    for out_line in (last["stdout"] + last["stderr"]).splitlines():
        if out_line.strip():  # a terminal shows a tab as spaces up to the next tab stop
            expected = out_line.expandtabs(8).rstrip()
            assert expected in shown, f"{expected!r} not in the terminal:\n{shown}"
    assert all(r["status"] == 0 for r in replies), replies
    terminal.scroll_into_view_if_needed()
    terminal.screenshot(path=results_dir / f"{lesson}-terminal.png")
