"""A parameter no call passes holds its default: ``if safe_merge:`` in a method every caller
calls without it never runs, and dynamo never traces it. Where every call of the function is
seen in the project, a ``None`` / ``True`` / ``False`` default no call overrides decides the
tests of the parameter (``if p:``, ``if not p:``, ``if p is None:``, ``if p is not None:``).

The package below marks every line where dynamo breaks with `# graph break`; the static pass
must find exactly those (the `dynamo` test checks the marks against torch). The look-alikes
break: a parameter some call passes (`strict=False`), and one the function binds again
(`names`).
"""

from __future__ import annotations

from support import marked_package_tests, static_found, write_package

LAYERS = """import warnings

import torch
from torch import nn


class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def merged_weight(self, safe_merge=False, names=None):
        w = self.w * 2
        if safe_merge and not torch.isfinite(w).all():
            raise ValueError("not finite")
        if names is None:
            names = ["default"]
        if names is not None:
            print(names)  # graph break
        return w

    def scaled(self, x, eps=None, strict=True):
        if eps is not None:
            x = x / eps.item()
        if not strict:
            warnings.warn("loose scaling")  # graph break
        return x

    def forward(self, x, mask=None):
        if mask is not None:
            x = x * mask.sum().item()
        return self.scaled(x * self.merged_weight()) + self.scaled(x, strict=False)
"""

MODEL = """from torch import nn

from .layers import Adapter


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.adapter = Adapter()

    def forward(self, x):
        return self.adapter(x) + 1
"""

ORACLE = [{"path": ".", "module": "defpkg.model", "target": "Net", "inputs": ["f32[4]"]}]


def make(root, layers=LAYERS):
    files = {"defpkg/__init__.py": "", "defpkg/layers.py": layers, "defpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)


def test_a_call_that_passes_the_parameter_leaves_both_arms_checked(tmp_path):
    """One call passing `safe_merge=True` (and one passing `mask`) is enough: the tests of the
    parameter are read as values again."""
    layers = LAYERS.replace(
        "self.scaled(x * self.merged_weight())", "self.scaled(x * self.merged_weight(safe_merge=True))"
    )
    found = {(path, line) for path, line, _ in static_found(make(tmp_path, layers))}
    assert ("defpkg/layers.py", 14) in found  # `torch.isfinite(w).all()` in the truth test
