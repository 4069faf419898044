"""Kinds that come through calls, on a metric-learning package laid out as such libraries are:

* a helper in another file returns a tuple of tensors (``a1, p = torch.where(matches)``), so
  each name unpacked from its call is a tensor;
* a distance module made by a base class in another file gives a matrix that is indexed by
  those tensors (``mat[a1, p]``): only an array takes index tensors, so the pairs' distances
  are a tensor, and a mask picked by a flag (``d < m if inverted else d > m``) is a mask;
* a solver's parameter annotated ``ts: Tensor`` passes ``ts[0]`` on: the interpolation's
  ``t0`` is a tensor at its one call, so its chained comparison breaks;
* a loss is a module, but no model's forward calls it: it is a region of its own, as every
  module's forward is, and its break is found.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

UTILS = """import torch


def get_pairs(labels):
    matches = (labels.unsqueeze(1) == labels.unsqueeze(0)).byte()
    diffs = matches ^ 1
    a1, p = torch.where(matches)  # graph break
    a2, n = torch.where(diffs)  # graph break
    return a1, p, a2, n


def linear(t0, y0, t1, y1, t):
    assert t0 <= t <= t1, f"bad times {t0} {t} {t1}"  # graph break
    return (t1 - t) / (t1 - t0) * y0 + (t - t0) / (t1 - t0) * y1
"""

BASE = """import torch
from torch import nn


class Distance(nn.Module):
    def forward(self, a, b):
        return torch.cdist(a, b)


class BaseMiner(nn.Module):
    def __init__(self, distance=None):
        super().__init__()
        self.distance = distance or Distance()

    def forward(self, emb, labels):
        return self.mine(emb, labels)

    def mine(self, emb, labels):
        raise NotImplementedError
"""

MINERS = """from . import utils
from .base import BaseMiner


class PairMiner(BaseMiner):
    def __init__(self, margin=0.5, inverted=False, **kwargs):
        super().__init__(**kwargs)
        self.margin = margin
        self.inverted = inverted

    def mine(self, emb, labels):
        mat = self.distance(emb, emb)
        a1, p, a2, n = utils.get_pairs(labels)
        pos = mat[a1, p]
        keep = pos < self.margin if self.inverted else pos > self.margin
        return a1[keep], p[keep]  # graph break
"""

SOLVER = """import torch
from torch import Tensor

from . import utils


class Solver:
    def __init__(self, dt):
        self.dt = dt

    def path(self, y0: Tensor, ts: Tensor) -> Tensor:
        prev_t, prev_y = ts[0], y0
        ys = [y0]
        for out_t in ts[1:]:
            curr_y = prev_y * 0.9
            ys.append(utils.linear(t0=prev_t, y0=prev_y, t1=out_t, y1=curr_y, t=out_t))
            prev_t, prev_y = out_t, curr_y
        return torch.stack(ys)
"""

MODEL = """import torch
from torch import nn

from .miners import PairMiner
from .solver import Solver


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 3)
        self.miner = PairMiner()

    def forward(self, x, labels):
        emb = self.net(x)
        a, p = self.miner(emb, labels)
        return emb[a].sum() + emb[p].sum()


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.solver = Solver(0.1)

    def forward(self, y0, ts):
        return self.solver.path(y0, ts.abs().cumsum(0))
"""

ORACLE = [
    {"path": ".", "module": "minerpkg.model", "target": "Embed", "inputs": ["f32[8,4]", "i64[8]:0..3"]},
    {"path": ".", "module": "minerpkg.model", "target": "Flow", "inputs": ["f32[2,3]", "f32[4]"]},
]


def make(root):
    files = {
        "minerpkg/__init__.py": "",
        "minerpkg/utils.py": UTILS,
        "minerpkg/base.py": BASE,
        "minerpkg/miners.py": MINERS,
        "minerpkg/solver.py": SOLVER,
        "minerpkg/model.py": MODEL,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
