"""The engine's imports point one way: no module imports, even lazily, a module that imports it back, and
no layer imports a higher one (README, "How it works"). Imports under `if TYPE_CHECKING:` are left out:
they never run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "hfuse"

# Lowest first. A unit is a top-level module or package of hfuse; it may import its own layer and below.
LAYERS = (
    ("core", {"settings", "units", "errors", "dtypes", "ir", "layout", "ops", "infer", "builder", "verify",
              "printer", "reference", "tolerance", "backends", "special_values", "structure", "flops",
              "magnitude", "fusion_diff"}),
    ("passes", {"passes"}),
    ("segment", {"segment", "export", "segment_diff"}),
    ("codegen", {"codegen", "pipeline", "stages"}),
    ("runtime", {"runtime"}),
    ("frontend and loader", {"frontend", "loader", "edit", "examples", "baselines"}),
    ("service", {"service", "viz", "viz_diff", "share", "linked_view", "what_if", "roofline"}),
    ("tools", {"tools"}),
)  # fmt: skip
RANK = {unit: rank for rank, (_, units) in enumerate(LAYERS) for unit in units}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in skipped]


def imported_modules(name: str) -> set[str]:
    """The hfuse modules `name` imports: `from a.b import c` names the module a.b.c when there is one,
    else a.b."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in MODULES)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
        for alias in node.names:
            target = f"{base}.{alias.name}"
            found.add(target if target in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: imported_modules(name) for name in MODULES}


def unit(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] not in ("__main__",) else None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_imports_a_module_that_imports_it_back():
    assert cycles(GRAPH) == []


def test_no_unit_imports_a_unit_that_imports_it_back():
    units: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        if unit(name) is not None:
            units.setdefault(unit(name), set()).update(
                unit(t) for t in targets if unit(t) is not None and unit(t) != unit(name)
            )
    assert cycles(units) == []


def test_every_unit_has_a_layer():
    assert sorted({unit(name) for name in MODULES} - set(RANK) - {None}) == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if unit(n) is not None))
def test_imports_point_down(name):
    upward = [t for t in sorted(GRAPH[name]) if unit(t) is not None and RANK[unit(t)] > RANK[unit(name)]]
    layer = LAYERS[RANK[unit(name)]][0]
    assert upward == [], f"{name} ({layer}) imports higher layers: {upward}"


def test_the_checks_see_a_cycle_and_an_upward_import():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert "hfuse.ir" in GRAPH["hfuse.builder"]  # a plain module import is an edge
    assert RANK["runtime"] > RANK["codegen"] > RANK["segment"] > RANK["passes"] > RANK["ir"]
