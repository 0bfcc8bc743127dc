"""A lesson without JavaScript, in print and on a phone.

Without JavaScript each widget shows its chart as the SVG the site build drew from the same
figure (tools/static_figures.py), each terminal shows the lesson's first session with labsim's
output (tools/terminal_transcripts.py), and "Things to try" (it names controls that are not
there) is left out. In print the figures fit the page and controls and terminals are left out.
On a 390 px phone the chart stays in view while a control below it changes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_lesson_pages import LESSONS, bridge_args, first_session, widgets_of

from labsim.web import Bridge, initial_payload
from labsim.zfs.versions import DEFAULT_VERSION

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs"
LESSON = "01-pools-vdevs"
PYTHON_TIMEOUT = 90_000


@pytest.fixture
def no_js_page(browser, site):
    context = browser.new_context(java_script_enabled=False,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"HTTP {r.status} {r.url}"))
    # (with scripts off, chromium refuses the <head>'s module preloads: "csp")
    page.on("requestfailed", lambda r: r.failure != "csp" and failed.append(f"{r.url} {r.failure}"))
    yield page
    context.close()
    assert not failed, failed


def _visible(page, selector: str) -> list[bool]:
    found = page.locator(selector)
    return [found.nth(i).is_visible() for i in range(found.count())]


def _svg_text(page, url: str) -> str:
    response = page.request.get(url)
    assert response.ok, url
    assert response.headers["content-type"].startswith("image/svg+xml"), response.headers
    return response.text()


def _figure_texts(figure: dict) -> list[str]:
    """The title and the trace names, as plotly writes them into the SVG's <text>."""
    layout = figure.get("layout", {})
    title = layout.get("title")
    title = title.get("text", "") if isinstance(title, dict) else (title or "")
    words = [w for w in re.split(r"<br>|\s+", title) if w]
    names = [t["name"] for t in figure.get("data", [])
             if t.get("name") and t.get("showlegend", True)]
    return words + names


def test_lesson_without_javascript(no_js_page, site, results_dir):
    page = no_js_page
    text = (DOCS / "lessons" / f"{LESSON}.md").read_text()
    page.goto(f"{site}lessons/{LESSON}/")

    # the chart: the build's SVG of the lesson's first result, loaded and shown
    image = page.locator(".labsim-widget .labsim-static img")
    assert image.count() == 1 and image.is_visible()
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")
    svg = _svg_text(page, image.evaluate("img => img.src"))
    (scenario, params), = widgets_of(text)
    result = initial_payload(scenario, params or None)["result"]
    from xml.sax.saxutils import escape
    for word in _figure_texts(result["figure"]):
        assert f">{escape(word)}" in svg or f" {escape(word)}" in svg, word
    caption = page.locator(".labsim-static figcaption").inner_text()
    assert result["summary"].strip().splitlines()[0] in caption
    assert page.locator(".labsim-ui, .labsim-controls").count() == 0  # no dead controls

    # the terminal: the lesson's first session, each command with labsim's output
    static = page.locator(".labsim-terminal .labsim-term-static")
    assert static.is_visible()
    shown = static.locator("pre").inner_text()
    bridge = Bridge()
    prompt = 'root@lab:~# '
    for command in first_session(text):
        assert f"{prompt}{command}" in shown
        reply = json.loads(bridge.terminal("expected", command, *bridge_args(text)))
        for line in (reply["stdout"] + reply["stderr"]).splitlines():
            assert line in shown, line
    assert f"OpenZFS {DEFAULT_VERSION.release}" in static.locator("p").inner_text()
    background = page.locator(".labsim-terminal").evaluate(
        "el => getComputedStyle(el).backgroundColor")
    assert background in ("rgba(0, 0, 0, 0)", "transparent"), "an empty black box"

    # "Things to try" names the widget's controls: not there without them
    assert page.locator(".zfl-needs-js").count() == 1
    assert not page.locator(".zfl-needs-js").is_visible()
    assert not page.get_by_text("Things to try").is_visible()
    page.locator(".labsim-widget").scroll_into_view_if_needed()
    page.screenshot(path=results_dir / "no-js-widget.png")


def test_every_lesson_without_javascript(no_js_page, site):
    """Every widget has its static chart and every terminal its stand-in; nothing hidden by
    the page's own "Things to try" marking is left over."""
    page = no_js_page
    for lesson in LESSONS:
        page.goto(f"{site}lessons/{lesson}/")
        images = page.locator(".labsim-static img")
        assert images.count() == page.locator(".labsim-widget").count() >= 1, lesson
        page.wait_for_function("() => [...document.images].every(i => i.complete)")
        assert all(images.evaluate_all("imgs => imgs.map(i => i.naturalWidth > 0)")), lesson
        assert all(_visible(page, ".labsim-static img")), lesson
        terminals = page.locator(".labsim-terminal")
        assert page.locator(".labsim-terminal .labsim-term-static").count() == terminals.count()
        assert all(_visible(page, ".labsim-term-static")), lesson
        assert page.locator(".labsim-term-static pre").count() >= 1, lesson
        assert page.get_by_text("Things to try").count() >= 1, lesson
        assert not any(_visible(page, ".zfl-needs-js")), lesson
        assert page.locator(".zfl-needs-js").count() == 1, lesson


def _box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def test_print_view(page, site, results_dir):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site}lessons/{LESSON}/")
    page.wait_for_selector(".labsim-widget[data-renders] .labsim-chart .main-svg")
    page.wait_for_selector(".labsim-terminal .xterm")
    # on screen, the live chart has replaced the static one
    assert not page.locator(".labsim-static").is_visible()
    assert page.locator(".labsim-chart").is_visible()

    # A4 at 96 px per inch, less chromium's default print margins (about 1 cm each side)
    page.set_viewport_size({"width": 718, "height": 1000})
    page.emulate_media(media="print")
    figure = page.locator(".labsim-static img")
    assert figure.is_visible()
    box = figure.bounding_box()
    content = _box(page, ".md-content")
    assert box["width"] > 300
    assert box["x"] >= content["x"] - 1
    assert box["x"] + box["width"] <= content["x"] + content["width"] + 1
    assert box["x"] + box["width"] <= 718
    for hidden in (".labsim-controls", ".labsim-chart", ".labsim-bar", ".labsim-terminal",
                   ".zfl-release", ".zfl-needs-js"):
        assert not any(_visible(page, hidden)), hidden
    assert page.locator(".labsim-static figcaption").is_visible()
    page.locator(".labsim-widget").scroll_into_view_if_needed()
    page.screenshot(path=results_dir / "print-widget.png")
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")


def test_phone_chart_stays_in_view_while_a_control_changes(page, site, results_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site}lessons/{LESSON}/")
    widget = page.locator(".labsim-widget")
    page.wait_for_selector(".labsim-widget[data-renders] .labsim-chart .main-svg")
    page.wait_for_selector(".labsim-widget[data-state=ready]", timeout=PYTHON_TIMEOUT)
    # the last control, as a reader reaches it: scrolled up to the foot of the screen
    control = widget.locator(".labsim-control:not([hidden])").last
    control.evaluate("el => el.scrollIntoView({block: 'end'})")
    field = control.locator("select, input").first
    before = int(widget.get_attribute("data-renders"))
    if field.evaluate("el => el.tagName") == "SELECT":
        options = field.locator("option").count()
        current = field.evaluate("el => el.selectedIndex")
        field.select_option(index=(current + 1) % options)
    else:
        field.click()
    page.wait_for_function(
        f"() => Number(document.querySelector('.labsim-widget').dataset.renders) > {before}",
        timeout=PYTHON_TIMEOUT)
    chart = page.locator(".labsim-chart").bounding_box()
    header = _box(page, ".md-header")
    changed = control.bounding_box()
    assert chart["y"] >= header["y"] + header["height"] - 1, (chart, header)
    # Boxes are in fractional CSS pixels and the page's text above the widget decides the
    # fractions: a pixel's slack, as for the edges above, not a hidden control.
    assert chart["y"] + chart["height"] <= 844 + 1, chart
    assert changed["y"] >= chart["y"] + chart["height"] - 1, "the chart hides the control"
    assert changed["y"] + changed["height"] <= 844 + 1, changed
    page.screenshot(path=results_dir / "phone-widget.png")
