"""The package's import graph, read from the source: every ``import`` counts, at the top,
inside a function or under ``TYPE_CHECKING`` alike (a lazy import still ties two modules
together). Shared by the layout tests (``from import_graph import GRAPH, ...``)."""

from __future__ import annotations

import ast
from pathlib import Path

import torchlint

PACKAGE = Path(torchlint.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("torchlint",) + path.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _nearest(name: str) -> str:
    """``name`` if it is a module, else the closest enclosing one (``torchlint.x.func`` -> ``torchlint.x``)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imports_of(path: Path, module: str = "") -> set[str]:
    """What the file imports: torchlint modules by full name (``from torchlint.x import y``
    is ``torchlint.x.y`` when that is a module, else ``torchlint.x``), other packages by
    their top-level name. ``module`` is the file's own name, for relative imports."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def add(name: str) -> None:
        if name == "torchlint" or name.startswith("torchlint."):
            name = _nearest(name)
            if name in MODULES and name != module:
                found.add(name)
        elif name:
            found.add(name.split(".")[0])

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                add(sub if sub in MODULES else base)
    return found


GRAPH: dict[str, set[str]] = {m: imports_of(p, m) for m, p in MODULES.items()}


def private_imports_of(path: Path) -> set[str]:
    """The private modules and names of other packages the file imports (a part of the
    dotted name starts with ``_``: ``libcst._nodes.op``, ``torch._dynamo.utils.counters``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module not in (None, "__future__"):
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(
            n for n in names if n.split(".")[0] != "torchlint" and any(p.startswith("_") for p in n.split("."))
        )
    return found


def reach(start: str) -> set[str]:
    """Everything ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for name in GRAPH.get(todo.pop(), ()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def cycles(graph: dict[str, set[str]] = GRAPH) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
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
                        out.append(sorted(component))
    return out
