"""Another file's module class that registers a buffer: the parent's `self.child.buffer` is a
tensor (pyro's inverse autoregressive flow loops over `self.arn.permutation`, a buffer its
`AutoRegressiveNN` registers, and indexes with each element). The buffer may be registered by
a base class in the same file; the child's plain ints (`self.arn.n`) stay ints."""

from __future__ import annotations

from support import marked_package_tests, write_package

ARN = """import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("permutation", torch.randperm(n))
        self.n = n


class ARN(Base):
    def __init__(self, n):
        super().__init__(n)
        self.lin = nn.Linear(n, 2 * n)
        self.shift = nn.Parameter(torch.zeros(n))

    def forward(self, x):
        mean, log_scale = self.lin(x).chunk(2, -1)
        return mean + self.shift, log_scale
"""

INVERSE = """import torch
from torch import nn

from .arn import ARN


class Inverse(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.arn = ARN(n)

    def forward(self, y):
        x = [torch.zeros(y.shape[:-1])] * self.arn.n
        for i in range(self.arn.n):
            x[i] = x[i] + y[..., i] * self.arn.shift[i]
        perm = self.arn.permutation
        for idx in perm:
            mean, log_scale = self.arn(torch.stack(x, dim=-1))
            x[idx] = (y[..., idx] - mean[..., idx]) * torch.exp(-log_scale[..., idx])  # graph break
        return torch.stack(x, dim=-1)[..., self.arn.permutation.argsort()]
"""

ORACLE = [{"path": ".", "module": "cpkg.inverse", "target": "Inverse", "inputs": ["f32[2,4]"]}]


def make(root):
    files = {"cpkg/__init__.py": "", "cpkg/arn.py": ARN, "cpkg/inverse.py": INVERSE}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
