"""Tensor-ness kept where it used to be lost: a value that is a tensor in one arm of an `if`,
`Dict[str, Tensor]` parameters and dict literals of tensors (`d["k"]`), and TorchScript-style
`# type: (Tensor, int) -> Tensor` comments (a tensor is one, an int is not), and the parts of
a tuple of tensors a same-file helper returns (`a, b = self.split(x)`)."""

from __future__ import annotations

import textwrap

import pytest

from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

RULES = [r for r in all_rules() if r.severity == "error"]

ONE_ARM = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if x.shape[0] > 1:
            y = x.sum()
        else:
            y = 0
        if y > 0:
            x = x * 2
        if x.shape[1] > 2:
            z = 1
        else:
            z = 2
        if z > 1:
            x = x + 1
        return x
"""
# line 11: y is a tensor when the first arm runs (it does: 2 rows); line 17: z is an int in both

DICTS = """
from typing import Dict

import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        d = {"a": x, "b": x * 2}
        if d["a"].max() > 1:
            x = x - 1
        return self.head(x, d)

    def head(self, x, feats: Dict[str, torch.Tensor]):
        if feats["b"].sum() > 0:
            x = x + 1
        if feats:
            x = x * 3
        for name, v in feats.items():
            if v.mean() > 0:
                x = x + 1
        return x
"""
# lines 10, 15, 20: values of tensor dicts; line 17: a dict's truth is its length, no break

TYPE_COMMENTS = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x, n):
        # type: (Tensor, int) -> Tensor
        pos = torch.arange(n)
        return x + pos.sum()
"""
# n is an int (the comment says so): arange of it reads no tensor, no finding

TYPED_TENSOR = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x, k):  # type: (Tensor, Tensor) -> Tensor
        if k > 0:
            return x * 2
        return x
"""
# k is a tensor by the comment (no guess): branching on it breaks (line 7)


TUPLES = """
import torch
from torch import nn


def pair(x):
    h = x * 2
    return h, h.sum(dim=0)


class Net(nn.Module):
    def split(self, x):
        return x[:, :2], x[:, 2:]

    def forward(self, x):
        a, b = self.split(x)
        if a.sum() > 0:
            x = x + 1
        h, s = pair(b)
        if s.max() > 0:
            x = x * 2
        n, m = self.sizes(x)
        if n > 1:
            x = x - 1
        return x

    def sizes(self, x):
        return x.shape[0], x.shape[1]
"""
# lines 16, 19: parts of tuples of tensors a helper returns; line 22: sizes, ints


def lines(code: str) -> set[int]:
    return {f.line for f in lint_file("m.py", textwrap.dedent(code).lstrip("\n"), RULES).findings}


def test_a_tensor_in_one_arm_may_be_a_tensor_after_the_if():
    assert lines(ONE_ARM) == {11}


def test_values_of_tensor_dicts_are_tensors_and_the_dict_itself_is_not():
    assert lines(DICTS) == {10, 15, 20}


def test_tensors_returned_in_a_tuple_stay_tensors():
    assert lines(TUPLES) == {16, 19}


def test_type_comments_say_what_parameters_are():
    assert lines(TYPE_COMMENTS) == set()
    assert lines(TYPED_TENSOR) == {7}
    # without the comments, the guesses, quiet: `n` (a size as likely as a tensor), `k`
    assert lines(TYPE_COMMENTS.replace("        # type: (Tensor, int) -> Tensor\n", "")) == set()
    assert lines(TYPED_TENSOR.replace("  # type: (Tensor, Tensor) -> Tensor", "")) == set()


@pytest.mark.dynamo
@pytest.mark.parametrize(
    "code, inputs, expected",
    [
        (ONE_ARM, ["f32[2,4]"], {11}),
        (DICTS, ["f32[2,4]"], {10, 15, 20}),
        (TYPE_COMMENTS, ["f32[4]", "int:4"], set()),
        (TYPED_TENSOR, ["f32[4]", "f32[]"], {7}),
        (TUPLES, ["f32[2,4]"], {16, 19}),
    ],
)
def test_dynamo_breaks_where_the_static_pass_says(code, inputs, expected):
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source

    code = textwrap.dedent(code).lstrip("\n")
    obs, path = observe_source(code, "Net", inputs)
    assert obs.break_lines(path) == expected == lines(code)
