"""`torch.zeros(..., requires_grad=True)` made in a region loses `requires_grad=True` (TL014).

The snapshot (factory_grad.in.py/.out.py) is run by test_fixes.py: same outputs and gradients,
no break left. Here: the forms the fix declines.
"""

from __future__ import annotations

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

SRC = """
import torch


@torch.compile
def f(x):
    acc = torch.zeros(1, requires_grad=True)
    acc = acc + x.sum()
    return acc
"""


def _declines(src: str) -> None:
    assert "TL014" in [f.rule for f in lint_file("m.py", src, all_rules()).findings]
    assert fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True)).new == src


def test_the_argument_goes_and_no_comma_dangles():
    fixed = fix_source(SRC, "m.py", FixOptions(all_rules(), unsafe=True)).new
    assert "acc = torch.zeros(1)\n" in fixed
    assert fix_source(SRC, "m.py", FixOptions(all_rules(), unsafe=False)).new == SRC  # unsafe only


def test_declines_when_the_leaf_s_own_gradient_is_wanted():
    for use in ("acc.retain_grad()", "g = acc.grad", "acc.register_hook(abs)", "assert acc.requires_grad"):
        _declines(SRC.replace("    acc = acc + x.sum()\n", f"    {use}\n    acc = acc + x.sum()\n"))


def test_declines_a_factory_not_bound_to_a_name():
    _declines(
        SRC.replace(
            "    acc = torch.zeros(1, requires_grad=True)\n", "    acc = [torch.zeros(1, requires_grad=True)][0]\n"
        )
    )


def test_requires_grad_false_or_a_variable_is_not_reported():
    for value in ("False", "flag"):
        quiet = SRC.replace("requires_grad=True", f"requires_grad={value}").replace(
            "def f(x):", "def f(x, flag=False):"
        )
        assert "TL014" not in [f.rule for f in lint_file("m.py", quiet, all_rules()).findings]
