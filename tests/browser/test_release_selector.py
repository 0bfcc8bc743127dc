"""The OpenZFS release selector in headless chromium: shown on the ZFS lessons (and only rendered
by JavaScript), not on the WireGuard ones; choosing a release re-runs lesson 1's widget as that
release, keeps the widget's own release control in step, gives the ZFS terminals a fresh machine
of it, and is remembered across instant navigation and reloads; it fits a 390 px phone.
Expected answers come from labsim.web.Bridge in CPython."""

from __future__ import annotations

import json
import re

import pytest

from labsim.scenarios import controls
from labsim.web import Bridge, initial_payload, release_choices
from labsim.zfs.versions import DEFAULT_VERSION, TAUGHT_VERSIONS, get_version

pytestmark = pytest.mark.browser

LESSON = "lessons/01-pools-vdevs/"
SCENARIO = "pools-vdevs"
OTHER_LESSON = "lessons/02-vdev-layouts/"
WIREGUARD = "lessons/w1-wireguard-peers/"
PYTHON_TIMEOUT = 90_000
KEY = "zfl:zfs-version:v1"
PICKER = ".zfl-release select"
WIDGET = f".labsim-widget[data-scenario='{SCENARIO}']"
RELEASE = controls.ZFS_VERSION


def zfs_version_line(name: str) -> str:
    """The first line of `zfs version` on a machine of release ``name``, as labsim prints it."""
    reply = json.loads(Bridge().terminal("t", "zfs version", zfs_version=name))
    return reply["stdout"].splitlines()[0]


def terminal_text(page) -> str:
    return page.evaluate("() => document.querySelector('.labsim-terminal').labsimTerminal.text()")


def run_in_terminal(page, line: str) -> str:
    terminal = page.locator(".labsim-terminal").first
    before = int(terminal.get_attribute("data-commands") or 0)
    terminal.locator(".xterm").click()
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => Number(document.querySelector('.labsim-terminal').dataset.commands) > {before}",
        timeout=PYTHON_TIMEOUT)
    return terminal_text(page)


def widget_params(page) -> dict:
    return page.eval_on_selector(WIDGET, "el => el.labsimWidget.params")


def renders(page) -> int:
    return int(page.get_attribute(WIDGET, "data-renders") or 0)


def wait_renders(page, more_than: int) -> None:
    page.wait_for_function(
        f"() => Number(document.querySelector(\"{WIDGET}\").dataset.renders) > {more_than}",
        timeout=PYTHON_TIMEOUT)
    page.wait_for_selector(f"{WIDGET}[data-state=ready]", timeout=PYTHON_TIMEOUT)


def chart_title(page) -> str:
    return page.eval_on_selector(
        f"{WIDGET} .labsim-chart", "el => el.layout.title.text ?? el.layout.title")


def plotted(page) -> list[dict]:
    return page.eval_on_selector(f"{WIDGET} .labsim-chart", """el => el.data
        .map(t => ({name: t.name ?? null, x: Array.from(t.x ?? []), y: Array.from(t.y ?? [])}))""")


def traces(figure: dict) -> list[dict]:
    return [{"name": t.get("name"), "x": list(t.get("x", [])), "y": list(t.get("y", []))}
            for t in json.loads(json.dumps(figure["data"]))]


def assert_widget_runs(page, name: str) -> None:
    """Lesson 1's widget shows CPython's result for its parameters, which name ``name``."""
    params = widget_params(page)
    assert params[RELEASE] == name
    expected = json.loads(Bridge().simulate(SCENARIO, json.dumps(params)))
    assert plotted(page) == traces(expected["figure"])
    assert page.text_content(f"{WIDGET} .labsim-summary") == expected["summary"]
    assert f"OpenZFS {name} " in chart_title(page)
    assert page.locator(f"{WIDGET} select[name='{RELEASE}'] option:checked").text_content() == name


def wait_note(page, text: str) -> str:
    page.wait_for_function(
        "t => document.querySelector('.labsim-terminal').labsimTerminal.text().includes(t)",
        arg=text)
    return terminal_text(page)


# ----- tests --------------------------------------------------------------------------------

def test_selector_is_on_zfs_lessons_only(page, site):
    page.goto(site + LESSON)
    picker = page.get_by_label("OpenZFS release", exact=True)
    picker.wait_for()
    assert picker.evaluate("el => el.matches('.zfl-release select')")
    options = page.locator(f"{PICKER} option").all_text_contents()
    assert options == [v.name for v in TAUGHT_VERSIONS] == [n for n, _ in
                                                              release_choices()["versions"]]
    assert picker.input_value() == DEFAULT_VERSION.name
    assert DEFAULT_VERSION.release in page.text_content(".zfl-release")
    # under the title, before the lesson's first section
    assert page.evaluate("""() => {
        const picker = document.querySelector('.zfl-release');
        const h1 = document.querySelector('.md-content h1');
        const h2 = document.querySelector('.md-content h2');
        return Boolean(h1.compareDocumentPosition(picker) & Node.DOCUMENT_POSITION_FOLLOWING)
            && Boolean(picker.compareDocumentPosition(h2) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    # reachable with the keyboard: Tab from the title's permalink lands on it
    page.focus(".md-content h1 a.headerlink")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == picker.get_attribute("id")

    page.goto(site + OTHER_LESSON)  # a lesson with a ZFS terminal and no release control
    page.wait_for_selector(PICKER)
    page.goto(site + WIREGUARD)
    page.wait_for_selector(".labsim-terminal .xterm")
    assert page.locator(".zfl-release").count() == 0


def test_without_javascript_there_is_no_dead_control(browser, site):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site + LESSON)
        slot = page.locator(".zfl-release")
        assert slot.count() == 1  # the site build's empty, hidden place for it
        assert not slot.is_visible()
        assert page.locator(".zfl-release select").count() == 0
    finally:
        context.close()


def test_the_embedded_chart_stands_in_until_python_is_ready(page, site):
    # Python never starts here: the chart is the embedded one, for the default release.
    page.route("**/javascripts/labsim-worker.js",
               lambda route: route.fulfill(body="/* held back by the test */",
                                           content_type="text/javascript"))
    page.goto(site + LESSON)
    page.wait_for_selector(f"{WIDGET} .main-svg")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [KEY, "2.1"])
    page.reload()
    page.wait_for_selector(f"{WIDGET} .main-svg")
    assert page.input_value(PICKER) == "2.1"
    assert widget_params(page)[RELEASE] == "2.1"
    payload = initial_payload(SCENARIO)
    assert payload["describe"]["defaults"][RELEASE] == DEFAULT_VERSION.name
    assert plotted(page) == traces(payload["result"]["figure"])
    note = page.locator(f"{WIDGET} .labsim-note")
    assert note.is_visible()
    assert note.text_content() == (f"The chart shows OpenZFS {DEFAULT_VERSION.name} until Python "
                                   "is ready to run 2.1.")


def test_choosing_a_release_reruns_widgets_and_terminals(page, site, results_dir):
    page.goto(site + LESSON)
    page.wait_for_selector(f"{WIDGET}[data-state=ready]", timeout=PYTHON_TIMEOUT)
    first = zfs_version_line(DEFAULT_VERSION.name)
    assert first in run_in_terminal(page, "zfs version")

    # the page's selector: the widget runs as 2.1, the terminal gets a fresh 2.1 machine
    count = renders(page)
    page.get_by_label("OpenZFS release", exact=True).select_option("2.1")
    wait_renders(page, count)
    assert_widget_runs(page, "2.1")
    assert page.locator(f"{WIDGET} .labsim-note").is_hidden()
    assert page.evaluate(f"localStorage.getItem('{KEY}')") == "2.1"
    assert f"OpenZFS {get_version('2.1').release}," in page.text_content(".zfl-release")
    text = wait_note(page, "OpenZFS 2.1 now: a fresh machine")
    assert first in text  # the screen stays: the learner can compare
    assert zfs_version_line("2.1") == "zfs-2.1.11-1"
    assert "zfs-2.1.11-1\nzfs-kmod-2.1.11-1\n" in run_in_terminal(page, "zfs version")
    assert "no pools available" in run_in_terminal(page, "zpool list")  # a fresh machine

    # the widget's own release control drives the page's selector, and the terminal
    count = renders(page)
    page.select_option(f"{WIDGET} select[name='{RELEASE}']", label="2.2")
    wait_renders(page, count)
    assert_widget_runs(page, "2.2")
    assert page.input_value(PICKER) == "2.2"
    assert f"OpenZFS {get_version('2.2').release}," in page.text_content(".zfl-release")
    assert page.evaluate(f"localStorage.getItem('{KEY}')") == "2.2"
    wait_note(page, "OpenZFS 2.2 now: a fresh machine")
    assert zfs_version_line("2.2") in run_in_terminal(page, "zfs version")
    # a release the selector does not offer (the source posts' 0.6.5) stays the widget's own
    control = next(c for c in initial_payload(SCENARIO)["describe"]["controls"]
                   if c["name"] == RELEASE)
    extras = [o for o in control["options"] if o not in {v.name for v in TAUGHT_VERSIONS}]
    if extras:
        count = renders(page)
        page.select_option(f"{WIDGET} select[name='{RELEASE}']", label=extras[0])
        wait_renders(page, count)
        assert widget_params(page)[RELEASE] == extras[0]
        assert page.input_value(PICKER) == "2.2"
        assert page.evaluate(f"localStorage.getItem('{KEY}')") == "2.2"

    count = renders(page)
    page.get_by_label("OpenZFS release", exact=True).select_option("2.1")
    wait_renders(page, count)
    assert_widget_runs(page, "2.1")
    page.locator(".zfl-release").scroll_into_view_if_needed()
    page.screenshot(path=results_dir / "release-selector-desktop.png")

    # instant navigation to another lesson: the same choice, and its terminal runs it
    page.evaluate("window.__notReloaded = 'yes'")
    # Lesson 1's terminal is marked: the URL can change before the new lesson's content
    # replaces the old, and a command typed into the old terminal would never be counted
    # by the new one (the fresh-machine run of 721e611 timed out that way once).
    page.eval_on_selector(".labsim-terminal", "el => { el.dataset.lessonOne = 'yes'; }")
    page.locator(f".md-nav--primary a[href$='{OTHER_LESSON.split('/')[1]}/']").first.click()
    page.wait_for_url(re.compile(rf".*/{re.escape(OTHER_LESSON)}(#.*)?$"))
    page.wait_for_function("() => { const t = document.querySelector('.labsim-terminal');"
                           " return t && !t.dataset.lessonOne; }", timeout=PYTHON_TIMEOUT)
    page.wait_for_selector(PICKER)
    assert page.evaluate("window.__notReloaded") == "yes", "instant navigation reloaded the page"
    assert page.input_value(PICKER) == "2.1"
    assert zfs_version_line("2.1") in run_in_terminal(page, "zfs version")

    # a full reload of lesson 1: the choice is still there, and the widget runs it
    page.goto(site + LESSON)
    page.wait_for_selector(PICKER)
    assert page.input_value(PICKER) == "2.1"
    page.wait_for_function(
        f"() => Number(document.querySelector(\"{WIDGET}\").dataset.renders) >= 2",
        timeout=PYTHON_TIMEOUT)  # the embedded chart, then 2.1 from Python
    page.wait_for_selector(f"{WIDGET}[data-state=ready]", timeout=PYTHON_TIMEOUT)
    assert_widget_runs(page, "2.1")
    assert zfs_version_line("2.1") in run_in_terminal(page, "zfs version")

    # "Reset to lesson defaults" keeps the reader's release
    count = renders(page)
    page.select_option(f"{WIDGET} select[name='file_mib']", "0")
    wait_renders(page, count)
    count = renders(page)
    page.click(f"{WIDGET} .labsim-reset")
    wait_renders(page, count)
    assert_widget_runs(page, "2.1")
    assert widget_params(page) == {**initial_payload(SCENARIO)["describe"]["defaults"],
                                   RELEASE: "2.1"}


def test_selector_on_a_phone(page, site, results_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(site + LESSON)
    picker = page.locator(PICKER)
    picker.wait_for()
    assert picker.is_visible()
    box = page.locator(".zfl-release").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    label = page.locator(".zfl-release label").bounding_box()
    assert label["y"] == pytest.approx(picker.bounding_box()["y"], abs=12)  # label beside it
    page.screenshot(path=results_dir / "release-selector-phone.png")
