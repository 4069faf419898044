"""The package's import graph has no circles, and each package imports only in the
directions its docstring gives (every import counts, lazy ones included: see import_graph)."""

from __future__ import annotations

import ast
import importlib

import pytest
from import_graph import GRAPH, MODULES, PACKAGE, cycles, imports_of, reach


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_walk_sees_function_level_imports(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from torchlint.fixes.run import Marker\n")
    assert "torchlint.fixes.run" in imports_of(bad)
    assert "torchlint.dynamic.run" in GRAPH["torchlint.pipeline"]  # imported inside run_check


def test_no_import_circles():
    assert cycles() == []


#: package -> the torchlint packages and top-level modules it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "analysis": set(),
    "rules": {"analysis", "data", "matrix", "knowledge", "pages"},
    "static": {"analysis", "rules", "files", "findings", "config", "matrix", "pages", "atomic"},
    "fixes": {"analysis", "rules", "static", "files", "findings", "suppression", "atomic"},
    "output": {"findings", "pages", "rules", "files", "atomic"},
}


def _top(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_its_docstring_allows(package):
    bad = [
        f"{m} imports {dep}"
        for m, deps in GRAPH.items()
        if _top(m) == package
        for dep in deps
        if dep.startswith("torchlint.") and _top(dep) not in ALLOWED[package] | {package}
    ]
    assert bad == []


def test_docstrings_say_what_each_package_may_import():
    for package in ALLOWED:
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text("utf-8"))) or ""
        assert "import" in doc and len(doc.splitlines()) >= 3, package


def test_the_static_pass_never_imports_the_fixes():
    # the fixes reach the engine as a planner handed in by the pipeline
    for module in MODULES:
        if _top(module) == "static":
            assert not any(_top(d) == "fixes" for d in reach(module)), module


@pytest.mark.dynamo
def test_every_module_imports():
    """Each module imports on its own (no hidden order dependence)."""
    for name in sorted(MODULES):
        if not name.endswith("__main__"):
            importlib.import_module(name)


def test_the_package_itself_imports_no_torchlint_module():
    # every package imports its plumbing (lazy_exports, load_modules) from it
    assert not [m for m in GRAPH["torchlint"] if m.startswith("torchlint")]
    assert "torchlint" in GRAPH["torchlint.rules"] and "torchlint" in GRAPH["torchlint.dynamic"]


def test_no_script_folder_module_shadows_the_standard_library():
    """A script run as ``python benchmarks/x.py`` puts its folder first on sys.path: a
    ``benchmarks/html.py`` hides the standard ``html`` package from every import after it."""
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    for folder in ("benchmarks", "benchmarks/hf", "fixtures"):
        names = {p.stem for p in (repo / folder).glob("*.py")} | {
            p.name for p in (repo / folder).iterdir() if (p / "__init__.py").is_file()
        }
        assert not names & set(sys.stdlib_module_names), folder
