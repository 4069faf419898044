"""The package's import graph has no circles, and each package imports only in the
directions its docstring gives (every import counts, lazy ones included: see import_graph)."""

from __future__ import annotations

import ast
import importlib

import pytest
from import_graph import GRAPH, MODULES, PACKAGE, cycles, imports_of, private_imports_of, reach


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_walk_sees_function_level_imports(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from torchlint.fixes.fix_files import Marker\n")
    assert "torchlint.fixes.fix_files" in imports_of(bad)
    assert "torchlint.dynamic.target_pass" in GRAPH["torchlint.pipeline"]  # imported inside run_check


def test_no_import_circles():
    assert cycles() == []


#: package -> the torchlint packages and top-level modules it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "analysis": set(),
    "rules": {"analysis", "data", "matrix", "knowledge", "pages"},
    "static": {"analysis", "rules", "files", "findings", "config", "matrix", "knowledge", "pages", "atomic"},
    "fixes": {"analysis", "rules", "static", "files", "findings", "suppression", "atomic"},
    "output": {"findings", "pages", "rules", "files", "atomic"},
    "run": {"dynamic", "findings", "files", "config", "pipeline"},
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


def test_private_imports_of_other_packages_stay_where_they_are_named():
    # libcst's: only the fast tree module, each piece named in its LIBCST_PRIVATE; torch's:
    # only the child side of the dynamic pass and of `torchlint run`, which run dynamo
    def allowed(module: str, name: str) -> bool:
        if name.startswith("libcst."):
            return module == "torchlint.analysis.tree"
        if name.startswith("torch."):
            return _top(module) in ("dynamic", "run")
        return False

    found = {m: private_imports_of(MODULES[m]) for m in MODULES}
    assert "libcst._nodes.internal.CodegenState" in found["torchlint.analysis.tree"]  # the walk sees them
    assert [f"{m} imports {n}" for m, names in found.items() for n in sorted(names) if not allowed(m, n)] == []


def test_the_private_import_walk_sees_both_forms(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import a._b as c\nfrom x._y import z\nfrom p import _q, r\nfrom . import _s\nimport t\n")
    assert private_imports_of(path) == {"a._b", "x._y.z", "p._q"}


def test_one_file_is_linted_through_lint_file():
    # the engine's walk is called from torchlint.static.lint alone: every caller that lints a
    # file's text goes through its lint_file (or the editor's IncrementalParser.lint)
    callers = [m for m, path in MODULES.items() if "lint_module(" in path.read_text("utf-8")]
    assert sorted(callers) == ["torchlint.static.engine", "torchlint.static.lint"]


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


def test_the_target_pass_never_imports_the_run_command():
    # torchlint run builds on the dynamic pass's records; never the other way round
    for module in MODULES:
        if _top(module) == "dynamic":
            assert not any(_top(d) == "run" for d in reach(module)), module
