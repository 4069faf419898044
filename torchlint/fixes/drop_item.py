"""Drop ``.item()`` where its value only meets tensors in arithmetic (TL001).

``x * s.item()`` -> ``x * s`` and ``x > t.item()`` -> ``x > t``: the one-element tensor stays
on the device and in the graph. Also ``if t.item() > 0.5:`` when the ``if`` is of a form the
``torch.where`` fix (TL005) takes: the test becomes a tensor condition, and the next round
of fixes turns the ``if`` into ``torch.where``.

Unsafe: the value is a tensor now, not a Python number. In arithmetic with tensors the values
are the same, but type promotion follows the tensor (a float32 value is no longer widened to
a Python float), a one-element tensor of shape ``(1,)`` broadcasts where a number would not,
and code that needs a number (``range``, sizes, formatting) would break. Only direct
operands of arithmetic or comparisons are fixed, and indices in the element of a
``torch.stack([...])`` comprehension (``h[i, idx[i].item()]``), which the TL006 fix then turns
into one indexing op; ``s = t.item()`` used later is left alone, but for a submodule picked by
``k = t.argmax().item()`` (:mod:`torchlint.fixes.module_pick`), and for a check
(``assert t.max().item() <= n``, ``if t.item() > n: raise``: :mod:`torchlint.fixes.item_check`).
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from torchlint.fixes.base import UNSAFE, FixContext, Fixer, Plan, register, tensor_method_receiver
from torchlint.fixes.item_check import item_check_plan
from torchlint.fixes.module_pick import module_pick_plan
from torchlint.fixes.where import branch_is_convertible
from torchlint.rules.base import Rule

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_COMPARE = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _row_pick_index(index: cst.Index, rule: Rule, ctx: FixContext) -> bool:
    """``index`` indexes a tensor in the element of ``torch.stack([...])`` over a comprehension."""
    sub = ctx.parent(ctx.parent(index))
    comp = ctx.parent(sub)
    while isinstance(comp, cst.Subscript) and comp.value is sub:  # h[i][t.item()]
        sub = comp
        comp = ctx.parent(sub)
    base = sub
    while isinstance(base, cst.Subscript):
        base = base.value
    if not (
        isinstance(comp, (cst.ListComp, cst.GeneratorExp))
        and comp.elt is sub
        and isinstance(base, cst.BaseExpression)  # the element, or what it indexes
        and rule.is_tensor(base)
    ):
        return False
    arg = ctx.parent(comp)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    return isinstance(call, cst.Call) and rule.resolve(call.func) in ("torch.stack", "torch.cat")


@register("TL001")
class DropItem(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if tensor_method_receiver(node, rule) is None:
            return None  # not `t.item()` on a tensor
        call = cast(cst.Call, node)  # `t.item()`: a call of an attribute
        check = item_check_plan(call, rule, ctx) if call.func.attr.value == "item" else None  # type: ignore[attr-defined]
        if check is not None:
            return check
        why = self._context(call, rule, ctx)
        if why is None:
            return module_pick_plan(call, rule, ctx)

        def edit(updated: cst.Call) -> cst.BaseExpression:
            value = cast(cst.Attribute, updated.func).value
            return value.with_changes(lpar=[*updated.lpar, *value.lpar], rpar=[*value.rpar, *updated.rpar])

        return Plan(
            rule.code,
            node,
            {node: edit},
            UNSAFE,
            description=(
                "Drop `.item()` and keep the one-element tensor: the same values in arithmetic with tensors, "
                "but a tensor, not a Python number (type promotion follows the tensor's dtype, and gradients "
                "now flow through it where `.item()` cut them)" + why + "."
            ),
        )

    def _context(self, node: cst.Call, rule: Rule, ctx: FixContext) -> str | None:
        parent = ctx.parent(node)
        if isinstance(parent, cst.Index) and "TL006" in ctx.enabled and _row_pick_index(parent, rule, ctx):
            return (
                "; as an index a one-element tensor of shape () picks the same element (one of shape "
                "(1,) would keep that dimension), and the per-row loop it feeds becomes one indexing op "
                "(the TL006 fix)"
            )
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _ARITHMETIC):
            other = parent.right if parent.left is node else parent.left
            return "" if rule.is_tensor(other) else None
        comparison = ctx.parent(parent) if isinstance(parent, cst.ComparisonTarget) else parent
        if not (
            isinstance(comparison, cst.Comparison)
            and len(comparison.comparisons) == 1
            and isinstance(comparison.comparisons[0].operator, _COMPARE)
        ):
            return None
        other = comparison.comparisons[0].comparator if comparison.left is node else comparison.left
        if rule.is_tensor(other):
            return ""
        owner = ctx.parent(comparison)
        if (
            isinstance(owner, cst.If)
            and owner.test is comparison
            and "TL005" in ctx.enabled
            and branch_is_convertible(owner, rule, ctx)
        ):
            return "; the `if` it feeds becomes a tensor condition, which the TL005 fix turns into `torch.where`"
        return None
