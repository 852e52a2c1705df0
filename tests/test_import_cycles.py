"""No import circles in `probes`, `catalogs` and `desktop`: the graph of every import statement (at the top of a
module or inside a function: a lazy import runs too, only later; imports under `if TYPE_CHECKING:` are for
annotations and never run) has no cycle. A circle is two modules each needing the other, so neither can be
read, tested or moved alone (`probes.schedule.plan` ↔ `probes.alerts.rules` and `desktop.app.job_process` ↔
`desktop.app.trace_job` were the last ones). Package-level rules (the export never calls back into a
use-case) are `tests/test_layering.py`'s."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGES = ("probes", "catalogs", "desktop")


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """module name → (file, is a package's __init__)."""
    found: dict[str, tuple[Path, bool]] = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run (not those under `if TYPE_CHECKING:`)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            for other in node.orelse:
                yield from _imports(other) if not isinstance(other, ast.Import | ast.ImportFrom) else [other]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _imports(node)


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module → the modules of ours it imports (`from a import b` is `a.b` where that is a module)."""
    graph: dict[str, set[str]] = {}
    for name, (source, is_package) in sources.items():
        package = name if is_package else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            for target in targets:
                while target and target not in sources:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_probes_catalogs_or_desktop_is_in_an_import_circle() -> None:
    sources = {
        name: (path.read_text(encoding="utf-8"), is_package)
        for name, (path, is_package) in _modules(REPO_ROOT).items()
    }
    assert cycles(import_graph(sources)) == []


def test_the_check_finds_a_lazy_circle_and_ignores_annotations_only_imports() -> None:
    sources = {
        "probes.a": ("from probes import b\n", False),
        "probes.b": ("def later():\n    from probes.c import thing\n", False),
        "probes.c": ("import probes.a\n", False),
        "probes.d": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from probes.a import x\n",
            False,
        ),
        "probes": ("", True),
    }
    graph = import_graph(sources)
    assert cycles(graph) == [["probes.a", "probes.b", "probes.c"]]
    assert graph["probes.d"] == set()
