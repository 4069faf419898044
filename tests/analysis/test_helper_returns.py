"""A function that returns a tensor at every `return` is a tensor where it is called, in any
file, as one annotated `-> torch.Tensor` is: `return norm(err / tol).abs()`,
`return torch.cat(parts)`. A helper returning a length or a `math` result is not."""

from __future__ import annotations

from support import marked_package_tests, write_package

from torchlint.analysis.summary import summarize

HELPERS = """import math

import torch


def error_ratio(err, tol):
    return (err / tol).abs()


def joined(parts):
    if not parts:
        return torch.zeros(1)
    return torch.cat(parts)


def count(items):
    return len(items)


def root(n):
    return math.sqrt(n)


def scaled(x):
    return x * 2
"""

MODEL = """import torch
from torch import nn

from .helpers import count, error_ratio, joined, root, scaled


class Step(nn.Module):
    def forward(self, err):
        ratio = error_ratio(err, 0.1)
        accept = ratio <= 1
        if accept:  # graph break
            err = err * 2
        if joined([err, err]).sum() > 0:  # graph break
            err = err + 1
        if count([err]) > 1 or root(4) > 1:
            err = err - 1
        return scaled(err)
"""

ORACLE = [{"path": ".", "module": "steppkg.model", "target": "Step", "inputs": ["f32[1]"]}]


def make(root):
    files = {"steppkg/__init__.py": "", "steppkg/helpers.py": HELPERS, "steppkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


def test_the_summary_says_which_helpers_return_tensors():
    functions = summarize(HELPERS)["functions"]
    returns = {name: rec.get("returns") for name, rec in functions.items()}
    assert returns == {"error_ratio": "tensor", "joined": "tensor", "count": None, "root": None, "scaled": None}


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
