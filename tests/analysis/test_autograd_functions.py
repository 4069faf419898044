"""`Scale.apply(x)` of a `torch.autograd.Function` defined in another file runs its `forward`,
which dynamo traces: a break there is found where the region calls it from. Its `ctx` is no
tensor, and an int the caller reads from a shape stays an int. A Function defined beside it
that no region applies stays unchecked, and so does its `backward` (it runs in the backward
pass, not in the traced forward)."""

from __future__ import annotations

from support import marked_package_tests, write_package

OPS = """import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        if k > 1:
            x = x * 1.5
        print("scaled", k)  # graph break
        return x * k

    @staticmethod
    def backward(ctx, g):
        print("backward", ctx.k)
        return g * ctx.k, None


class Unapplied(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print("never applied")
        return x

    @staticmethod
    def backward(ctx, g):
        return g
"""

MODEL = """from torch import nn

from .ops import Scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return Scale.apply(self.lin(x), x.shape[0])
"""

TARGETS = """from fnpkg.model import Net

NET = Net()
"""

ORACLE = [{"path": ".", "module": "fnpkg.targets", "target": "NET", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {"fnpkg/__init__.py": "", "fnpkg/ops.py": OPS, "fnpkg/model.py": MODEL, "fnpkg/targets.py": TARGETS}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
