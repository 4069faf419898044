"""A module handed to a constructor by its annotation (``acqf: nn.Module``, ``Optional[...]``)
and kept on ``self`` is a submodule: calling it gives a tensor. An acquisition wrapper indexes
its candidates by the best value (``candidates[values.argmax()]``, a 0-d index dynamo reads on
the host); which module it is handed (here torch's own ``nn.Linear``, passed from a subclass)
no call in the project shows.

The look-alike: a picker handed without an annotation, a plain function returning an int:
indexing by what it returns stays a Python index, in dynamo too."""

from __future__ import annotations

from support import marked_package_tests, write_package

MODEL = """from typing import Optional

import torch
from torch import nn


def last(x):
    return x.shape[0] - 1


class Acquisition(nn.Module):
    def __init__(self, acqf: nn.Module, head: Optional[nn.Module] = None, pick=last) -> None:
        super().__init__()
        self.acqf = acqf
        self.head = head
        self.pick = pick

    def forward(self, candidates: torch.Tensor):
        values = self.acqf(candidates).squeeze(-1)
        best = candidates[values.argmax()]  # graph break
        return best + candidates[self.pick(candidates)]


class LinearAcquisition(Acquisition):
    def __init__(self) -> None:
        super().__init__(nn.Linear(3, 1))
"""


def make(root):
    files = {"acq/__init__.py": "", "acq/model.py": MODEL}
    oracle = [{"path": ".", "module": "acq.model", "target": "LinearAcquisition", "inputs": ["f32[5,3]"]}]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
