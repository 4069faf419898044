"""Checks written with `.item()` become `torch._assert_async` (snapshot: item_check.in.py/.out.py).

The snapshot tests of test_fixes.py run both halves (same outputs and gradients, no break
left); here: a bad input still raises, with the message, and the forms the fix declines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

FIXES = Path(__file__).resolve().parent


def _fix(src: str) -> str:
    return fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True)).new


def _declines(src: str) -> None:
    """TL001 still reports on ``src`` and no fix changes it."""
    assert "TL001" in [f.rule for f in lint_file("m.py", src, all_rules()).findings]
    assert _fix(src) == src


CHECK = """
import torch


@torch.compile
def f(x, lengths):
    assert lengths.max().item() <= x.shape[1], "too long"
    return x * 2
"""


def test_assert_with_a_message_keeps_it_and_one_without_gets_its_test():
    fixed = _fix(CHECK)
    assert 'torch._assert_async(lengths.max() <= x.shape[1], "too long")' in fixed
    bare = _fix(CHECK.replace(', "too long"', ""))
    assert 'torch._assert_async(lengths.max() <= x.shape[1], "lengths.max().item() <= x.shape[1]")' in bare


def test_boolean_operators_become_logical_ops_of_the_device_values():
    src = CHECK.replace(
        'lengths.max().item() <= x.shape[1], "too long"',
        'not (lengths.min().item() < 0 or lengths.max().item() > x.shape[1]), "bad lengths"',
    )
    fixed = _fix(src)
    assert (
        "torch._assert_async(torch.logical_not(torch.logical_or(lengths.min() < 0, lengths.max() > x.shape[1])), "
        '"bad lengths")' in fixed
    )


def test_declines_a_message_made_at_run_time():
    _declines(CHECK.replace('"too long"', 'f"too long: {lengths.max()}"'))
    _declines(CHECK.replace('"too long"', "message"))


def test_declines_a_chain_a_membership_and_a_test_with_no_item():
    _declines(CHECK.replace("lengths.max().item() <= x.shape[1]", "0 < lengths.max().item() <= x.shape[1]"))
    _declines(CHECK.replace("lengths.max().item() <= x.shape[1]", "lengths.max().item() in (1, 2)"))
    # the `.item()` is not a side of the comparison: its value is used as a Python number
    _declines(CHECK.replace("lengths.max().item() <= x.shape[1]", "int(lengths.max().item()) <= x.shape[1]"))


def test_declines_an_if_with_an_else_or_more_than_a_raise():
    src = """
import torch


@torch.compile
def f(x):
    if x.max().item() > 10:
        raise ValueError("too large")
    else:
        x = x + 1
    return x
"""
    _declines(src)
    _declines(
        src.replace(
            'raise ValueError("too large")\n    else:\n        x = x + 1',
            'x = x / 10\n        raise ValueError("too large")',
        )
    )


def test_an_item_kept_in_a_name_is_not_a_check():
    _declines(
        CHECK.replace(
            '    assert lengths.max().item() <= x.shape[1], "too long"\n',
            "    n = lengths.max().item()\n    x = x[:n]\n",
        )
    )


@pytest.mark.dynamo
def test_a_bad_input_still_raises_with_the_message():
    torch = pytest.importorskip("torch")
    from torchlint.dynamic.load import load_module_from_path

    fixed = load_module_from_path(str(FIXES / "item_check.out.py")).build()
    x = torch.randn(2, 6, 4)
    fixed(x, torch.tensor([3, 6]))  # a good one passes
    with pytest.raises(RuntimeError, match=r"lengths\.max\(\)\.item\(\) <= slen"):
        fixed(x, torch.tensor([3, 7]))
    with pytest.raises(RuntimeError, match="empty sequence"):
        fixed(x, torch.tensor([0, 6]))
    with pytest.raises(RuntimeError, match="input out of range"):
        fixed(x * 1e5, torch.tensor([3, 6]))
    compiled = torch.compile(fixed, backend="aot_eager")
    with pytest.raises(RuntimeError, match="empty sequence"):
        compiled(x, torch.tensor([0, 6]))
