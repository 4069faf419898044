"""The hooks torch calls on a project's `torch.distributions` classes are regions.

`TransformedDistribution(base, [Clip()]).log_prob(x)` runs `Clip._inverse` and
`Clip.log_abs_det_jacobian` from torch's own code: no call in the project leads there, yet
dynamo traces them in the compiled forward, and breaks in them.
"""

from __future__ import annotations

import pytest
from support import dynamo_lines, static_found, write_package

TRANSFORMS = """import torch
from torch.distributions import constraints
from torch.distributions.transforms import Transform


class Clip(Transform):
    domain = constraints.real
    codomain = constraints.real
    bijective = True

    def _call(self, x):
        return x * 2

    def _inverse(self, y):
        out = y / 2
        inside = y.abs() < 10
        out[~inside] = y[~inside]
        return out

    def log_abs_det_jacobian(self, x, y):
        return torch.full_like(x, 0.6931)

    def describe(self, y):
        return y[y > 0]


class Plain:
    def _inverse(self, y):
        return y[y > 0]
"""

MODEL = """import torch
from torch import nn
from torch.distributions import Normal, TransformedDistribution

from .transforms import Clip


class Density(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = [Clip()]

    def forward(self, x):
        base = Normal(torch.zeros_like(x), torch.ones_like(x))
        return TransformedDistribution(base, self.flow).log_prob(x)
"""

ORACLE = [{"path": ".", "module": "flowpkg.model", "target": "Density", "inputs": ["f32[4]"]}]
#: the masked read in `Clip._inverse`, which `log_prob` runs
INVERSE = ("flowpkg/transforms.py", 17)


def make(root):
    files = {"flowpkg/__init__.py": "", "flowpkg/transforms.py": TRANSFORMS, "flowpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


def test_the_hooks_of_a_transform_are_regions(tmp_path):
    # the hook is checked; a method torch does not call (`describe`) and a class that is no
    # distribution (`Plain._inverse`) are not
    assert {(p, line) for p, line, _ in static_found(make(tmp_path))} == {INVERSE}


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_hook(tmp_path):
    # dynamo also breaks at `log_prob(x)`: it cannot rebuild the TransformedDistribution made
    # in the frame (torch's class, not the project's: TL021 does not follow it, a known miss)
    assert dynamo_lines(make(tmp_path)) == {INVERSE, ("flowpkg/model.py", 15)}
