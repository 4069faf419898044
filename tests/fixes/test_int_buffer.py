"""Sizes from integer buffers (TL020): the look-alikes the rule leaves alone, and the forms the
int fix declines (the snapshot ``int_buffer`` proves the form it takes, through dynamo)."""

from __future__ import annotations

from pathlib import Path

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

BEFORE = (Path(__file__).resolve().parent / "int_buffer.in.py").read_text()


def _fix(src: str):
    return fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True))


def _tl020(src: str) -> list[int]:
    return [f.line for f in lint_file("m.py", src, all_rules()).findings if f.rule == "TL020"]


def _declines(src: str) -> None:
    assert _tl020(src), "the rule should still report the size"
    assert _fix(src).new == src


def test_the_fix_keeps_the_buffers_adds_ints_and_says_what_it_assumes():
    outcome = _fix(BEFORE)
    assert "        self.stride = nn.Buffer(stride, persistent=False)\n        self.stride_int = stride_int\n" in (
        outcome.new
    )
    assert "        stride_int = self.conv.stride[0]\n        stride = torch.tensor(" in outcome.new
    assert "n_frames = math.ceil(n_frames) - 1" in outcome.new
    assert [a.applicability for a in outcome.applied] == ["unsafe"]
    assert "Double precision" in outcome.applied[0].description
    assert _fix(outcome.new).new == outcome.new


def test_math_is_imported_when_the_file_lacks_it():
    src = BEFORE.replace("import math\n\n", "").replace("math.sqrt(x.shape[-1])", "x.shape[-1] ** 0.5")
    new = _fix(src).new
    assert new.count("import math\n") == 1 and "math.ceil(n_frames)" in new
    compile(new, "m.py", "exec")


def test_declines_a_helper_called_on_another_object():
    helper = "\n\ndef padding_of(conv, x):\n    return conv._extra_padding(x)\n"
    src = BEFORE.replace("\n\ndef build():", helper + "\n\ndef build():")
    _declines(src)  # that caller may want the 0-d tensor the helper returned


def test_declines_a_number_that_reaches_a_tensor_method_or_function():
    left = "        left = self.padding_total - self.padding_right\n"
    method = BEFORE.replace(left, "        left = (self.padding_total - self.padding_right).clamp(min=0)\n")
    _declines(method)  # `.clamp` on what would become a Python int
    function = BEFORE.replace(left, "        left = torch.clamp(self.padding_total - self.padding_right, min=0)\n")
    _declines(function)


def test_a_buffer_made_through_a_call_is_no_int_buffer():
    src = BEFORE.replace(
        "stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)",
        "stride = torch.tensor(int(self.conv.stride[0]), dtype=torch.int64)",
    )
    # written twice the call would run twice: stride, and what is made from it, are left alone
    assert _fix(src).new.count("stride_int") == 0


def test_declines_math_imported_under_another_name():
    src = BEFORE.replace("import math\n", "import math as m\n").replace("math.sqrt", "m.sqrt")
    _declines(src)


def test_persistent_written_and_tensor_math_buffers_are_not_reported():
    assert _tl020(BEFORE)
    persistent = BEFORE.replace("persistent=False", "persistent=True")
    assert not _tl020(persistent)  # a checkpoint may load other values into it
    written = BEFORE.replace(
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
        "    def set_stride(self, s):\n        self.stride.fill_(s)\n\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
    )
    assert not [line for line in _tl020(written) if line < 40]  # stride is state, not a constant
    scaled = """
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Buffer(torch.tensor(3, dtype=torch.int64), persistent=False)

    def forward(self, x):
        return nn.functional.relu(x * self.scale)
"""
    assert not _tl020(scaled)  # tensor math with a tensor: no size, no split


def test_a_buffer_that_may_hold_a_list_is_no_int_buffer():
    src = """
import torch
from torch import nn

TOKENS = [101, 102, 1012]


class Masker(nn.Module):
    def __init__(self):
        super().__init__()
        self.special = nn.Buffer(torch.tensor(TOKENS, dtype=torch.long), persistent=False)

    def forward(self, ids):
        return special_mask(ids, self.special)


def special_mask(ids, special):
    return torch.isin(ids, special)
"""
    assert not _tl020(src)  # a bare name may hold a list: a tensor of tokens, not a size
