"""`make bundle`'s archive works on its own: unpacked into an empty folder, its serve.py serves
the course, and a lesson's terminal runs a command in the browser (Pyodide from that server)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import open_page
from test_site import TERMINAL, assert_shown, run_in_terminal, wait_terminal

from labsim.web import Bridge

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import bundle  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("bundle")
    bundle.build_site(work / "site")
    archive = bundle.write_bundle(work / "site", work / "course.zip")
    target = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        assert {"zfs-field-labs/serve.py", "zfs-field-labs/README.txt",
                "zfs-field-labs/site/index.html"} <= set(names)
        assert all(n.startswith("zfs-field-labs/") for n in names)
        zf.extractall(target)
    return target / "zfs-field-labs"


def test_the_unpacked_archive_serves_a_working_terminal(browser, unpacked):
    server = subprocess.Popen([sys.executable, "serve.py", "--port", "0"], cwd=unpacked,
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        context, page, watch = open_page(browser, url)
        try:
            page.goto(url + "lessons/01-pools-vdevs/")
            page.click(f"{TERMINAL}")
            page.wait_for_selector(f"{TERMINAL} .xterm")
            page.click(f"{TERMINAL} .xterm")
            line = "zpool create tank /var/tmp/nowhere.raw"
            run_in_terminal(page, line)
            reply = json.loads(Bridge().terminal("t", line))
            text = wait_terminal(page, lambda t: reply["stderr"].strip() in t)
            assert_shown(text, reply)
            wasm = [r for r in watch.requests if r.endswith(".wasm")]
            assert wasm and all(r.startswith(url) for r in wasm)
        finally:
            context.close()
        watch.check()
    finally:
        server.terminate()
        server.wait(timeout=10)
