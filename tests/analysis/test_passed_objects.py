"""An object passed to a function as an argument has its methods traced when the function
calls them (`def solve(term, y): return term.vf(0.0, y)`): they are followed into each class
the project's calls pass an instance of, made at the call, returned by a method of the caller
(`term = self.pick()`) or passed on from the caller's own parameter. A class with the same
method that no call passes stays unchecked, and so does a tensor method called on a
parameter."""

from __future__ import annotations

from support import marked_package_tests, write_package

TERMS = """import torch


class Term:
    def vf(self, t, y):
        if y.sum() > 0:  # graph break
            y = y * 2
        return y


class Damped:
    def __init__(self, rate):
        self.rate = rate

    def vf(self, t, y):
        print("damped", y.shape)  # graph break
        return y * self.rate


class Returned:
    def vf(self, t, y):
        if y.mean() < 0:  # graph break
            y = -y
        return y


class Unpassed:
    def vf(self, t, y):
        print("never passed", y.tolist())
        return y


def solve(term, y):
    return term.vf(0.0, y)


def integrate(term, y, steps):
    for _ in range(steps):
        y = solve(term, y)
    return y.clamp(-1, 1)
"""

MODEL = """from torch import nn

from .terms import Damped, Returned, Term, integrate, solve


class Flow(nn.Module):
    def forward(self, x):
        return solve(Term(), x)


class Decay(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return integrate(Damped(0.5), self.lin(x), 1)


class Picked(nn.Module):
    def pick(self):
        return Returned()

    def forward(self, x):
        term = self.pick()
        return solve(term, x * 2)
"""

TARGETS = """from ppkg.model import Decay, Flow, Picked

FLOW = Flow()
DECAY = Decay()
PICKED = Picked()
"""

ORACLE = [
    {"path": ".", "module": "ppkg.targets", "target": name, "inputs": ["f32[3,4]"]}
    for name in ("FLOW", "DECAY", "PICKED")
]


def make(root):
    files = {"ppkg/__init__.py": "", "ppkg/terms.py": TERMS, "ppkg/model.py": MODEL, "ppkg/targets.py": TARGETS}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
