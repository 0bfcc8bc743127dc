"""The page terminal's text helpers (docs/javascripts/labsim-terminal-text.js), run in Node:
what a paste types, completion lists in columns, the long usage texts that are paged."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[2] / "docs" / "javascripts" / "labsim-terminal-text.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="no node (the site build needs it)")


def as_esm(module: Path) -> Path:
    """The module as an .mjs copy: Node 18 (Debian 12) loads a .js file outside a
    "type": "module" package as CommonJS, so its `export`s fail to parse; newer Node
    detects the syntax. The page's modules import nothing relative, so a copy works."""
    copy = Path(tempfile.gettempdir()) / f"zfl-{os.getpid()}-{module.stem}.mjs"
    if not copy.exists() or copy.read_bytes() != module.read_bytes():
        copy.write_bytes(module.read_bytes())
    return copy


def call(function: str, *args):
    """``function(*args)`` of the module, in Node, through JSON."""
    script = (f"import * as m from {json.dumps(as_esm(MODULE).as_uri())};\n"
              f"console.log(JSON.stringify(m.{function}(...{json.dumps(args)})));")
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


PROMPT = "root@lab:~# "


def test_a_lesson_block_runs_its_commands_and_skips_their_output():
    block = ("root@lab:~# zpool list -H -o name\n"
             "tank\n"
             "root@lab:~# zfs list\n"
             "NAME   USED  AVAIL  REFER  MOUNTPOINT\n")
    assert call("pastedLines", block, PROMPT) == ["zpool list -H -o name", "zfs list", ""]


def test_other_hosts_prompts_and_continued_lines():
    block = "  root@alice:~# wg set wg0 \\\n    peer KEY\nroot@bob:~# wg show\n"
    assert call("pastedLines", block, "root@bob:~# ") == ["wg set wg0     peer KEY", "wg show",
                                                           ""]


def test_text_without_prompts_is_typed_as_it_is():
    assert call("pastedLines", "zpool list\r\nzfs list", PROMPT) == ["zpool list", "zfs list"]
    # the last line waits for Enter unless the text ends with a newline
    assert call("pastedLines", "root@lab:~# zpool list", PROMPT) == ["zpool list"]
    # a comment is not a prompt
    assert call("pastedLines", "# zpool list\n", PROMPT) == ["# zpool list", ""]


def test_candidates_are_listed_down_the_columns():
    listing = call("columns", ["add", "create", "destroy", "get", "list", "set", "status"], 25)
    assert listing == "add      get      status\r\ncreate   list\r\ndestroy  set\r\n"
    assert call("commonPrefix", ["labelclear", "list"]) == "l"


def test_only_a_usage_text_taller_than_the_screen_is_paged():
    usage = {"status": 2, "stdout": "", "stderr": "missing command\nusage: zpool\n" + "x\n" * 20}
    assert call("isLongUsage", usage, 12) is True
    assert call("isLongUsage", {**usage, "status": 1}, 12) is False
    assert call("isLongUsage", {**usage, "stderr": "usage: zpool\nx\n"}, 12) is False
    assert call("manNotice", ["man", "zfs"]).startswith("man zfs: not simulated")
