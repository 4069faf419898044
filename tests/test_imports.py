"""The package's import graph has no circles, and its layers import only downwards.

Every import statement of every module counts, also those inside functions (a lazy import
still ties two modules together): a circle means neither module can be understood, tested
or moved without the other.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Dict, List, Set

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "torchlint"


def _modules() -> Dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> Set[str]:
    """The torchlint modules ``name`` imports (a package's ``__init__`` counts only when the
    import names the package itself, not one of its submodules)."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in MODULES:
                    found.add(sub)
                elif module in MODULES:
                    found.add(module)
    found.discard(name)
    return {m for m in found if m.startswith("torchlint")}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    assert _cycles(GRAPH) == []


# What each layer may import (besides the standard library and its own package). Lower
# layers never reach up: facts about code know nothing of rules, rules nothing of the engine
# that runs them, the dynamic pass's parent side nothing of torch.
ALLOWED = {
    "torchlint.analysis": {"torchlint.analysis"},
    "torchlint.findings": set(),
    "torchlint.rules": {"torchlint.rules", "torchlint.analysis", "torchlint.findings", "torchlint.data"},
}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_downwards(layer):
    allowed = ALLOWED[layer] | {layer}
    bad = []
    for name, deps in GRAPH.items():
        if name == layer or name.startswith(layer + "."):
            for dep in deps:
                if dep != "torchlint" and not any(dep == a or dep.startswith(a + ".") for a in allowed):
                    bad.append(f"{name} -> {dep}")
    assert bad == []


def test_every_module_imports():
    """Each module imports on its own (no hidden order dependence)."""
    for name in sorted(MODULES):
        if name.endswith("__main__"):
            continue
        importlib.import_module(name)
