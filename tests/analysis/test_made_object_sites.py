"""A method called on an object the caller made (`solver = Solver(...); solver.integrate(t)`)
is a call site like any other: what the caller passes tells the method's parameters' kinds,
and from there the kinds of what the method passes on, across files. Here a time grid
registered as a buffer reaches an interpolation helper in another file through a solver
object, element by element (`t[i]`), and the helper's assertion with a formatted message
reads it on the host (torchdiffeq's shape). The tolerance passed as a float stays a float."""

from __future__ import annotations

from support import marked_package_tests, write_package

INTERP = """def interp_evaluate(coefficients, t0, t1, t, tol):
    assert (t0 <= t) & (t <= t1), "t={} not in [{}, {}]".format(t, t0, t1)  # graph break
    assert tol > 0, "tol={}".format(tol)
    x = (t - t0) / (t1 - t0)
    return coefficients[0] + x * coefficients[1]
"""

SOLVER = """import torch

from .interp import interp_evaluate


class Solver:
    def __init__(self, func, y0, tol):
        self.func = func
        self.y0 = y0
        self.tol = tol

    def _advance(self, t0, next_t):
        coeffs = [self.y0, self.func(t0, self.y0)]
        return interp_evaluate(coeffs, t0, t0 + 1, next_t, self.tol)

    def integrate(self, t):
        solution = torch.empty(len(t), *self.y0.shape)
        solution[0] = self.y0
        for i in range(1, len(t)):
            solution[i] = self._advance(t[0], t[i])
        return solution


def odeint(func, y0, t, tol=1e-3):
    solver = Solver(func, y0, tol)
    return solver.integrate(t)  # graph break
"""

MODEL = """import torch
from torch import nn

from .solver import odeint


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, t, y):
        return torch.tanh(self.lin(y))


class ODEBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.func = ODEFunc()
        self.register_buffer("t", torch.linspace(0, 1, 4))

    def forward(self, y0):
        return odeint(self.func, y0, self.t, tol=1e-4)[-1]
"""

ORACLE = [{"path": ".", "module": "opkg.model", "target": "ODEBlock", "inputs": ["f32[2,3]"]}]


def make(root):
    files = {"opkg/__init__.py": "", "opkg/interp.py": INTERP, "opkg/solver.py": SOLVER, "opkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
