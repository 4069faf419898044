"""The extras install what the shipped examples need: the Quick start's dynamic run over
fixtures/ works on a fresh `pip install 'torchlint[dynamic]'`."""

from __future__ import annotations

import ast
import re
import sys

from support import FIXTURES, REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _imported(path) -> set:
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_dynamic_extra_installs_what_the_fixtures_import():
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    extra = {re.split(r"[\s<>=!~\[;]", d, maxsplit=1)[0].lower() for d in project["optional-dependencies"]["dynamic"]}
    local = {p.stem for p in FIXTURES.iterdir()}
    needed = set()
    for path in FIXTURES.rglob("*.py"):
        needed |= _imported(path)
    third_party = {n for n in needed if n not in sys.stdlib_module_names and n not in local}
    assert "numpy" in third_party  # audio_frontend.py: the reason numpy is in the extra
    assert third_party <= extra, sorted(third_party - extra)
