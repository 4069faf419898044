"""Distributions over structures, made in compiled code from the model's tensors.

A tagger makes a linear-chain CRF distribution from its scores and the sequence lengths and
reads its ``partition`` (a ``lazy_property``); a decoder reads its ``argmax`` (named as a
tensor's method), which tests the best scores. The distribution class names the structure it scores in its class body
(``struct = LinearChain``) and makes one per read (``self.struct(LogSemiring).sum(...)``). Dynamo
traces down to ``LinearChain.sum``, whose test of ``lengths.max()`` breaks. Another model
reads the bound property of a distribution made and read at once
(``LinearChainCRF(x).entropy_bound``), which tests the kept scores' values. The scores and
lengths are tensors because the compiled calls hand the constructor tensors.

The look-alikes: ``Tree`` (its ``sum`` prints), named only by ``TreeCRF``, which nothing makes;
and ``scale``, which tests ``n_iter``, an int every construction passes. The breaks inside the
methods are the only sites: dynamo gives up the forward at the break, not at the calls on the
objects the properties make."""

from __future__ import annotations

from support import marked_package_tests, write_package

SEMIRINGS = """import torch


class LogSemiring:
    @staticmethod
    def sum(xs, dim=-1):
        return torch.logsumexp(xs, dim=dim)


class MaxSemiring:
    @staticmethod
    def sum(xs, dim=-1):
        return xs.max(dim=dim)[0]
"""

CHAIN = """from .semirings import LogSemiring


class LinearChain:
    def __init__(self, semiring=LogSemiring):
        self.semiring = semiring

    def sum(self, potentials, lengths=None):
        if lengths is not None and lengths.max() > potentials.shape[1]:  # graph break
            potentials = potentials.clamp(min=-1e4)
        return self.semiring.sum(self.semiring.sum(potentials))


class Tree:
    def __init__(self, semiring=LogSemiring):
        self.semiring = semiring

    def sum(self, potentials, lengths=None):
        print("tree", potentials.shape)
        return self.semiring.sum(potentials.flatten(1))
"""

DISTS = """from torch.distributions.utils import lazy_property

from .chain import LinearChain, Tree
from .semirings import LogSemiring, MaxSemiring


class StructDistribution:
    def __init__(self, log_potentials, lengths=None, n_iter=1):
        self.log_potentials = log_potentials
        self.lengths = lengths
        self.n_iter = n_iter

    @lazy_property
    def partition(self):
        return self.struct(LogSemiring).sum(self.log_potentials, self.lengths)

    @property
    def argmax(self):
        scores = self.struct(MaxSemiring).sum(self.log_potentials)
        if scores.isinf().any():  # graph break
            scores = scores.nan_to_num()
        return scores

    @property
    def entropy_bound(self):
        if self.log_potentials.isnan().any():  # graph break
            return self.log_potentials.new_zeros(())
        return self.log_potentials.exp().mean()

    @property
    def scale(self):
        if self.n_iter > 1:
            return 0.5
        return 1.0


class LinearChainCRF(StructDistribution):
    struct = LinearChain


class TreeCRF(StructDistribution):
    struct = Tree
"""

MODEL = """from torch import nn

from .dists import LinearChainCRF


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, lengths):
        dist = LinearChainCRF(self.proj(x), lengths, n_iter=2)
        return (dist.partition - dist.log_potentials.mean()) * dist.scale


class Decoder(nn.Module):
    def forward(self, x):
        dist = LinearChainCRF(x.tanh())
        return dist.argmax


class Bounded(nn.Module):
    def forward(self, x):
        return LinearChainCRF(x.relu()).entropy_bound
"""


def make(root):
    files = {
        "structdist/__init__.py": "",
        "structdist/semirings.py": SEMIRINGS,
        "structdist/chain.py": CHAIN,
        "structdist/dists.py": DISTS,
        "structdist/model.py": MODEL,
    }
    oracle = [
        {"path": ".", "module": "structdist.model", "target": "Tagger", "inputs": ["f32[2,3,4]", "i64[2]"]},
        {"path": ".", "module": "structdist.model", "target": "Decoder", "inputs": ["f32[2,3,4]"]},
        {"path": ".", "module": "structdist.model", "target": "Bounded", "inputs": ["f32[2,3,4]"]},
    ]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
