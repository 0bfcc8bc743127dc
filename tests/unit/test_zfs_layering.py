"""labsim.zfs is layered: its modules import each other without cycles, at module level.

A module that imports one that imports it (directly or round a longer loop) is two
concepts tangled; an import inside a function, or under TYPE_CHECKING, is how such a loop
is usually hidden, so neither is allowed here.
"""

import ast
from pathlib import Path

import labsim.zfs

PACKAGE = Path(labsim.zfs.__file__).parent


def _imports(tree: ast.Module) -> list[tuple[ast.ImportFrom | ast.Import, bool]]:
    """Every labsim import in the module, with whether it is at module level."""
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if any(name.startswith("labsim") for name in names):
            found.append((node, id(node) in top))
    return found


def _zfs_modules_imported(node: ast.ImportFrom | ast.Import) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name.startswith("labsim.zfs.")}
    if node.module == "labsim.zfs":
        return {f"labsim.zfs.{a.name}" for a in node.names}
    return {node.module} if node.module and node.module.startswith("labsim.zfs.") else set()


def _graph() -> dict[str, set[str]]:
    graph = {}
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text())
        deps: set[str] = set()
        for node, _ in _imports(tree):
            deps |= _zfs_modules_imported(node)
        graph[f"labsim.zfs.{path.stem}"] = deps
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules round it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_every_labsim_import_in_the_zfs_model_is_at_module_level():
    nested = [f"{path.name}:{node.lineno}"
              for path in sorted(PACKAGE.glob("*.py"))
              for node, top_level in _imports(ast.parse(path.read_text()))
              if not top_level]
    assert nested == []


def test_the_zfs_model_has_no_import_cycle():
    graph = _graph()
    assert "labsim.zfs.write_path" in graph["labsim.zfs.zvols"]  # the graph is read
    assert _cycle(graph) is None


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert _cycle(graph) == ["a", "b", "c", "a"]
