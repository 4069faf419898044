"""Classes handed around as objects, strategies whose methods a module calls.

A structured-prediction layer takes its semiring as a class, not an instance: ``Chain(
semirings.MaxSemiring)`` keeps it on ``self`` and calls its static and class methods
(``sr = self.semiring; sr.sum(sr.times(x, x))``), and a scoring function takes one as a
default (``def score(x, semiring=CountSemiring)``). Dynamo traces into those methods and breaks
where they read a tensor's value: ``MaxSemiring.sum``'s test on ``(xs > 1e9).any()`` and
``CountSemiring.sum``'s ``int(...)``. The classes are found through the constructor's calls
across files (by a module's attribute, ``semirings.MaxSemiring``) and through the default.

The look-alikes: the log semiring, the chain's default and ``plain_score``'s, whose methods
compile (``LogModel`` uses both), and ``KMaxSemiring``, whose ``sum`` reads a value too but
that nothing compiled is handed: silent. The methods are named as tensors' are (``sum``).
"""

from __future__ import annotations

from support import marked_package_tests, write_package

SEMIRINGS = """import torch


class Semiring:
    @classmethod
    def times(cls, a, b):
        return a + b

    @classmethod
    def sum(cls, xs, dim=-1):
        return torch.logsumexp(xs, dim=dim)


class LogSemiring(Semiring):
    pass


class MaxSemiring(Semiring):
    @staticmethod
    def sum(xs, dim=-1):
        if (xs > 1e9).any():  # graph break
            raise ValueError("overflow")
        return xs.max(dim=dim)[0]


class CountSemiring(Semiring):
    @classmethod
    def sum(cls, xs, dim=-1):
        n = int(xs.ne(0).sum())  # graph break
        return xs.sum(dim) / n


class KMaxSemiring(Semiring):
    @staticmethod
    def sum(xs, dim=-1):
        k = int(xs.shape[dim] > 2) + xs.ne(0).sum().item()
        return xs.topk(k, dim=dim)[0].sum(dim)
"""

CHAIN = """from torch import nn

from .semirings import LogSemiring


class Chain(nn.Module):
    def __init__(self, semiring=LogSemiring):
        super().__init__()
        self.semiring = semiring

    def forward(self, x):
        sr = self.semiring
        return sr.sum(sr.times(x, x))
"""

MODEL = """from torch import nn

from . import semirings
from .chain import Chain
from .semirings import CountSemiring, LogSemiring


def score(x, semiring=CountSemiring):
    return semiring.sum(x)


def plain_score(x, semiring=LogSemiring):
    return semiring.sum(x)


class MaxModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.chain = Chain(semirings.MaxSemiring)

    def forward(self, x):
        return self.chain(self.proj(x))


class LogModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.chain = Chain()

    def forward(self, x):
        return self.chain(self.proj(x)) + plain_score(x)


class Scorer(nn.Module):
    def forward(self, x):
        return score(x.relu() + 1)
"""


def make(root):
    files = {
        "strategies/__init__.py": "",
        "strategies/semirings.py": SEMIRINGS,
        "strategies/chain.py": CHAIN,
        "strategies/model.py": MODEL,
    }
    oracle = [
        {"path": ".", "module": "strategies.model", "target": name, "inputs": ["f32[2,4]"]}
        for name in ("MaxModel", "LogModel", "Scorer")
    ]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
