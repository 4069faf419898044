"""What a function returns is known across files when it rests on other functions' returns:
``step_ok`` returns ``err < 1`` with ``err`` what ``misc.error_ratio`` returns in another file,
so it returns a tensor, and branching on it breaks. The same holds for Python values:
``width(x)`` returns ``misc.half(x) + 1``, an int read from a shape, so a size it is passed as
stays an int (``torch.arange`` of it does not read data)."""

from __future__ import annotations

from support import marked_package_tests, write_package

MISC = """import torch


def error_ratio(a, b, rtol):
    return torch.amax((a - b).abs() / rtol)


def half(x):
    return x.shape[-1] // 2
"""

STEPS = """import torch

from . import misc


def step_ok(a, b, rtol=0.1):
    err = misc.error_ratio(a, b, rtol)
    return err < 1


def width(x):
    return misc.half(x) + 1


def positions(x, n):
    return x[..., :n] + torch.arange(n, dtype=x.dtype)
"""

MODEL = """import torch
from torch import nn

from .steps import positions, step_ok, width


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, y):
        h = self.lin(y)
        if step_ok(y, h):  # graph break
            h = h * 2
        return positions(h, width(h))
"""

ORACLE = [{"path": ".", "module": "rpkg.model", "target": "Net", "inputs": ["f32[2,4]"]}]


def make(root):
    files = {"rpkg/__init__.py": "", "rpkg/misc.py": MISC, "rpkg/steps.py": STEPS, "rpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
