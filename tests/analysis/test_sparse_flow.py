"""Sparse tensors followed across a package, as torchkbnufft hands its interpolation matrices.

A model keeps a pair of sparse matrices that a helper of another file makes
(``self.mats = build(edges, 4)``, which returns what ``adjacency`` makes with
``torch.sparse_coo_tensor``), and hands them to a layer (``mats=self.mats``), which hands them
to an autograd Function (``Propagate.apply(h, mats)``), whose forward hands them to a helper
that multiplies with each (``torch.mm(ahead, h)``). Dynamo cannot wrap a sparse tensor: each
of those frames breaks where it uses the matrices, down to the product.

The look-alikes: ``isinstance`` and ``is not None`` tests of the pair (no break), and a second
model that hands a pair of dense matrices to another layer and helper of the same shape
(``mix``), which a function never compiled also calls with a sparse pair (as torch_geometric's
``edge_index`` is an index at most calls and a sparse tensor at a few): silent.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

OPS = """import torch


def adjacency(edges, n):
    values = torch.ones(edges.shape[1])
    forward = torch.sparse_coo_tensor(edges, values, (n, n))
    mats = (forward, forward.t())
    return mats


def build(edges, n):
    return adjacency(edges, n)


def propagate(mats, h):
    ahead, back = mats
    return torch.mm(ahead, h) - torch.mm(back, h)  # graph break


def mix(mats, h):
    first, second = mats
    return torch.mm(first, h) + torch.mm(second, h)
"""

LAYERS = """from torch import nn
from torch.autograd import Function

from .ops import mix, propagate


class Propagate(Function):
    @staticmethod
    def forward(ctx, h, mats):
        if not isinstance(mats, tuple):
            raise TypeError("a pair of matrices")
        out = propagate(mats, h)  # graph break
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, h, mats=None):
        h = self.lin(h)
        if mats is not None:
            h = Propagate.apply(h, mats)  # graph break
        return h


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, h, mats):
        return mix(mats, self.lin(h))
"""

MODEL = """import torch
from torch import nn

from .layers import Layer, Mixer
from .ops import build, mix


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = Layer(4)
        self.mats = build(torch.tensor([[0, 1, 2], [1, 2, 3]]), 4)

    def forward(self, x):
        h = x * 2
        return self.layer(h, mats=self.mats)  # graph break


class DenseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.mixer = Mixer(4)
        self.mats = (torch.eye(4), torch.eye(4).flip(0))

    def forward(self, x):
        return self.mixer(x, self.mats)


def warm_up(h):
    return mix(build(torch.tensor([[0, 1], [1, 2]]), 4), h)
"""


def make(root):
    files = {
        "graphs/__init__.py": "",
        "graphs/ops.py": OPS,
        "graphs/layers.py": LAYERS,
        "graphs/model.py": MODEL,
    }
    oracle = [
        {"path": ".", "module": "graphs.model", "target": name, "inputs": ["f32[4,4]"]} for name in ("Net", "DenseNet")
    ]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
