"""A method kept on ``self`` and called through it: ``self.loss_method = self.mat_based if
mat_based else self.pair_based`` in ``__init__``, then ``self.loss_method(mat)`` in a method a
region reaches. Both methods may run, so both are regions, and a break in either is found
(pytorch-metric-learning's pair losses choose their loss this way); a method no field names
stays unreached."""

from __future__ import annotations

from support import marked_package_tests, write_package

LOSSES = """import torch
from torch import nn


class PairLoss(nn.Module):
    def __init__(self, mat_based=True):
        super().__init__()
        self.loss_method = self.mat_based if mat_based else self.pair_based

    def forward(self, emb):
        mat = torch.cdist(emb, emb)
        return self.loss_method(mat)

    def mat_based(self, mat):
        pos = mat > 0.5
        assert not torch.any(pos & (mat < 0)), "either positive or negative"  # graph break
        return (mat * pos).sum()

    def pair_based(self, mat):
        return mat[mat > 0.5].sum()  # graph break

    def unused(self, mat):
        return mat[mat > 0.1].sum()
"""

MODEL = """from torch import nn

from .losses import PairLoss


class Embed(nn.Module):
    def __init__(self, mat_based=True):
        super().__init__()
        self.net = nn.Linear(4, 3)
        self.loss = PairLoss(mat_based)

    def forward(self, x):
        return self.loss(self.net(x))


class PairEmbed(Embed):
    def __init__(self):
        super().__init__(mat_based=False)
"""

ORACLE = [
    {"path": ".", "module": "boundpkg.model", "target": "Embed", "inputs": ["f32[6,4]"]},
    {"path": ".", "module": "boundpkg.model", "target": "PairEmbed", "inputs": ["f32[6,4]"]},
]


def make(root):
    files = {"boundpkg/__init__.py": "", "boundpkg/losses.py": LOSSES, "boundpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
