"""A parameter named for a dimension (`dim`, `seq_dim`, `axis`) holds an int, like one named
for a size or a dtype: `dim += t.ndim if dim < 0 else 0` in a helper reached from another
file is no branch on a tensor, although no call shows what `dim` is. And a function under a
decorator that keeps its signature (`@torch.autocast(...)`) still has its calls read: what
`rotate`'s callers pass is known. Dynamo compiles this package whole."""

from __future__ import annotations

from support import marked_package_tests, write_package

OPS = """import torch


def slice_at(t, dim_slice, *, dim):
    dim += t.ndim if dim < 0 else 0
    colons = [slice(None)] * t.ndim
    colons[dim] = dim_slice
    return t[tuple(colons)]


@torch.autocast("cpu", enabled=False)
def rotate(freqs, t, seq_dim=None):
    if seq_dim is None:
        seq_dim = 0
    freqs = slice_at(freqs, slice(-t.shape[0], None), dim=seq_dim)
    return t * freqs.cos()
"""

MODEL = """import torch
from torch import nn

from .ops import rotate


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.freqs = nn.Parameter(torch.randn(16, 4))

    def forward(self, x):
        return rotate(self.freqs, x)
"""

TARGETS = """from dpkg.model import Net

NET = Net()
"""

ORACLE = [{"path": ".", "module": "dpkg.targets", "target": "NET", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {"dpkg/__init__.py": "", "dpkg/ops.py": OPS, "dpkg/model.py": MODEL, "dpkg/targets.py": TARGETS}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
