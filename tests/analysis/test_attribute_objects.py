"""A method called on an object a module keeps (`self.table.lookup(x)`, `self.gate(x)`) is
traced by dynamo as the region's own code: it is followed into the class the attribute was made
from in `__init__` (or in a base class's, or the local it was made in: `if head is None: head =
Head()`), in any file; what such a method returns is known at the call (`self.coder.decode(x)`
gives a tensor). Another class's method of the same name,
and a method of the kept object that the region does not call, stay unchecked."""

from __future__ import annotations

from support import marked_package_tests, write_package

PARTS = """import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

    def margin(self, x):
        m = x.max()
        if m > 0:  # graph break
            return x - m
        return x


class Table:
    def __init__(self, n):
        self.n = n

    def lookup(self, x):
        print("lookup", x.shape)  # graph break
        return x * self.n

    def dump(self, x):
        print(x.tolist())
        return x


class Gate:
    def __call__(self, x):
        if x.sum() > 0:  # graph break
            return x
        return -x


class Cache:
    def lookup(self, x):
        print("cached", x.shape)
        return x


class Head(nn.Module):
    def forward(self, x):
        return x

    def score(self, x):
        return x[x > 0].sum()  # graph break


class Other:
    def score(self, x):
        return x[x > 0].sum()


class Coder:
    def decode(self, x):
        return torch.tanh(x) * 2

    def name(self, x):
        return "coder"
"""

MODEL = """import torch
from torch import nn

from .parts import Coder, Gate, Head, Scorer, Table


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()


class Net(Base):
    def __init__(self, head=None):
        super().__init__()
        self.scorer = Scorer()
        self.table = Table(3)
        if head is None:
            head = Head()
        self.head = head
        self.coder = Coder()

    def forward(self, x):
        y = self.scorer(x)
        y = self.scorer.margin(y)
        y = self.gate(y)
        d = self.coder.decode(y)
        kept = d[d > 0]  # graph break
        tag = self.coder.name(y)
        if tag:
            y = y + 1
        return self.table.lookup(y) + self.head.score(y) + kept.sum()
"""

ORACLE = [{"path": ".", "module": "apkg.model", "target": "Net", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {"apkg/__init__.py": "", "apkg/parts.py": PARTS, "apkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
