"""A call of an installed package's function that breaks the graph inside (torchdiffeq's
``odeint`` checks its times with a branch on their values): dynamo reports the break at the
innermost frame of the project, the call, so TL009 flags the call, naming where inside the
package the break is. The package's code is read from site-packages, never imported. A
function of the package that compiles is silent, and so is one whose break sits on a path its
caller decides (``if max_len is None: max_len = lens.amax().item()``, called with a length)."""

from __future__ import annotations

import sys
from unittest.mock import ANY

import pytest
from support import dynamo_lines, marked, static_found, write, write_package

from torchlint.analysis import installed
from torchlint.static import installed_breaks

SOLVE = """import torch
from torch import nn


def _check(t):
    if (t[1:] <= t[:-1]).any():
        raise ValueError("the times must increase")


def integrate(f, y0, t):
    _check(t)
    y = y0
    for i in range(t.shape[0] - 1):
        y = y + (t[i + 1] - t[i]) * f(y)
    return y


def integrate_steps(f, y0, steps):
    y = y0
    for _ in range(steps):
        y = y + 0.1 * f(y)
    return y


def lens_to_mask(lens, max_len=None):
    if max_len is None:
        max_len = lens.amax().item()
    return torch.arange(max_len) < lens[..., None]


class Stepper(nn.Module):
    def forward(self, y):
        print("step")
        return y * 2


class GraphNorm(nn.Module):
    def forward(self, x, batch=None, batch_size=None):
        if batch is None:
            return x - x.mean()
        if batch_size is None:
            batch_size = int(batch.max()) + 1
        return x * batch_size
"""

MODEL = """import torch
from odelib import GraphNorm, Stepper, integrate, integrate_steps, lens_to_mask
from torch import nn


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.field = nn.Linear(4, 4)
        self.stepper = Stepper()
        self.norm = GraphNorm()

    def forward(self, y):
        t = torch.linspace(0, 1, 3)
        a = integrate(torch.tanh, y, t)  # graph break
        b = integrate_steps(torch.tanh, y, 2)
        mask = lens_to_mask(torch.tensor([1, 3]), 4)
        c = self.stepper(self.field(y))  # graph break
        d = self.norm(c, torch.tensor([0, 1]), 2) + self.norm(c)
        return a + b + c + d + mask.sum()


class Masked(nn.Module):
    def __init__(self, norm=True):
        super().__init__()
        self.norm = GraphNorm() if norm else None

    def forward(self, y):
        mask = lens_to_mask(torch.tensor([1, 3]))  # graph break
        return self.norm(y, torch.tensor([0, 1])) + mask.sum()  # graph break


class Chosen(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.fixed = fixed

    def forward(self, y):
        solve = integrate_steps if self.fixed else integrate
        a = solve(torch.tanh, y, torch.linspace(0, 1, 3))  # graph break
        step = integrate_steps
        return a + step(torch.tanh, y, 2)
"""

ORACLE = [
    {"path": ".", "module": "flowapp.model", "target": name, "inputs": ["f32[2,4]"]}
    for name in ("Flow", "Masked", "Chosen")
]


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder of installed packages holding `odelib`, on sys.path as site-packages are."""
    folder = tmp_path / "lib" / "site-packages"
    names = "GraphNorm, Stepper, integrate, integrate_steps, lens_to_mask"
    write(folder, "odelib/__init__.py", f"from .solve import {names}\n")
    write(folder, "odelib/solve.py", SOLVE)
    # a compiled extension module (never imported here: its file only says what it is), a
    # module importing from it, and a Python module that has a stray extension file beside it
    write(folder, "odelib/_fast.cpython-311-x86_64-linux-gnu.so", "")
    write(folder, "odelib/fastpath.py", "from ._fast import solve as fast_solve\n")
    write(folder, "odelib/_slow.py", "def solve(y):\n    return y\n")
    write(folder, "odelib/_slow.cpython-311-x86_64-linux-gnu.so", "")
    monkeypatch.syspath_prepend(str(folder))
    _clear()
    yield folder
    _clear()
    for name in [n for n in sys.modules if n.split(".")[0] in ("odelib", "flowapp")]:
        del sys.modules[name]


def _clear():
    installed._whole_package.cache_clear()
    installed.is_module_class.cache_clear()
    installed.functions.cache_clear()
    installed_breaks.breaks_inside.cache_clear()
    installed_breaks._file_findings.cache_clear()


def make(root):
    files = {"flowapp/__init__.py": "", "flowapp/model.py": MODEL}
    return write_package(root / "project", files, ORACLE)


def test_the_break_inside_is_found_in_the_installed_source(site):
    inside = installed_breaks.breaks_inside
    where = inside("odelib.integrate", None)
    assert where is not None and where[0].endswith("solve.py") and where[1:3] == (6, "TL005")
    assert inside("odelib.Stepper", "__call__")[1:3] == (33, "TL004")  # type: ignore[index]
    assert inside("odelib.integrate_steps", None) is None
    assert inside("odelib.lens_to_mask", None) is None
    # a path the caller decides, decided by what the call passes: a parameter left out holds
    # its default, one passed is taken for a value
    assert inside("odelib.lens_to_mask", None, (1, ())) == (where[0], 27, "TL001", ANY)
    assert inside("odelib.lens_to_mask", None, (2, ())) is None
    assert inside("odelib.lens_to_mask", None, (1, ("max_len",))) is None
    assert inside("odelib.GraphNorm", "__call__", (2, ()))[1:3] == (42, "TL002")  # type: ignore[index]
    assert inside("odelib.GraphNorm", "__call__", (3, ())) is None
    assert inside("odelib.GraphNorm", "__call__", (1, ())) is None
    assert inside("odelib.missing", None) is None


def test_a_function_of_a_compiled_extension_module_breaks(site):
    """Dynamo cannot trace a C extension's function: calling one breaks, as the dynamo test
    below shows on a real one."""
    inside = installed_breaks.breaks_inside
    for qual in ("odelib._fast.solve", "odelib.fastpath.fast_solve"):
        where = inside(qual, None)
        assert where is not None and where[0].endswith("_fast.cpython-311-x86_64-linux-gnu.so"), qual
        assert where[2] == "TL009" and "compiled extension" in where[3]
    assert inside("odelib._slow.solve", None) is None  # the Python module is what imports


@pytest.mark.dynamo
def test_a_real_extension_function_breaks_where_the_static_pass_says(tmp_path):
    """markupsafe (installed with the docs tools) keeps `_escape_inner` in its C extension."""
    speedups = pytest.importorskip("markupsafe._speedups")
    if not speedups.__file__.endswith((".so", ".pyd")):
        pytest.skip("markupsafe has no compiled speedups here")
    _clear()
    model = """import torch
from markupsafe._speedups import _escape_inner
from torch import nn


class Tagged(nn.Module):
    def forward(self, x):
        label = _escape_inner("<x>")  # graph break
        return x * len(label)
"""
    oracle = [{"path": ".", "module": "tagapp.model", "target": "Tagged", "inputs": ["f32[2,4]"]}]
    folder = write_package(tmp_path / "project", {"tagapp/__init__.py": "", "tagapp/model.py": model}, oracle)
    assert static_found(folder) == {("tagapp/model.py", 8, "TL009")}
    assert dynamo_lines(folder) == marked(folder)


def test_the_static_pass_flags_the_calls(site, tmp_path):
    folder = make(tmp_path)
    found = static_found(folder)
    assert {(p, line) for p, line, _ in found} == marked(folder)
    assert {rule for _, _, rule in found} == {"TL009"}


def test_without_the_project_the_package_is_not_read(site, tmp_path):
    assert static_found(make(tmp_path), "--no-project") == set()


@pytest.mark.dynamo
def test_the_marks_are_where_dynamo_breaks(site, tmp_path):
    folder = make(tmp_path)
    assert dynamo_lines(folder) == marked(folder)


BASES = """from torch import nn


class Block(nn.Module):
    pass


class Options:
    def forward(self, x):
        return x
"""

LAYERS = """from .bases import Block


class Layer(Block):
    def forward(self, x):
        return x
"""

USER = """from odelib.layers import Layer
from odelib.bases import Options


class Shout(Layer):
    def forward(self, x):
        print("shout")  # graph break
        return x * 2


class Settings(Options):
    def forward(self, x):
        print("not a module: its forward is no region")
        return x
"""


def test_a_class_deriving_from_an_installed_module_class_is_a_module(site, tmp_path):
    """``class Shout(odelib.layers.Layer)``, where ``Layer`` derives from ``nn.Module`` through
    another file of its package (as a model subclasses ``torch_geometric.nn.MessagePassing`` or
    ``transformers.PreTrainedModel``): its ``forward`` is a region. A subclass of the package's
    plain class is not."""
    folder = _user_project(site, tmp_path)
    assert installed.is_module_class("odelib.layers.Layer") and not installed.is_module_class("odelib.bases.Options")
    assert static_found(folder) == {("userapp/model.py", 7, "TL004")}
    assert static_found(folder, "--no-project") == set()


@pytest.mark.dynamo
def test_a_subclass_of_an_installed_module_class_breaks_where_marked(site, tmp_path):
    folder = _user_project(site, tmp_path)
    assert dynamo_lines(folder) == marked(folder) == {("userapp/model.py", 7)}


def _user_project(site, tmp_path):
    write(site, "odelib/bases.py", BASES)
    write(site, "odelib/layers.py", LAYERS)
    oracle = [{"path": ".", "module": "userapp.model", "target": "Shout", "inputs": ["f32[2,4]"]}]
    return write_package(tmp_path / "project", {"userapp/__init__.py": "", "userapp/model.py": USER}, oracle)
