"""No import circle among the bot's modules: every module can be imported on its own, and a newcomer can read
the layers from the bottom up. Imports under ``if TYPE_CHECKING:`` are for the type checker only and do not
count; neither does a package's implicit import of its parent (``bot.service.tables`` runs
``bot/service/__init__.py`` first), which is how every package works. Imports inside functions run later,
when everything is loaded, so they cannot form a circle at import time; they are checked too, as a circle
through them still means two modules that lean on each other."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in BOT.rglob("*.py")}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, *, lazy: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The module's imports at import time (``lazy``: only those inside functions)."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[ast.Import | ast.ImportFrom]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                yield from (x for n in child.orelse for x in walk_one(n, in_function))
                continue
            yield from walk_one(child, in_function)

    def walk_one(node: ast.AST, in_function: bool) -> Iterator[ast.Import | ast.ImportFrom]:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if in_function == lazy:
                yield node
            return
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from walk(node, inner)

    yield from walk(tree, False)


def imported(name: str, path: Path, known: dict[str, Path], *, lazy: bool) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8")), lazy=lazy):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # "from package import submodule" imports the submodule; "from module import name" the module.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        found.update(target for target in targets if target in known and target != name)
    return found


def graph(*, lazy: bool) -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known, lazy=lazy) for name, path in known.items()}


def find_circle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                circle = visit(nxt)
                if circle:
                    return circle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            circle = visit(node)
            if circle:
                return circle
    return None


def test_the_modules_import_each_other_without_a_circle() -> None:
    edges = graph(lazy=False)
    assert edges.get("bot.service.tables"), "the import graph is empty"
    assert edges["bot.service.tables"] >= {"bot.service.registry", "bot.service.scheduler"}
    assert find_circle(edges) is None, " -> ".join(find_circle(edges) or [])


def test_not_even_imports_inside_functions_close_a_circle() -> None:
    edges = graph(lazy=False)
    for module, targets in graph(lazy=True).items():
        edges[module] |= targets
    assert find_circle(edges) is None, " -> ".join(find_circle(edges) or [])


def test_the_checker_finds_a_circle() -> None:
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
