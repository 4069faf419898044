"""A solver picked by a factory function (`solver_fn = methods.select(method); solver =
solver_fn(func)`, torchsde's shape) is an instance of each class the factory returns: its
methods are compiled code, and a break inside one also breaks where the caller runs it (dynamo
cannot rebuild the object to resume inside). A function called through a local that names it
(`solve = sdeint if self.fast else sdeint_checked`) is called with what the caller passes: the
time grid, a registered buffer, is a tensor inside it, and so are its elements passed on, even
where the name may also be rebound (`ts = torch.tensor(ts)` when it is not one). The step
size read from a Python float stays a number."""

from __future__ import annotations

from support import marked_package_tests, write_package

METHODS = """class Euler:
    def __init__(self, func, dt):
        self.func = func
        self.dt = dt

    def integrate(self, y0, ts):
        y = y0
        steps = int(1 / self.dt)
        for _ in range(steps):
            y = y + self.dt * self.func(y)
        return y * (ts[-1] - ts[0]).item()  # graph break


class Midpoint(Euler):
    def integrate(self, y0, ts):
        mid = y0 + 0.5 * self.dt * self.func(y0)
        return y0 + self.dt * self.func(mid)


def select(method):
    if method == "euler":
        return Euler
    return Midpoint


def ordered(t0, t1, ts):
    if t0 > t1:  # graph break
        return ts.flip(0)
    return ts
"""

SDEINT = """import torch

from . import methods


def sdeint(func, y0, ts, method="euler", dt=0.25):
    if not torch.is_tensor(ts):
        ts = torch.tensor(ts)
    ts = methods.ordered(ts[0], ts[-1], ts)
    solver_fn = methods.select(method)
    solver = solver_fn(func, dt)
    return solver.integrate(y0, ts)  # graph break


def sdeint_checked(func, y0, ts, method="euler", dt=0.25):
    return sdeint(func, y0, ts, method, dt)
"""

MODEL = """import torch
from torch import nn

from .sdeint import sdeint, sdeint_checked


class Net(nn.Module):
    def __init__(self, fast=True):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.fast = fast
        self.register_buffer("ts", torch.linspace(0, 1, 3))

    def drift(self, y):
        return torch.tanh(self.lin(y))

    def forward(self, y0):
        solve = sdeint if self.fast else sdeint_checked
        return solve(self.drift, y0, self.ts)
"""

ORACLE = [{"path": ".", "module": "fpkg.model", "target": "Net", "inputs": ["f32[2,3]"]}]


def make(root):
    files = {"fpkg/__init__.py": "", "fpkg/methods.py": METHODS, "fpkg/sdeint.py": SDEINT, "fpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
