"""The page parses command lines with web-tree-sitter (docs/javascripts/labsim-shell-grammar.js)
and CPython with py-tree-sitter: given the same prepared line (ASCII, labsim.shell.syntax.
backend.prepared), both must hand labsim.shell.syntax the same tree, node for node. Runs the
page's module under Node with the npm packages the site vendors (package.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_shell_grammar import LINES
from test_terminal_text import as_esm

from labsim.shell.syntax import backend, cst

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
MODULES = ROOT / "node_modules"
SCRIPT = """
import { bashParser } from %(module)s;
const parse = await bashParser({ module: %(runtime)s, runtimeWasm: %(wasm)s,
                                 grammarWasm: %(grammar)s });
const lines = JSON.parse(await new Promise((done) => {
  let text = ""; process.stdin.on("data", (d) => { text += d; });
  process.stdin.on("end", () => done(text));
}));
process.stdout.write(JSON.stringify(lines.map((line) => JSON.parse(parse(line)))));
"""

MORE = ["echo é😀 \"$x\" | cat", "printf '%s\\n' ünïcödé 𝄞 > f", "echo ${x:-😀} $((1+2))",
        "cat <<EOF\n😀 $y\nEOF", "for i in {1..3}; do echo \"$i\"; done 2>&1 | tail -n 1"]


def _as_list(node: cst.Node) -> list:
    return [node.type, int(node.named), node.field, node.start, node.end,
            [_as_list(c) for c in node.children], int(node.missing)]


@pytest.mark.skipif(NODE is None or not (MODULES / "web-tree-sitter").is_dir()
                    or not (MODULES / "tree-sitter-bash").is_dir(),
                    reason="needs node and npm install (web-tree-sitter, tree-sitter-bash)")
def test_the_page_and_cpython_parse_every_line_to_the_same_tree():
    lines = [backend.prepared(line) for line in (*LINES, *MORE)]
    script = SCRIPT % {
        "module": json.dumps(as_esm(ROOT / "docs/javascripts/labsim-shell-grammar.js").as_uri()),
        "runtime": json.dumps((MODULES / "web-tree-sitter/tree-sitter.js").as_uri()),
        "wasm": json.dumps(str(MODULES / "web-tree-sitter/tree-sitter.wasm")),
        "grammar": json.dumps(str(MODULES / "tree-sitter-bash/tree-sitter-bash.wasm")),
    }
    run = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(lines),
                         capture_output=True, text=True, timeout=60, check=True)
    page = json.loads(run.stdout)
    parser = backend._python_parser()
    for line, tree in zip(lines, page, strict=True):
        python = backend._from_python(parser.parse(line.encode()).root_node, line)
        assert cst.from_json(tree) == python, line
        assert tree == _as_list(python), line
