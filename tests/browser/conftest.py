"""Fixtures for the browser tests: build the site once, serve it locally, drive Debian chromium.

Every page opened through the `page` fixture fails its test on any console error, uncaught page
error, failed local request or request to another origin (those are aborted and recorded).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
# The expected answers come from the same labsim the site build packs, run here in CPython.
sys.path.insert(0, os.environ.get("LABSIM_SRC") or str(REPO / "sim" / "src"))

from chromium import CHROMIUM, launch  # noqa: E402
from static_server import free_port, start  # noqa: E402

RESULTS = REPO / "test-results"


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Iterator[str]:
    """Build the site with `mkdocs build --strict` and serve it; yields the base URL."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: `make test` installs Debian's chromium")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    site_dir = tmp_path_factory.mktemp("site")
    # site_url must be where the site is served, or instant navigation falls back to reloads.
    env = {**os.environ, "SITE_URL": url, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "--site-dir", str(site_dir)],
        cwd=REPO, env=env, capture_output=True, text=True)
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout}\n{build.stderr}"
    server, served = start(site_dir, port)
    assert served == url
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


@dataclass
class Watch:
    """What a page did that a test must not tolerate."""

    origin: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def check(self) -> None:
        assert not self.foreign, f"requests to other origins: {self.foreign}"
        assert not self.errors, "errors in the page:\n" + "\n".join(self.errors)


def open_page(browser, site: str, *, color_scheme: str = "light"):
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  color_scheme=color_scheme, service_workers="block")
    watch = Watch(origin=site.rstrip("/"))

    def route(route):
        url = route.request.url
        if url.startswith(watch.origin + "/") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            watch.foreign.append(url)
            route.abort()

    def console(message, where="page"):
        if message.type == "error":
            watch.errors.append(f"console.error ({where}): {message.text} @ {message.location}")

    def worker(w):
        w.on("console", lambda m: console(m, f"worker {w.url}"))

    def failed(request):
        # ERR_ABORTED: cancelled by a navigation (or a foreign request aborted above).
        if request.url.startswith(watch.origin) and "ERR_ABORTED" not in (request.failure or ""):
            watch.errors.append(f"request failed: {request.url} ({request.failure})")

    def response(resp):
        if resp.status >= 400:
            watch.errors.append(f"HTTP {resp.status}: {resp.url}")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", console)
    page.on("pageerror", lambda error: watch.errors.append(f"page error: {error}"))
    page.on("worker", worker)
    page.on("requestfailed", failed)
    page.on("response", response)
    page.on("request", lambda request: watch.requests.append(request.url))
    page.set_default_timeout(30_000)
    return context, page, watch


@pytest.fixture
def page(browser, site):
    context, page, watch = open_page(browser, site)
    page.watch = watch
    yield page
    context.close()
    watch.check()


@pytest.fixture
def dark_page(browser, site):
    context, page, watch = open_page(browser, site, color_scheme="dark")
    yield page
    context.close()
    watch.check()


@pytest.fixture(scope="session")
def results_dir() -> Path:
    RESULTS.mkdir(exist_ok=True)
    return RESULTS
