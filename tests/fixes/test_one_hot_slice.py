"""`one_hot(i, max(..., n))[..., :n]` -> `one_hot(i.clamp(max=n), n + 1)[..., :n]` (TL008).

The snapshot (one_hot_slice.in.py/.out.py) is run by test_fixes.py: same outputs and gradients,
no break left. Here: what TL008 now reports, the values on indices past the cut, and the
forms the fix declines.
"""

from __future__ import annotations

import pytest

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

SRC = """
import torch
import torch.nn.functional as F


@torch.compile
def f(idx, n: int):
    return F.one_hot(idx, max(idx.max() + 2, n))[..., :n]
"""


def _codes(src: str) -> list[str]:
    return [f.rule for f in lint_file("m.py", src, all_rules()).findings]


def _declines(src: str) -> None:
    assert "TL008" in _codes(src)
    assert fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True)).new == src


def test_reports_classes_from_values_or_left_out_and_not_a_fixed_number():
    assert "TL008" in _codes(SRC)
    assert "TL008" in _codes(SRC.replace("max(idx.max() + 2, n)", "-1"))
    assert "TL008" in _codes(SRC.replace(", max(idx.max() + 2, n)", ""))
    assert "TL008" not in _codes(SRC.replace("max(idx.max() + 2, n)", "n + 1"))


@pytest.mark.dynamo
def test_the_rewrite_gives_zeros_for_an_index_past_the_cut():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    idx = torch.tensor([[0, 3, 5], [7, 1, 2]])
    for n in (1, 4, 9):
        original = F.one_hot(idx, max(idx.max() + 2, n))[..., :n]
        fixed = F.one_hot(idx.clamp(max=n), n + 1)[..., :n]
        assert torch.equal(original, fixed) and original.dtype == fixed.dtype


def test_declines_without_the_cut_or_with_another_width():
    _declines(SRC.replace("[..., :n]", ""))
    _declines(SRC.replace("[..., :n]", "[..., :n - 1]"))
    _declines(SRC.replace("max(idx.max() + 2, n)", "max(idx.max() + 2, n + 1)"))
    _declines(SRC.replace("max(idx.max() + 2, n)", "idx.max() + 2"))  # fewer classes than n: narrower


def test_declines_a_class_count_read_elsewhere():
    src = SRC.replace(
        "    return F.one_hot(idx, max(idx.max() + 2, n))[..., :n]\n",
        "    k = max(idx.max() + 2, n)\n    return F.one_hot(idx, k)[..., :n], k\n",
    )
    _declines(src)
