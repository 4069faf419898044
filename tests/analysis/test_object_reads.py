"""Reading a property of an object (`s.total`), indexing it (`s[0]`), taking its `len()` or
calling it (`fn(x)`) runs a method of its class, which dynamo traces like a call: the property,
`__getitem__`, `__len__` or `__call__` of each class the object is made as (a local the region
makes, `self.table` made in `__init__` or handed to it) or passed as (a parameter). A class
whose property no region reads, and a plain method of the same name that nothing calls, stay
unchecked. A property with a setter is read through its getter (called, too: a loss
function a property hands out)."""

from __future__ import annotations

from support import marked_package_tests, write_package

STATS = """import torch


class Stats:
    def __init__(self, x):
        self.x = x

    @property
    def peak(self):
        return self.x.max().item()  # graph break

    @property
    def spread(self):
        return self.x.std().tolist()  # graph break

    def __getitem__(self, i):
        print("row", i)  # graph break
        return self.x[i]


class Table:
    def __init__(self, n):
        self.values = torch.linspace(0.5, 1.5, n)

    @property
    def scale(self):
        return float(self.values.mean())  # graph break

    @scale.setter
    def scale(self, value):
        self.values = torch.full_like(self.values, value)

    def __len__(self):
        return int(self.values.sum().item())  # graph break


class Shift:
    def __init__(self, by):
        self.by = by

    def __call__(self, x):
        print("shift", self.by)  # graph break
        return x + self.by


class Quiet:
    def __init__(self, n):
        self.values = torch.ones(n)

    @property
    def peak(self):
        return self.values.max().item()

    def scale(self):
        print("never called")
        return 1.0
"""

MODEL = """from torch import nn

from .stats import Shift, Stats, Table


def weigh(stats, x):
    return x * stats.spread


class Peak(nn.Module):
    def forward(self, x):
        s = Stats(x)
        return x * s.peak


class Row(nn.Module):
    def forward(self, x):
        s = Stats(x)
        return s[0] * 2


class Scaled(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.table = table
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x) * self.table.scale


class Weighed(nn.Module):
    def forward(self, x):
        return weigh(Stats(x.abs()), x)


class Shifted(nn.Module):
    def forward(self, x):
        fn = Shift(1.0)
        return fn(x) * 2


class Sized(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = Table(4)

    def forward(self, x):
        table = self.table
        return x * len(table)


class Headed(nn.Module):
    @property
    def loss_fn(self):
        if getattr(self, "chosen", None) is None:
            print("the default loss")  # graph break
        return nn.functional.mse_loss

    @loss_fn.setter
    def loss_fn(self, value):
        self.chosen = value

    def forward(self, x):
        return self.loss_fn(x, x.flip(0))


def build():
    return Scaled(Table(4))
"""

TARGETS = """from readpkg.model import Headed, Peak, Row, Shifted, Sized, Weighed, build

PEAK = Peak()
ROW = Row()
SCALED = build()
WEIGHED = Weighed()
SHIFTED = Shifted()
SIZED = Sized()
HEADED = Headed()
"""

ORACLE = [
    {"path": ".", "module": "readpkg.targets", "target": name, "inputs": ["f32[3,4]"]}
    for name in ("PEAK", "ROW", "SCALED", "WEIGHED", "SHIFTED", "SIZED", "HEADED")
]


def make(root):
    files = {
        "readpkg/__init__.py": "",
        "readpkg/stats.py": STATS,
        "readpkg/model.py": MODEL,
        "readpkg/targets.py": TARGETS,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
