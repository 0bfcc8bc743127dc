"""Issue 18's acceptance, end to end on this machine's Incus (marker `incus`): `workshop up 3`
brings up three learner containers, each runs a network lab for real and reports its checks,
signed, to an instructor server on the host; the instructor's live page in Debian chromium
shows the three pseudonymous learners passing every check as the results arrive (pushed, no
reload); the workshop's data is deleted from the page; `workshop down` leaves Incus (instances,
profiles, networks, storage volumes) and the host's nftables chains as they were.

Everything goes through the command lines an instructor types (`python -m instructor create`
and `serve`, `python3 tools/workshop up` and `down`) and the one a learner types in their
container (`netkit run LAB --report-to`). The server listens on the host's address on the
workshop's bridge, the only address the containers reach it at.

Skips, saying why, as tests/workshop/test_incus_workshop.py does (no Incus, not root, no learner
image). About 2 minutes on the 2-core build machine, most of it `up` and `down`.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from incus_support import REPO, ready, snapshot
from workshop import engine, plan

sys.path.insert(0, str(REPO / "labs"))
sys.path.insert(0, str(REPO))

import netkit  # noqa: E402
from chromium import CHROMIUM, launch  # noqa: E402

from instructor import store  # noqa: E402

pytestmark = pytest.mark.incus

WORKSHOP = "zfle2e"                 # the Incus side: bridge, profile, zfl-zfle2e-01...
SERVER_WORKSHOP = "zfl-e2e-test"    # the instructor server's workshop id
SUBNET = "10.231.79.1/24"
HOST = SUBNET.split("/")[0]         # the host on the workshop's bridge
LEARNERS = 3
LAB = "01-wg-peers"
MEMORY = "768MiB"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    filter(None, [str(REPO), str(REPO / "labs"), os.environ.get("PYTHONPATH")]))}
# Bounds of each wait (s): each is several times what it takes on the build machine.
UP_TIMEOUT = 300
LAB_TIMEOUT = 120
PAGE_TIMEOUT = 60
DOWN_TIMEOUT = 180


def command(args: list[str], timeout: float, what: str) -> subprocess.CompletedProcess:
    """Run ARGS; fails the test, saying what and with its output, if it exits non-zero or
    outlives TIMEOUT."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=ENV,
                              cwd=REPO)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"{what}: no end in {timeout} s\n{err.stdout}\n{err.stderr}")
    if done.returncode != 0:
        pytest.fail(f"{what}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def workshop(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return command([sys.executable, str(REPO / "tools" / "workshop"), *args,
                    "--workshop", WORKSHOP], timeout, f"workshop {args[0]}")


def instructor(db: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return command([sys.executable, "-m", "instructor", "--db", str(db), *args], timeout,
                   f"instructor {args[0]}")


def free_port() -> int:
    """A port free on every address of the host (the bridge's address does not exist yet)."""
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return sock.getsockname()[1]


@contextmanager
def serving(db: Path, port: int) -> Iterator[str]:
    """`python -m instructor serve` on the bridge's address; its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "instructor", "--db", str(db), "serve", "--host", HOST,
         "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=ENV, cwd=REPO)
    try:
        line = process.stdout.readline()   # printed once it listens
        if " on http://" not in line:
            process.kill()
            pytest.fail(f"instructor serve did not start: {line}{process.stderr.read()}")
        yield line.split(" on ")[-1].strip().rstrip("/")
    finally:
        process.terminate()
        process.wait(timeout=10)


def run_lab(instance: str) -> subprocess.CompletedProcess:
    """What a learner types in their container's terminal: the lab for real, its checks
    reported to the workshop file's server."""
    return command(["incus", "--force-local", "exec", instance, "--", "sh", "-c",
                    f"cd /labs && python3 -m netkit run {LAB} -q --report-to"],
                   LAB_TIMEOUT, f"netkit run {LAB} in {instance}")


# Whether every (learner, step) given has a passed cell on the page.
ALL_PASSED = """([learners, steps]) => {
  const passed = new Set([...document.querySelectorAll("#grid td.pass")]
    .map((td) => `${td.dataset.learner}\\u0000${td.dataset.step}`));
  return learners.every((l) => steps.every((s) => passed.has(`${l}\\u0000${s}`)));
}"""


def learners_pass_on_the_live_page(url: str, live_path: str, db: Path, incus,
                                   instances: list[str], pseudonyms: list[str],
                                   steps: list[str]) -> None:
    """The instructor's live page open in chromium while the learners run the lab: each
    learner's checks appear as passed, pushed to the page; the export has them; the page
    deletes the workshop's data."""
    from playwright.sync_api import TimeoutError as PageTimeout
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("console", lambda m: m.type == "error" and problems.append(
            f"console: {m.text} @ {m.location}"))
        page.on("response", lambda r: r.status >= 400 and problems.append(
            f"HTTP {r.status}: {r.request.method} {r.url}"))
        page.set_default_timeout(PAGE_TIMEOUT * 1000)
        page.goto(url + live_path)
        page.wait_for_selector("#status.live")
        page.evaluate("window.__samePage = true")
        assert page.locator("#grid tbody tr").count() == 0   # nothing reported yet

        with ThreadPoolExecutor(LEARNERS) as pool:
            runs = list(pool.map(run_lab, instances))
        for instance, run in zip(instances, runs, strict=True):
            assert f"{len(steps)} of {len(steps)} checks passed" in run.stdout, (
                instance, run.stdout)
            assert f"report: {len(steps)} sent" in run.stderr, (instance, run.stderr)

        try:
            page.wait_for_function(ALL_PASSED, arg=[pseudonyms, steps],
                                   timeout=PAGE_TIMEOUT * 1000)
        except PageTimeout:
            rows = store.latest(store.connect(db), SERVER_WORKSHOP)
            pytest.fail(f"the live page did not show {pseudonyms} passing {steps} in "
                        f"{PAGE_TIMEOUT} s; it shows "
                        f"{page.locator('#summary').inner_text()!r}; the server has "
                        f"{[(r.learner, r.step, r.passed) for r in rows]}")
        assert page.evaluate("window.__samePage === true")   # pushed, not reloaded
        assert page.locator("#summary").inner_text() == (
            f"{LEARNERS} learner(s), {len(steps)} step(s), {LEARNERS * len(steps)} passed")

        memory = engine.usage(incus, WORKSHOP)
        limit = int(MEMORY.removesuffix("MiB")) * 2**20
        assert sorted(m.pseudonym for m in memory) == sorted(pseudonyms)
        assert all(0 < m.cgroup_bytes < limit and m.pss_bytes > 0 for m in memory)
        print("\nper learner (cgroup / PSS MiB): " + ", ".join(
            f"{m.pseudonym} {m.cgroup_bytes / 2**20:.0f} / {m.pss_bytes / 2**20:.0f}"
            for m in memory))

        exported = page.request.get(url + page.get_attribute("#export", "href")).text()
        assert sorted(line.split(",")[:4] for line in exported.splitlines()[1:]) == sorted(
            [p, LAB, step, "pass"] for p in pseudonyms for step in steps)

        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#delete")
        page.wait_for_selector("#status:text('this workshop\\'s data was deleted')")
        assert page.locator("#grid tbody tr").count() == 0
        assert not problems, problems
        browser.close()


def test_three_learners_pass_a_lab_on_the_live_page_and_down_leaves_nothing(tmp_path):
    incus, _box = ready()
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: `make test` installs Debian's chromium")
    started = time.monotonic()
    engine.down(incus, WORKSHOP, log=lambda _: None)      # what a crashed earlier run left
    before = snapshot(incus)
    db = tmp_path / "instructor.sqlite"
    port = free_port()
    made = instructor(db, "create", SERVER_WORKSHOP, "--url", f"http://{HOST}:{port}").stdout
    key = re.search(r'^\s*key = "([^"]+)"$', made, re.M).group(1)
    live_path = re.search(r"^\s*http://\S+(/w/\S+)$", made, re.M).group(1)
    pseudonyms = plan.pseudonyms(LEARNERS, 0, WORKSHOP)
    steps = [check.name for check in netkit.load(LAB).checks]
    try:
        up = workshop("up", str(LEARNERS), "--report-url", f"http://{HOST}:{port}",
                      "--instructor-workshop", SERVER_WORKSHOP, "--key", key,
                      "--subnet", SUBNET, "--ssh-base", "12300", "--jupyter-base", "18900",
                      "--memory", MEMORY, timeout=UP_TIMEOUT).stdout
        for pseudonym in pseudonyms:
            assert f"{pseudonym} (zfl-{WORKSHOP}-" in up
        instances = engine.workshop_instances(incus, WORKSHOP)
        assert len(instances) == LEARNERS
        with serving(db, port) as url, ThreadPoolExecutor(1) as apart:
            # Playwright's sync API in a thread of its own: in the whole suite this thread
            # drives the browser tests' Playwright already (tests/browser/conftest.py), and
            # its loop refuses a second one here.
            apart.submit(learners_pass_on_the_live_page, url, live_path, db, incus,
                         instances, pseudonyms, steps).result()
        assert store.workshop(store.connect(db), SERVER_WORKSHOP) is None
        assert store.count(store.connect(db), SERVER_WORKSHOP) == 0
    finally:
        down = workshop("down", timeout=DOWN_TIMEOUT).stdout
    assert f"workshop {WORKSHOP}: removed {LEARNERS + 2} things" in down, down
    assert snapshot(incus) == before
    print(f"up, {LAB} in {LEARNERS} learners, live page, delete, down: "
          f"{time.monotonic() - started:.0f} s")
