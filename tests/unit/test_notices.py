"""labsim's honest notice has one form (labsim.shell.messages.notices): every text a command
module writes in labsim's own name ("labsim: ...") says "not simulated" and where to try
the thing, and is built by the notices module rather than spelt out."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import labsim.shell.commands
from labsim.shell import messages as msg

COMMANDS = Path(labsim.shell.commands.__file__).parent
# The shell grammar's own modules (coreutils, textutils) are being rewritten on the grammar
# branch of issue 16; their notices move to this form there.
ELSEWHERE = {"coreutils.py", "textutils.py"}


def _labsim_texts(path: Path) -> list[tuple[int, str]]:
    """String constants, and the literal parts of f-strings, that start labsim's words."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and str(first.value).startswith("labsim: "):
                found.append((node.lineno, str(first.value)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value.startswith("labsim: ")):
            found.append((node.lineno, node.value))
    return found


@pytest.mark.parametrize("path", sorted(p for p in COMMANDS.glob("*.py")
                                        if p.name not in ELSEWHERE), ids=lambda p: p.name)
def test_command_modules_spell_no_notice_of_their_own(path):
    assert _labsim_texts(path) == []


def test_the_one_form():
    assert msg.subcommand_not_simulated("zfs", "send", "2.3.9") == (
        "labsim: zfs send exists in OpenZFS 2.3.9 but is not simulated here; try it on real "
        "OpenZFS in the lab VM (see vagrant/README.md)")
    assert msg.command_line_not_simulated("ss", ["ss", "-s"]) == (
        "labsim: ss: `ss -s' is not simulated here; try it in the lab VM "
        "(see vagrant/README.md)")
    assert msg.property_not_simulated("zfs set", "com.example:x", "2.3.9") == (
        "labsim: zfs set: user properties such as 'com.example:x' are not simulated here; "
        "try it on real OpenZFS in the lab VM (see vagrant/README.md)")
