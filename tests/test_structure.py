"""The package's shape: no import cycles, no function over 60 lines, one registry in the help."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import run_cli

PACKAGE = Path(__file__).resolve().parent.parent / "scripts" / "pathways_workload"
MAX_FUNCTION_LINES = 60
# argparse's declarative parser builder may be longer.
LONG_ALLOWED = {"arguments.build_parser"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, tree: ast.Module, known: set[str]) -> set[str]:
    """The package's modules this one imports (at any depth: lazy imports count too)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {target for target in targets if target in known and target != name}
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                return [*path[path.index(imported) :], imported]
            if imported not in state and (found := visit(imported)):
                return found
        state[module] = 2
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    modules = _modules()
    # `from pathways_workload import labels` also names the package itself: not an edge.
    graph = {name: _imports(name, tree, set(modules)) for name, tree in modules.items()}
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_function_is_over_sixty_lines() -> None:
    long = []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES and f"{name}.{node.name}" not in {
                    f"pathways_workload.{allowed}" for allowed in LONG_ALLOWED
                }:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert not long


def test_a_bug_in_the_tool_exits_70_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> int:
        raise KeyError("boom")

    monkeypatch.setattr("pathways_workload.cli.run_action", broken)
    code, out, err = run_cli("--action=errors", "--project=pw-demo", "--jobset_name=x")
    assert code == 70
    assert out == ""
    assert err.splitlines()[-1] == "internal error: KeyError: 'boom' (please report this)"
