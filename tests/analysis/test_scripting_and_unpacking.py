"""Facts dynamo reads one way: `torch.jit.is_scripting()` is False (and `is_compiling()` True,
so what follows `not is_compiling() and` never runs); tensors unpacked from `zip(...)` /
`enumerate(...)` stay tensors."""

from __future__ import annotations

import textwrap

import pytest

from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

RULES = [r for r in all_rules() if r.severity == "error"]

SCRIPTING = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if not torch.jit.is_scripting():
            s = x.sum().item()
        else:
            s = float(x.sum())
        if torch.jit.is_tracing():
            print(x)
        return x * s
"""
# line 8: .item() runs under dynamo; 10 and 12 are dead (is_scripting / is_tracing are False)

SHORT_CIRCUIT = """
import torch
from torch import nn
from torch.compiler import is_compiling


class Net(nn.Module):
    def forward(self, x):
        copy = x.device.type == "cpu" and not is_compiling() and bool(x.any())
        eager = is_compiling() or x.sum().item() > 0
        scripted = torch.jit.is_scripting() and x.max().item() > 1
        live = x.device.type == "cpu" and bool(x.any())
        return x * 2, copy, eager, scripted, live
"""
# the operands after a decided `and` / `or` never run (lines 8-10); line 11 reads the tensor

ERROR_PATHS = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if x.min() < -10:
            raise ValueError(f"too small: {x.min().item()}")
        try:
            y = x.index_select(0, torch.arange(x.shape[0]))
        except (IndexError, RuntimeError) as e:
            print("bad index", x.max().item())
            raise e
        return y * 2
"""
# line 7 reads the tensor; the exception's message (8) and the handler that re-raises (12)
# run only when the code fails

ZIPPED = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        parts = torch.split(x, 2, dim=1)
        out = []
        for i, (a, b) in enumerate(zip(parts, parts)):
            if a.sum() > 0:
                out.append(a * i)
        for j, n in enumerate(range(3)):
            if j > 1:
                out.append(x * n)
        return torch.cat(out + [x], dim=1)
"""
# line 10: `a` is a tensor (a part of the split); line 13: `j` is a counter, not a tensor


def lines(code: str) -> set[int]:
    return {f.line for f in lint_file("m.py", textwrap.dedent(code).lstrip("\n"), RULES).findings}


def test_code_under_not_is_scripting_is_live_and_the_other_arm_dead():
    assert lines(SCRIPTING) == {8}


def test_operands_after_a_decided_and_or_or_are_dead():
    assert lines(SHORT_CIRCUIT) == {11}


def test_error_paths_are_not_checked():
    assert lines(ERROR_PATHS) == {7}


def test_tensors_unpacked_from_zip_and_enumerate_stay_tensors_and_counters_ints():
    assert lines(ZIPPED) == {10}


@pytest.mark.dynamo
@pytest.mark.parametrize(
    "code, expected", [(SCRIPTING, {8}), (ZIPPED, {10}), (SHORT_CIRCUIT, {11}), (ERROR_PATHS, {7})]
)
def test_dynamo_breaks_where_the_static_pass_says(code, expected):
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source

    code = textwrap.dedent(code).lstrip("\n")
    obs, path = observe_source(code, "Net", ["f32[2,4]"])
    assert obs.break_lines(path) == expected == lines(code)
