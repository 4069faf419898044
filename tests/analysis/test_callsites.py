"""A parameter's kind from every call of it in the project (torchlint.analysis.callsites).

The project below is written so that every line where dynamo breaks carries `# graph break`:
the static pass must find exactly those (the `dynamo` test checks the marks against torch).
Its false positives before call sites were read: `torch.arange(max_len)` in a positional
embedding always called with a length read from a shape, and a cross-file helper's
`torch.arange(embed_dim)` with an int at every caller; the break kept: a gate whose
threshold is a tensor at its one caller (now known, no longer a guess).
"""

from __future__ import annotations

import os

import pytest
from support import dynamo_lines, marked, static_found, write, write_package

from torchlint.analysis.summary import summarize
from torchlint.config import Settings
from torchlint.static import static_pass
from torchlint.static.cache import Cache

LAYERS = """import torch
from torch import nn


class PosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, max_len):
        pos = torch.arange(max_len)
        if max_len > 16:
            pos = pos * 2
        return pos.float()[:, None] * torch.ones(self.dim)


class Gate(nn.Module):
    def forward(self, x, k):
        if k > 0:  # graph break
            return x * 2
        return x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, i, j):
        return self.proj(x)[:, : i + j]
"""

HELPERS = """import torch


def sinusoid(t, embed_dim):
    freqs = torch.arange(embed_dim).float()
    return t[..., None] * freqs
"""

MODEL = """import torch
from torch import nn

from .helpers import sinusoid
from .layers import Block, Gate, PosEmb


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = PosEmb(8)
        self.block = Block()
        self.gate = Gate()
        self.width = 4

    def forward(self, x):
        n = x.shape[1]
        h = self.block(x, x.shape[0], n // 2)
        h = self.gate(h, x.sum())
        e = sinusoid(x, self.width)
        return h.sum() + self.pos(x.size(1)).sum() + e.sum()
"""

ORACLE = [{"path": ".", "module": "pkg.model", "target": "Net", "inputs": ["f32[4,8]"]}]


def make(root, model=MODEL):
    files = {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/helpers.py": HELPERS, "pkg/model.py": model}
    return write_package(root, files, ORACLE)


found = static_found


def test_ints_from_shapes_are_ints_and_a_tensor_passed_is_a_tensor(tmp_path, monkeypatch):
    folder = make(tmp_path)
    assert {(p, line) for p, line, _ in found(folder)} == marked(folder)
    # without what the callers pass, the guesses of before: arange of a "tensor", a branch
    # on it, and the real break missed (a guessed parameter)
    from torchlint.analysis.project import Project

    monkeypatch.setattr(Project, "param_facts", lambda self, path: {})
    guessed = {(p, line) for p, line, _ in found(folder, "--no-cache")}
    # (a guess is quiet where a number is as likely: `torch.arange(max_len)`, `max_len > 16`)
    assert not {("pkg/layers.py", 11), ("pkg/layers.py", 12), ("pkg/helpers.py", 5)} & guessed
    assert ("pkg/layers.py", 19) not in guessed


def called_with(folder, path: str, function: str) -> dict | None:
    """What the project analysis says every call of ``function`` in ``path`` passes."""
    files = sorted(str(p) for p in folder.rglob("*.py"))
    sources = [open(f, encoding="utf-8").read() for f in files]
    facts, _ = static_pass.project_facts(files, sources, Settings(), scope=static_pass.project_scope(files, Settings()))
    return facts[files.index(str(folder / path))].get("params", {}).get(function)


@pytest.mark.dynamo
def test_the_marks_are_where_dynamo_breaks(tmp_path):
    folder = make(tmp_path)
    assert dynamo_lines(folder) == marked(folder)


def test_one_caller_passing_a_tensor_keeps_the_parameter_a_tensor(tmp_path):
    """A size passed as a tensor at a second call site: `arange` of it reads data (TL002)."""
    model = MODEL.replace("self.pos(x.size(1))", "self.pos(x.size(1)) + self.pos(x.sum().long())")
    folder = make(tmp_path, model)
    assert ("pkg/layers.py", 11, "TL002") in found(folder)


@pytest.mark.parametrize(
    "escape",
    [
        "        self.extra = [PosEmb(4)]\n",  # made where it is not followed
        "        self.kind = PosEmb\n",  # the class read as a value
    ],
)
def test_a_module_used_where_calls_are_not_followed_keeps_todays_guess(tmp_path, escape):
    assert called_with(make(tmp_path / "followed"), "pkg/layers.py", "PosEmb.forward") == {"max_len": "int"}
    model = MODEL.replace("        self.width = 4\n", "        self.width = 4\n" + escape)
    folder = make(tmp_path / "escaped", model)
    assert called_with(folder, "pkg/layers.py", "PosEmb.forward") is None  # not known: a guess


def test_a_function_with_no_caller_in_the_project_keeps_todays_guess(tmp_path):
    """(A parameter named for a dimension, `embed_dim`, is taken for an int whatever the
    callers: the guess is made of one named otherwise.)"""
    folder = make(tmp_path, MODEL.replace("sinusoid(x, self.width)", "x"))
    ramp = "\n\ndef ramp(t, count):\n    return t[..., None] * torch.arange(count).float()\n"
    out = "\n\nclass Out(torch.nn.Module):\n    def forward(self, x):\n        return ramp(x, x)\n"
    write(folder, "pkg/helpers.py", HELPERS + ramp + out)
    line = (HELPERS + ramp).splitlines().index("    return t[..., None] * torch.arange(count).float()") + 1
    assert ("pkg/helpers.py", line, "TL002") in found(folder)


def test_the_summary_lists_calls_with_the_kinds_of_their_arguments():
    s = summarize(MODEL)
    forward = s["classes"]["Net"]["methods"]["forward"]
    assert ["self.block", ["p:x", "i", "i"]] in forward["sites"]
    # (x rebound to what two methods return: resolved where the project knows them)
    assert ["self.gate", [["|", ["r", "self.gate"], ["r", "self.block"]], "t"]] in forward["sites"]
    assert ["sinusoid", ["p:x", "s:width"]] in forward["sites"]
    init = s["classes"]["Net"]["methods"]["__init__"]
    assert ["PosEmb", ["i"], {}, "pos"] in init["sites"] and init["fields"]["width"] == "i"


def test_a_callers_edit_rechecks_the_callee_with_the_cache(tmp_path):
    """The callee's facts come from its callers: the cache keys them, so an edit of the caller
    alone brings back (and then takes away) the callee's finding."""
    folder = make(tmp_path)
    files = sorted(str(p) for p in folder.rglob("*.py"))
    cache = Cache(str(tmp_path / ".cache"), ["TL0"], [])

    def static():
        findings, errors = static_pass.run_static(files, settings=Settings(), cache=cache)
        assert errors == []
        return {(os.path.basename(f.path), f.line, f.rule) for f in findings}

    before = static()
    assert ("layers.py", 11, "TL002") not in before
    write(folder, "pkg/model.py", MODEL.replace("self.pos(x.size(1))", "self.pos(x.sum().long())"))
    assert ("layers.py", 11, "TL002") in static()
    write(folder, "pkg/model.py", MODEL)
    assert static() == before


UNPACKED = """
import torch


def grid(h, w):
    return torch.arange(h).repeat_interleave(w)


def from_shapes(images):
    dims = []
    for image in images:
        hw = image.shape[-2:]
        dims.append((hw[0] // 4, hw[1] // 4))
    return [grid(h, w) for h, w in dims]


def from_a_tuple(x):
    h, w = x.shape[0], x.size(1)
    return grid(h, w)


def from_pairs(pairs):
    return [grid(h, w) for h, w in pairs]


def from_mixed(x, y):
    rows = [(x.sum(), 1)]
    rows.append((y.shape[0], 2))
    return [grid(h, w) for h, w in rows]
"""


def test_values_unpacked_from_tuples_keep_their_kinds():
    """`for h, w in dims` takes each place of the tuples `dims` was built from (its literal
    and its `.append((a, b))`), `h, w = a, b` each value, and `hw[0]` of a shape slice is an
    int; a parameter's pairs, and a place that holds a tensor in one row, stay unknown or tensor."""
    from torchlint.analysis.summary import summarize

    functions = summarize(UNPACKED)["functions"]
    kinds = {name: functions[name]["sites"][0][1] for name in ("from_shapes", "from_a_tuple", "from_pairs")}
    assert kinds == {"from_shapes": ["i", "i"], "from_a_tuple": ["i", "i"], "from_pairs": ["?", "?"]}
    mixed = functions["from_mixed"]["sites"][0][1]
    assert "t" in str(mixed[0]) and mixed[1] == "i"


def test_a_method_name_on_a_module_is_no_tensor_method():
    """``misc.half(x)`` calls a module's function named like a tensor method: what it returns
    is that function's (resolved by the project), not a tensor; ``y.half()`` of a local tensor
    and ``norm(y).abs()`` stay tensors."""
    s = summarize(
        "from . import misc\nimport torch\n\n\n"
        "def width(x):\n    return misc.half(x) + 1\n\n\n"
        "def cast(x):\n    y = torch.relu(x)\n    return y.half()\n\n\n"
        "def size(y, scale):\n    return norm(y / scale).abs()\n\n\n"
        "def flat(seq):\n    return utils.flatten(seq)\n"
    )
    functions = s["functions"]
    assert functions["width"]["ret"] == ["+", ["r", "misc.half"], "i"] and "returns" not in functions["width"]
    generator = summarize("import torch\n\n\ndef steps(x):\n    yield x\n    return x.sum()\n")["functions"]["steps"]
    assert "returns" not in generator and "ret" not in generator  # a call gives a generator
    assert functions["cast"]["returns"] == "tensor" and functions["size"]["returns"] == "tensor"
    assert functions["flat"]["ret"] == ["r", "utils.flatten"]


def test_tuples_of_tensors_returned_and_unpacked():
    """``return a1, p`` of tensors (each unpacked from ``torch.where``, or read from a
    parameter annotated ``Tensor``) returns tensors; ``Tuple[Tensor, Tensor]`` says so too; a
    tuple holding a shape's int, or a ``Tuple[Tensor, int]``, does not."""
    s = summarize(
        "import torch\nfrom typing import Tuple\nfrom torch import Tensor\n\n\n"
        "def pairs(m):\n    a1, p = torch.where(m > 0)\n    return a1, p\n\n\n"
        "def ends(ts: Tensor):\n    return ts[0], ts[-1]\n\n\n"
        "def said(x) -> Tuple[Tensor, Tensor]:\n    return f(x)\n\n\n"
        "def mixed(x):\n    b, n = x.shape[:2]\n    return torch.relu(x), n\n\n\n"
        "def said_mixed(x) -> Tuple[Tensor, int]:\n    return f(x)\n"
    )
    functions = s["functions"]
    assert [functions[f].get("returns") for f in ("pairs", "ends", "said", "mixed", "said_mixed")] == [
        "tensors",
        "tensors",
        "tensors",
        None,
        None,
    ]
