"""An installed package's wrapper of its own data-dependent operator (a detection library's
`nms`, registered with a fake kernel that allocates a size from the data, wrapped in
`def nms(...): return torch.ops.<lib>.nms(...)`) breaks the graph where the project calls it:
read from the package's source in site-packages, never imported. Its functions that return
something else stay silent, as do the package's names when it registers no such operator."""

from __future__ import annotations

import sys

import pytest
from support import dynamo_lines, marked, static_found, write, write_package

from torchlint.analysis import installed

META = """import torch

torch.library.define("detlib::nms", "(Tensor boxes, Tensor scores) -> Tensor")


@torch.library.impl("detlib::nms", "cpu")
@torch.compiler.disable
def _nms_cpu(boxes, scores):
    return torch.nonzero(scores > 0).flatten()


@torch.library.register_fake("detlib::nms")
def _nms_fake(boxes, scores):
    ctx = torch.library.get_ctx()
    return scores.new_empty(ctx.new_dynamic_size(), dtype=torch.long)
"""

BOXES = """import torch

from .. import _meta  # noqa: F401  (registers the operator)


def nms(boxes, scores):
    return torch.ops.detlib.nms(boxes, scores)


def batched_nms(boxes, scores, offset):
    keep = nms(boxes + offset, scores)
    return keep


def area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
"""

MODEL = """import torch
from detlib import ops
from detlib.ops import nms
from torch import nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 5)

    def forward(self, x):
        out = self.head(x)
        boxes, scores = out[:, :4], out[:, 4]
        keep = nms(boxes, scores)  # graph break
        also = ops.batched_nms(boxes, scores, 1.0)  # graph break
        return keep.numel() + also.numel() + ops.area(boxes).sum()
"""

ORACLE = [{"path": ".", "module": "detapp.model", "target": "Detector", "inputs": ["f32[6,4]"]}]


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder of installed packages holding `detlib`, on sys.path as site-packages are."""
    folder = tmp_path / "lib" / "site-packages"
    write(folder, "detlib/__init__.py", "")
    write(folder, "detlib/_meta.py", META)
    write(folder, "detlib/ops/__init__.py", "from .boxes import area, batched_nms, nms\n")
    write(folder, "detlib/ops/boxes.py", BOXES)
    monkeypatch.syspath_prepend(str(folder))
    installed._package.cache_clear()
    installed.dynamic_call.cache_clear()
    yield folder
    installed._package.cache_clear()
    installed.dynamic_call.cache_clear()
    for name in [n for n in sys.modules if n.split(".")[0] in ("detlib", "detapp")]:
        del sys.modules[name]


def make(root):
    files = {"detapp/__init__.py": "", "detapp/model.py": MODEL}
    return write_package(root / "project", files, ORACLE)


def test_the_wrappers_are_found_in_the_installed_source(site):
    assert installed.dynamic_call("detlib.ops.nms")
    assert installed.dynamic_call("detlib.ops.boxes.batched_nms")
    assert not installed.dynamic_call("detlib.ops.area")
    assert not installed.dynamic_call("detlib.ops.missing")


def test_the_static_pass_finds_the_marked_breaks(site, tmp_path):
    folder = make(tmp_path)
    assert {(p, line) for p, line, _ in static_found(folder)} == marked(folder)


def test_a_package_registering_nothing_dynamic_is_silent(site, tmp_path):
    (site / "detlib" / "_meta.py").write_text(META.replace("ctx.new_dynamic_size()", "scores.shape[0]"))
    assert static_found(make(tmp_path)) == set()


@pytest.mark.dynamo
def test_the_marks_are_where_dynamo_breaks(site, tmp_path):
    folder = make(tmp_path)
    assert dynamo_lines(folder) == marked(folder)
