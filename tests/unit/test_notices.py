"""labsim's honest notice has one form (labsim.shell.messages.notices): every text a shell or
command module writes in labsim's own name ("labsim: ...") says "not simulated" and where to
try the thing, and is built by the notices module rather than spelt out."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import labsim.shell.commands
from labsim.shell import messages as msg

COMMANDS = Path(labsim.shell.commands.__file__).parent
SHELL = COMMANDS.parent
MODULES = sorted([*SHELL.glob("*.py"), *COMMANDS.glob("*.py")])
# Texts in labsim's name that are not notices: the executor's report of its own bug, and
# the printf and test builtins' prefix for messages bash does not print.
NOT_NOTICES = {("executor.py", "labsim: internal error ("), ("builtins.py", "labsim: printf: "),
               ("conditions.py", "labsim: "), ("executor.py", "labsim: "),
               ("executor.py", "labsim: stopped after "),
               ("executor.py", "labsim: arithmetic: ")}


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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_shell_modules_spell_no_notice_of_their_own(path):
    """What a command says in labsim's name goes through labsim.shell.messages.notices
    (a few prefixes are put before such a notice, or say something else: NOT_NOTICES)."""
    assert [text for _, text in _labsim_texts(path) if (path.name, text) not in NOT_NOTICES] \
        == []


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
