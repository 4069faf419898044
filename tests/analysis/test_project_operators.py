"""Operators a project registers itself are known from their source, without importing it: one
whose fake kernel allocates a size computed from the data (`ctx.new_dynamic_size()`, the older
`create_unbacked_symint()`) returns a tensor whose shape depends on its inputs' values, so
dynamo breaks the graph wherever it is called (GB0036): through `torch.ops.<ns>.<op>`, its
`@custom_op` function (imported, or read off its module) or a wrapper in another file. Its
look-alikes stay silent: an operator whose fake kernel keeps the input's shape, and a plain
function of the same name."""

from __future__ import annotations

from support import marked, marked_package_tests, static_found, write_package

from torchlint.analysis.summary import summarize

OPS = """import numpy as np
import torch


@torch.library.custom_op("detpkg::keep", mutates_args=())
def keep(scores: torch.Tensor, threshold: float) -> torch.Tensor:
    return torch.from_numpy(np.flatnonzero(scores.numpy() > threshold))


@keep.register_fake
def _(scores, threshold):
    ctx = torch.library.get_ctx()
    return scores.new_empty(ctx.new_dynamic_size(), dtype=torch.long)


@torch.library.custom_op("detpkg::scale", mutates_args=())
def scale(x: torch.Tensor, s: float) -> torch.Tensor:
    return x * s


@scale.register_fake
def _(x, s):
    return torch.empty_like(x)


torch.library.define("detpkg::pick", "(Tensor x) -> Tensor")


@torch.library.impl("detpkg::pick", "cpu")
@torch.compiler.disable
def pick_cpu(x):
    return x[x > 0]


@torch.library.register_fake("detpkg::pick")
def pick_fake(x):
    n = torch._custom_ops.get_ctx().create_unbacked_symint()
    return x.new_empty(n)
"""

BOXES = """import torch

from . import _ops  # noqa: F401  (registers the operators)


def positive(x):
    return torch.ops.detpkg.pick(x)  # graph break


def doubled(x):
    return torch.ops.detpkg.scale.default(x, 2.0)
"""

UTIL = """def keep(x, threshold):
    return x * threshold
"""

MODEL = """import torch
from torch import nn

from . import _ops
from ._ops import keep
from .boxes import doubled, positive
from .util import keep as keep_scaled


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        scores = self.proj(x).sum(-1)
        kept = keep(scores, 0.0)  # graph break
        also = _ops.keep(scores, 1.0)  # graph break
        pos = positive(scores)
        same = doubled(scores) + _ops.scale(scores, 3.0) + keep_scaled(scores, 2.0)
        return kept.numel() + also.numel() + pos.sum() + same.sum()
"""

ORACLE = [{"path": ".", "module": "detpkg.model", "target": "Head", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {
        "detpkg/__init__.py": "",
        "detpkg/_ops.py": OPS,
        "detpkg/boxes.py": BOXES,
        "detpkg/util.py": UTIL,
        "detpkg/model.py": MODEL,
    }
    return write_package(root, files, ORACLE)


def test_the_summary_keeps_each_operator_and_its_fake_kernel():
    functions = summarize(OPS)["functions"]
    ops = {name: rec["op"] for name, rec in functions.items() if "op" in rec}
    fakes = {name: rec["dyn_fake"] for name, rec in functions.items() if "dyn_fake" in rec}
    assert ops == {"keep": "detpkg::keep", "scale": "detpkg::scale"}
    # two fake kernels named `_`: the data-dependent one is kept under its operator
    assert fakes == {"<fake =keep>": "=keep", "pick_fake": "detpkg::pick"}


def test_the_static_pass_finds_the_marked_breaks(tmp_path):
    folder = make(tmp_path)
    found = static_found(folder)
    assert {(p, line) for p, line, _ in found} == marked(folder)
    assert {rule for _, _, rule in found} == {"TL008"}


def test_with_fake_kernels_that_keep_sizes_nothing_is_flagged(tmp_path):
    folder = make(tmp_path)
    (folder / "detpkg" / "_ops.py").write_text(
        OPS.replace("ctx.new_dynamic_size()", "scores.shape[0]").replace(
            "torch._custom_ops.get_ctx().create_unbacked_symint()", "x.shape[0]"
        )
    )
    assert static_found(folder) == set()


_, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
