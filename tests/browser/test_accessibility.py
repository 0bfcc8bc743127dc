"""axe-core (npm, devDependency; loaded from node_modules into the tested page only, never part
of the site) on every page of the site: no serious or critical violation, in the light scheme
with JavaScript (every page, each reached by instant navigation as a reader moves, with its
widgets drawn and its terminals open), in the dark scheme and without JavaScript (a lesson).
And the charts' mode bar offers nothing that sends data off the machine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
FAILING = ("serious", "critical")
LESSON = "lessons/01-pools-vdevs/"


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"no {AXE}: run `npm install` (axe-core is a devDependency)")
    return AXE.read_text()


def site_pages(page, site: str) -> list[str]:
    """Every page of the built site, from its sitemap."""
    sitemap = page.request.get(f"{site}sitemap.xml").text()
    return re.findall(r"<loc>([^<]+)</loc>", sitemap)


def settled(page) -> None:
    """The page's simulations are there: widgets drawn, terminals open."""
    page.wait_for_function("""() =>
        [...document.querySelectorAll('.labsim-widget')].every(w => w.dataset.renders) &&
        [...document.querySelectorAll('.labsim-terminal')].every(t => t.querySelector('.xterm'))""")


def go(page, url: str) -> None:
    """Follow a link to url, as a reader does (instant navigation swaps the page's content)."""
    page.evaluate("() => document.querySelector('.md-content').dataset.left = 'yes'")
    page.evaluate("""url => { const a = Object.assign(document.createElement('a'), {href: url});
                              document.body.append(a); a.click(); a.remove(); }""", url)
    page.wait_for_function("""url => location.href.split('#')[0] === url &&
        !document.querySelector('.md-content')?.dataset.left""", arg=url)


def violations(page, axe_source: str) -> list[str]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source)
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                               nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))""")
    return [f"{v['impact']} {v['id']}: {v['help']} ({'; '.join(v['nodes'])})"
            for v in found if v["impact"] in FAILING]


def test_axe_on_every_page(page, site, axe_source):
    page.goto(site)
    pages = site_pages(page, site)
    assert f"{site}{LESSON}" in pages and len(pages) >= 15, pages
    report = {}
    for url in pages:
        go(page, url)
        settled(page)
        report[url] = violations(page, axe_source)
    failing = {url: found for url, found in report.items() if found}
    assert not failing, "\n".join(f"{url}\n  " + "\n  ".join(found)
                                   for url, found in failing.items())


@pytest.mark.parametrize("path", ["", LESSON, "lessons/w1-wireguard-peers/"])
def test_axe_dark_scheme(dark_page, site, axe_source, path):
    dark_page.goto(f"{site}{path}")
    settled(dark_page)
    assert dark_page.evaluate("() => document.body.dataset.mdColorScheme") == "slate"
    assert violations(dark_page, axe_source) == []


def test_axe_without_javascript(browser, site, axe_source):
    """The lesson as a browser without JavaScript shows it: its HTML without its scripts.
    (axe.run never finishes in a context with JavaScript off: its timers do not run.)"""
    context = browser.new_context()
    try:
        page = context.new_page()
        url = f"{site}{LESSON}"
        html = page.request.get(url).text()
        without = re.sub(r"<script\b.*?</script>", "", html, flags=re.S | re.I)
        page.route(url, lambda route: route.fulfill(body=without, content_type="text/html"))
        page.goto(url)
        assert page.evaluate("() => document.documentElement.className") == "no-js"
        assert page.locator(".labsim-static img").is_visible()
        assert page.locator(".labsim-term-static").is_visible()
        assert violations(page, axe_source) == []
    finally:
        context.close()


def test_chart_mode_bar_sends_nothing_away(page, site):
    page.goto(f"{site}{LESSON}")
    page.wait_for_selector(".labsim-widget[data-renders] .labsim-chart .modebar")
    page.hover(".labsim-chart")
    context = page.evaluate("""() => { const c = document.querySelector('.labsim-chart')._context;
        return {cloud: c.showSendToCloud, server: c.plotlyServerURL}; }""")
    assert context == {"cloud": False, "server": ""}
    titles = page.locator(".labsim-chart .modebar-btn").evaluate_all(
        "bs => bs.map(b => b.getAttribute('data-title') || '')")
    assert titles and "Download plot as a PNG" in titles, titles
    assert not [t for t in titles if re.search(r"share|cloud|studio|edit", t, re.I)], titles
    assert page.locator(".labsim-chart .modebar a[href]").count() == 0
