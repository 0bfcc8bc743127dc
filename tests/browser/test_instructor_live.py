"""The instructor's live page in Debian chromium: a result a learner posts appears in the
learners × steps table without a reload (Server-Sent Events), and the page loads nothing
from another origin."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "instructor"))

from conftest import open_page  # noqa: E402
from instructor_support import result, running, signed_post  # noqa: E402


def test_a_posted_step_appears_on_the_live_page_without_reload(browser, tmp_path):
    with running(tmp_path / "w.sqlite") as server:
        signed_post(server, [result("files", True)], learner="learner-01")
        context, page, watch = open_page(browser, server.url)
        try:
            page.goto(f"{server.url}/w/{server.workshop.id}?token={server.workshop.admin}")
            page.wait_for_selector("#status.live")
            cell = 'td[data-learner="{}"][data-step="{}"]'
            page.wait_for_selector(cell.format("learner-01", "files") + ".pass")  # snapshot
            page.evaluate("window.__samePage = true")
            signed_post(server, [result("pool", False)], learner="learner-02")
            page.wait_for_selector(cell.format("learner-02", "pool") + ".fail")
            signed_post(server, [result("pool", True)], learner="learner-02")
            page.wait_for_selector(cell.format("learner-02", "pool") + ".pass")
            assert page.evaluate("window.__samePage === true")  # no reload
            assert page.locator("#summary").inner_text() == (
                "2 learner(s), 2 step(s), 2 passed")
        finally:
            context.close()
        watch.check()
