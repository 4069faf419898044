"""Objects a region makes: their methods and constructors are regions, and a break inside a
method spreads to the call (TL021) because dynamo cannot rebuild the object to resume in it.

The package below is a solver library in the style of ODE and flow libraries: a table of
solver classes, a solver made in the compiled function and its method called, a constructor
that runs in the region, helpers reached in an order the file does not give. Every line where
dynamo breaks carries `# graph break`; the static pass must find exactly those (the `dynamo`
test checks the marks against torch).
"""

from __future__ import annotations

import json
import os

import pytest
from support import dynamo_lines, marked, run_cli, static_found, write, write_package

SOLVERS = """import torch


class Base:
    def __init__(self, scale):
        self.scale = scale

    def integrate(self, t):
        out = []
        for t0, t1 in zip(t[:-1], t[1:]):
            out.append(self._interp(t0, t1, t[1]))
        return torch.stack(out)

    def _interp(self, t0, t1, t):
        if t == t0:  # graph break
            return t0 * self.scale
        return t1


class Euler(Base):
    def step(self, y):
        return y * self.scale


class Loud(Euler):
    def __init__(self, scale):
        super().__init__(scale)
        self.offset = torch.zeros(1).item()  # graph break


class Clean:
    def __init__(self, scale):
        self.scale = scale

    def run(self, y):
        return y * self.scale


TABLE = {"euler": Euler}


class Failed(Exception):
    def __init__(self, value):
        super().__init__(str(value))
        print("failed")
"""

MODEL = """import torch
from torch import nn

from .solvers import TABLE, Clean, Euler, Loud


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.held = Euler(2.0)

    def forward(self, y):
        solver = TABLE["euler"](2.0)
        out = solver.integrate(y)  # graph break
        loud = Loud(1.0)
        out = out.sum() + loud.integrate(y).sum()
        clean = Clean(3.0)
        out = out + clean.run(y).sum()
        return out + self.held.step(y).sum()
"""

ORACLE = [{"path": ".", "module": "odepkg.model", "target": "Net", "inputs": ["f32[4]"]}]


def make(root, model=MODEL, solvers=SOLVERS):
    files = {"odepkg/__init__.py": "", "odepkg/solvers.py": solvers, "odepkg/model.py": model}
    return write_package(root, files, ORACLE)


found = static_found


def test_the_static_pass_finds_the_marked_breaks(tmp_path):
    folder = make(tmp_path)
    got = found(folder)
    assert {(p, line) for p, line, _ in got} == marked(folder)
    # the call that spreads the break is TL021; the breaks inside are the rules' own
    assert ("odepkg/model.py", 14, "TL021") in got
    assert ("odepkg/solvers.py", 15, "TL005") in got  # a callee walked after its caller
    assert ("odepkg/solvers.py", 28) in {(p, line) for p, line, _ in got}  # the constructor runs in the region
    # `loud.integrate(y)` breaks inside too, but `Loud(...)` broke first: the frame resumed
    # after it holds `loud` as an input, which dynamo rebuilds
    assert ("odepkg/model.py", 16, "TL021") not in got


@pytest.mark.dynamo
def test_the_marks_are_where_dynamo_breaks(tmp_path):
    folder = make(tmp_path)
    assert dynamo_lines(folder) == marked(folder)


def test_a_method_with_no_break_does_not_spread(tmp_path):
    """The clean method of a made object, and a break-free integrate: no TL021."""
    solvers = SOLVERS.replace("        if t == t0:  # graph break\n", "        if t is None:\n")
    got = found(make(tmp_path, solvers=solvers))
    assert ("odepkg/solvers.py", 28) in {(p, line) for p, line, _ in got}
    assert not {f for f in got if f[2] == "TL021"}


def test_an_object_kept_on_the_module_does_not_spread(tmp_path):
    """`self.solver = ...` in `__init__`: dynamo reads it from the module, it can rebuild it."""
    model = MODEL.replace("        solver = TABLE", "        self.solver = TABLE").replace(
        "solver.integrate(y)", "self.solver.integrate(y)"
    )
    got = found(make(tmp_path, model=model))
    assert not {f for f in got if f[2] == "TL021"}


def test_a_break_spreads_from_what_the_method_calls_in_another_file(tmp_path):
    """The break two calls down, in a third file: the call on the made object still spreads it."""
    solvers = SOLVERS.replace(
        "    def step(self, y):\n        return y * self.scale\n",
        "    def step(self, y):\n        return deep(y) * self.scale\n",
    ).replace("import torch\n", "import torch\n\nfrom .deep import deep\n", 1)
    model = MODEL.replace("        clean = Clean(3.0)\n", "        stepper = Euler(1.0)\n        y = stepper.step(y)\n")
    folder = make(tmp_path, model=model, solvers=solvers)
    write(folder, "odepkg/deep.py", "def deep(y):\n    if y.sum() > 0:\n        return y * 2\n    return y\n")
    got = found(folder)
    assert ("odepkg/deep.py", 2, "TL005") in got
    assert ("odepkg/model.py", 18, "TL021") in got


def test_exceptions_are_not_followed_into_their_constructors(tmp_path):
    """`raise Failed(x)`: made to be raised (dynamo stops there anyway). (A module made in a
    region is followed: `test_made_modules.py`.)"""
    model = MODEL.replace(
        "        return out + self.held.step(y).sum()\n",
        "        if out is None:\n            raise Failed(out)\n        return out + self.held.step(y).sum()\n",
    ).replace("from .solvers import TABLE, Clean, Euler", "from .solvers import TABLE, Clean, Euler, Failed")
    got = found(make(tmp_path, model=model))
    assert not {f for f in got if f[0] == "odepkg/solvers.py" and f[1] == 45}


def test_checking_only_the_callers_file_reports_the_spread_too(tmp_path):
    """The pre-commit case: the model file alone staged, the solvers it reaches checked with it."""
    folder = make(tmp_path)
    result = run_cli(["check", "odepkg/model.py", "--no-dynamic", "--format", "json", "--exit-zero"], cwd=folder)
    got = {(f["path"].replace(os.sep, "/"), f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]}
    assert ("odepkg/model.py", 14, "TL021") in got


def test_the_rule_can_be_ignored(tmp_path):
    got = found(make(tmp_path), "--ignore", "TL021")
    assert not {f for f in got if f[2] == "TL021"}
    assert ("odepkg/solvers.py", 15, "TL005") in got


NESTED_SOLVERS = (
    SOLVERS
    + """

class Outer:
    def run(self, t):
        return Euler(1.0).integrate(t)
"""
)

NESTED_MODEL = """from torch import nn

from .solvers import Outer


class Net(nn.Module):
    def forward(self, y):
        return Outer().run(y) * 2
"""


def test_a_made_object_inside_a_made_objects_method_spreads_to_both_calls(tmp_path):
    """`Outer().run(y)` makes a solver and calls its breaking method: dynamo gives up at the
    outer call, in the compiled frame, and compiles `run` as a frame of its own, which gives up
    at the inner call. (A property read on a made object is not such a frame:
    `test_structure_distributions.py`.)"""
    got = found(make(tmp_path, model=NESTED_MODEL, solvers=NESTED_SOLVERS))
    assert ("odepkg/model.py", 8, "TL021") in got
    assert ("odepkg/solvers.py", 50, "TL021") in got


@pytest.mark.dynamo
def test_both_calls_are_where_dynamo_breaks(tmp_path):
    folder = make(tmp_path, model=NESTED_MODEL, solvers=NESTED_SOLVERS)
    assert dynamo_lines(folder) == {(p, line) for p, line, _ in found(folder)}
