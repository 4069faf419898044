"""An object one constructor keeps and hands to another (`self.ball = Ball()`, then
`Layer(ball=self.ball)`) is followed into the layer that keeps it in turn: the layer's
`self.ball.dist(x)` reaches `Ball.dist`. Setting `self.<attr>` in a method leaves what the
method's other `self.<attr>` reads hold as it was. A class with the same method that no
constructor is handed stays unchecked."""

from __future__ import annotations

from support import marked_package_tests, write_package

GEOMETRY = """import torch


class Ball:
    def __init__(self, c=1.0):
        self.c = c

    def dist(self, x):
        if x.norm() > self.c:  # graph break
            x = x / x.norm()
        return x


class Flat:
    def dist(self, x):
        print("flat", x.tolist())
        return x
"""

LAYERS = """from torch import nn


class Project(nn.Module):
    def __init__(self, features, *, ball):
        super().__init__()
        self.ball = ball
        self.lin = nn.Linear(features, features)

    def forward(self, x):
        return self.ball.dist(self.lin(x))
"""

MODEL = """from torch import nn

from .geometry import Ball
from .layers import Project


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ball = Ball(c=0.5)
        self.proj = Project(4, ball=self.ball)

    def forward(self, x):
        return self.proj(x) * 2
"""

TARGETS = """from kpkg.model import Net

NET = Net()
"""

ORACLE = [{"path": ".", "module": "kpkg.targets", "target": "NET", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {
        "kpkg/__init__.py": "",
        "kpkg/geometry.py": GEOMETRY,
        "kpkg/layers.py": LAYERS,
        "kpkg/model.py": MODEL,
        "kpkg/targets.py": TARGETS,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
