"""The command registry (labsim.shell.registry) and the shell's layering: every command module
registers its own names, the shell and tab completion find them there, and no command module
imports the session (labsim.shell.session), which sits above them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import labsim.shell
from labsim.completion import command_names
from labsim.shell import registry
from labsim.shell.session import Session

SHELL = Path(labsim.shell.__file__).parent
# Modules below the session: the command modules, and what they and the session share.
LOWER = sorted([*(SHELL / "commands").glob("*.py"), SHELL / "base.py", SHELL / "registry.py"])
# Upper layers none of those may import at run time.
UPPER = ("labsim.shell.session", "labsim.shell.executor", "labsim.shell.builtins",
         "labsim.completion", "labsim.web")


def test_every_registered_name_resolves_to_a_command_module():
    table = registry.commands()
    assert len(table) >= 60  # the table is the commands', not an empty one
    for name, handler in table.items():
        assert registry.lookup(name) is handler
        assert callable(handler)
        assert handler.__module__.startswith("labsim.shell.commands."), name


def test_the_shell_and_completion_see_the_registered_names():
    session = Session()
    assert command_names() == set(registry.commands())
    for name in registry.commands():
        result = session.run(f"type {name}")
        assert result.status == 0, (name, result.stderr)
        assert not result.stderr
    assert session.run("type no-such-tool").status == 1
    assert registry.lookup("no-such-tool") is None


def test_a_name_belongs_to_one_handler():
    zpool = registry.lookup("zpool")
    assert zpool is not None
    registry.register("zpool", zpool)  # the same handler again changes nothing
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("zpool", registry.commands()["zfs"])
    assert registry.lookup("zpool") is zpool
    with pytest.raises(TypeError):
        registry.commands()["zpool"] = zpool  # type: ignore[index]


def test_which_commands_read_standard_input():
    def takes(name: str, keyword: str) -> bool:
        handler = registry.lookup(name)
        assert handler is not None
        return registry.takes(handler, keyword)

    assert takes("nft", "stdin") and takes("iptables-restore", "stdin") and takes("wg", "stdin")
    assert takes("sha256sum", "stdin_data") and takes("cat", "stdin_data")
    assert not takes("zpool", "stdin") and not takes("zpool", "stdin_data")
    assert Session().run_with_input("sha256sum", "abc").stdout.startswith("ba7816bf")


def _runtime_imports(path: Path) -> list[str]:
    """The modules ``path`` imports when it runs: at the top or inside a function, but not in
    an ``if TYPE_CHECKING:`` block (an import for annotations only)."""
    tree = ast.parse(path.read_text(), str(path))
    type_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            type_only.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    names = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def test_no_command_module_imports_the_session_or_the_shell_above_it():
    assert len(LOWER) > 20
    offenders = [f"{path.relative_to(SHELL)}: {name}" for path in LOWER
                 for name in _runtime_imports(path)
                 if any(name == upper or name.startswith(upper + ".") for upper in UPPER)]
    assert offenders == []


def test_the_import_check_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from labsim.shell.session import Session\n"
                      "def f():\n    from labsim.shell import session\n")
    assert "labsim.shell.session" in _runtime_imports(module)
    assert _runtime_imports(module).count("labsim.shell.session") == 1
