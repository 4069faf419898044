"""The dynamic package's layout holds: no import circles through it, the parent side never
reaches torch or the child side, and nothing in it reaches back to the API or the pipeline.

Imports are read from the source (every ``import``, function-level ones included), so an
import hidden inside a function cannot bring a circle back unnoticed.
"""
import ast
import os
from typing import Dict, List, Set

import torchlint

PACKAGE = os.path.dirname(os.path.abspath(torchlint.__file__))
PARENT = {"torchlint.dynamic.run", "torchlint.dynamic.process", "torchlint.dynamic.results",
          "torchlint.dynamic.targets", "torchlint.dynamic.specs", "torchlint.dynamic.answer",
          "torchlint.dynamic.gb_registry", "torchlint.dynamic.recompiles"}
CHILD = {"torchlint.dynamic.worker", "torchlint.dynamic.load", "torchlint.dynamic.observe",
         "torchlint.dynamic.cudagraphs", "torchlint.dynamic.logs"}


def _modules() -> Dict[str, str]:
    out = {}
    for folder, _dirs, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                dotted = "torchlint." + os.path.relpath(path, PACKAGE)[:-3].replace(os.sep, ".")
                out[dotted[:-len(".__init__")] if dotted.endswith(".__init__") else dotted] = path
    return out


MODULES = _modules()


def _imports(module: str) -> Set[str]:
    """Every module ``module`` imports: torchlint modules by name, others by top-level name."""
    path = MODULES[module]
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    names: Set[str] = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    out = set()
    for name in names:
        if not name.startswith("torchlint"):
            out.add(name.split(".")[0])
            continue
        while name not in MODULES and "." in name:  # `from torchlint.x import name` -> torchlint.x
            name = name.rsplit(".", 1)[0]
        if name in MODULES and name != module:
            out.add(name)
    return out


GRAPH = {m: _imports(m) for m in MODULES}


def _reach(start: str) -> Set[str]:
    seen, todo = set(), [start]
    while todo:
        for name in GRAPH.get(todo.pop(), ()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def _cycles() -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    out: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in GRAPH[v]:
            if w not in GRAPH:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_the_two_sides_name_every_dynamic_module():
    dynamic = {m for m in MODULES if m.startswith("torchlint.dynamic.")}
    assert dynamic == PARENT | CHILD


def test_the_walk_sees_function_level_imports():
    # run_check imports the dynamic pass inside a function; the walk must see it.
    assert "torchlint.dynamic.run" in GRAPH["torchlint.pipeline"]
    assert "torch" in GRAPH["torchlint.dynamic.load"] and "torch" not in GRAPH["torchlint.dynamic.specs"]


def test_no_import_circle_goes_through_the_dynamic_pass_config_api_or_pipeline():
    mine = ("torchlint.dynamic", "torchlint.config", "torchlint.api", "torchlint.pipeline",
            "torchlint.merge", "torchlint.findings", "torchlint.files")
    bad = [c for c in _cycles() if any(m == p or m.startswith(p + ".") for m in c for p in mine)]
    assert bad == []


def test_the_parent_side_never_reaches_torch_or_the_child_side():
    for module in sorted(PARENT):
        reached = _reach(module)
        assert "torch" not in reached, module
        assert not reached & CHILD, (module, sorted(reached & CHILD))


def test_the_child_side_does_not_import_the_parents_process_management():
    for module in sorted(CHILD):
        assert not _reach(module) & {"torchlint.dynamic.run", "torchlint.dynamic.process",
                                     "torchlint.dynamic.results"}, module


def test_nothing_in_the_dynamic_pass_imports_the_api_or_the_pipeline():
    for module in sorted(PARENT | CHILD | {"torchlint.dynamic"}):
        assert not _reach(module) & {"torchlint.api", "torchlint.pipeline", "torchlint.cli"}, module
