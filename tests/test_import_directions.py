"""The packages of the static side import only in the directions their docstrings give.

Every ``import`` in a module counts, at the top, inside a function or under
``TYPE_CHECKING`` alike: a lazy import still ties two modules together. So no circle
through the engine, the rules, the fixes or the static pass can come back.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Set

import pytest

import torchlint

PACKAGE = Path(torchlint.__file__).resolve().parent

#: package -> the torchlint packages and modules it may import (besides itself)
ALLOWED: Dict[str, Set[str]] = {
    "analysis": set(),
    "rules": {"analysis", "data"},
    "static": {"analysis", "rules", "files", "findings", "config"},
    "fixes": {"analysis", "rules", "static", "files", "findings", "suppression", "atomic"},
    "output": {"findings", "pages", "rules"},
}


def _imports(path: Path) -> Set[str]:
    """The torchlint modules ``path`` imports, as dotted names below ``torchlint``."""
    tree = ast.parse(path.read_text("utf-8"))
    out: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "files" and node.args:
            arg = node.args[0]  # importlib.resources.files("torchlint"): reads the data folder
            if isinstance(arg, ast.Constant) and arg.value == "torchlint":
                out.add("torchlint.data")
    return {name[len("torchlint."):] for name in out if name.startswith("torchlint.")}


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_its_docstring_allows(package):
    bad = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for name in _imports(path):
            top = _top(name)
            if top != package and top not in ALLOWED[package] and (PACKAGE / top).exists() | (PACKAGE / f"{top}.py").exists():
                bad.append(f"{path.relative_to(PACKAGE)} imports torchlint.{name}")
    assert bad == []


def test_the_static_pass_never_imports_the_fixes():
    # the fixes reach the engine as a FixPlanner handed in by the pipeline
    for path in (PACKAGE / "static").rglob("*.py"):
        assert not any(_top(n) == "fixes" for n in _imports(path)), path


def test_docstrings_say_what_each_package_may_import():
    for package in ALLOWED:
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text("utf-8"))) or ""
        assert "import" in doc and len(doc.splitlines()) >= 3, package


def test_the_check_sees_a_forbidden_import(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from torchlint.fixes.run import Marker\n")
    assert "fixes.run" in _imports(bad)
