"""`--fix` over a model file also fixes what its regions reach in files not given: a helper or
a base class elsewhere in the project, where the check reports the findings (and only there)."""

from __future__ import annotations

import json

import pytest
from support import run_cli, write

UTILS = """
import logging
import warnings

logger = logging.getLogger(__name__)


def note(msg):
    logger.warning(msg)
    warnings.warn(msg)


def unused(x):
    print("never called from a region", x)


class Base:
    def _report(self, x):
        print("shape", x.shape)
"""
MODEL = """
import torch
from torch import nn

from pkg.utils import Base, note


class Net(Base, nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        note("running")
        self._report(x)
        return self.lin(x)


def build():
    return Net()
"""


def _project(root):
    write(root, "pyproject.toml", '[project]\nname = "pkg"\nversion = "0"\n')
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/utils.py", UTILS)
    write(root, "pkg/model.py", MODEL)


def test_fix_of_the_model_file_guards_the_helper_and_the_base_class_it_reaches(project):
    _project(project)
    report = json.loads(run_cli(["check", "pkg/model.py", "--no-dynamic", "--format", "json"]).stdout)
    fixable = [f for f in report["findings"] if f.get("fix")]
    assert {f["path"] for f in fixable} == {"pkg/utils.py"} and len(fixable) == 3
    result = run_cli(["check", "pkg/model.py", "--no-dynamic", "--fix"])
    text = (project / "pkg/utils.py").read_text()
    assert "    if not torch.compiler.is_compiling():\n        logger.warning(msg)\n        warnings.warn(msg)" in text
    assert '        if not torch.compiler.is_compiling():\n            print("shape", x.shape)' in text
    assert '    print("never called from a region", x)' in text  # not reached: not reported, not fixed
    assert (project / "pkg/model.py").read_text().lstrip("\n") == MODEL.lstrip("\n")
    assert result.exit_code == 0
    again = run_cli(["check", "pkg/model.py", "--no-dynamic", "--fix"])
    assert (project / "pkg/utils.py").read_text() == text and again.exit_code == 0


@pytest.mark.dynamo
def test_the_fixed_helper_no_longer_breaks_the_model(project):
    torch = pytest.importorskip("torch")
    import sys

    from torchlint.dynamic.observe import observe

    _project(project)
    run_cli(["check", "pkg/model.py", "--no-dynamic", "--fix"])
    import importlib

    # another test of the same worker may have imported a package named `pkg` of its own
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    sys.path.insert(0, str(project))
    try:
        from pkg.model import build

        files = {str(project / "pkg/utils.py"), str(project / "pkg/model.py")}
        obs = observe(build(), [(torch.randn(2, 4),)], user_files=files)
        assert obs.graph_breaks == 0 and obs.graphs == 1
    finally:
        sys.path.remove(str(project))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
