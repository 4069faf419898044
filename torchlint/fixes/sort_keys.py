"""Fixes for TL015 (sort-by-tensor).

Safe: ``sorted(d.items())`` of a dict of tensors becomes ``sorted(d.items(), key=lambda kv:
kv[0])``. A dict's keys are distinct, so Python's tuple order never reached the values: the
key gives the same order, and dynamo orders the constant keys instead of refusing tuples that
hold tensors.

Unsafe: a submodule picked by ``max``/``min`` keyed by a tensor
(:func:`torchlint.fixes.module_pick.keyed_pick_plan`).
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import SAFE, FixContext, Fixer, Plan, register
from torchlint.fixes.module_pick import keyed_pick_plan
from torchlint.rules.base import Rule


def items_key_plan(node: cst.Call, rule: Rule) -> Plan | None:
    """``sorted(d.items())`` (no ``key=``) -> ordered by the keys alone."""
    if rule.resolve(node.func) != "builtins.sorted" or not node.args:
        return None
    first = node.args[0]
    keyed = any(a.keyword is not None and a.keyword.value == "key" for a in node.args)
    if first.keyword is not None or first.star or keyed:
        return None
    items = first.value
    if not (
        isinstance(items, cst.Call)
        and isinstance(items.func, cst.Attribute)
        and items.func.attr.value == "items"
        and not items.args
    ):
        return None
    key = cst.Arg(
        cst.parse_expression("lambda kv: kv[0]"),
        keyword=cst.Name("key"),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )

    def edit(updated: cst.Call) -> cst.Call:
        args = list(updated.args)
        if not isinstance(args[-1].comma, cst.Comma):
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated.with_changes(args=[*args, key])

    return Plan(
        rule.code,
        node,
        {node: edit},
        SAFE,
        description="Order the dict's items by their keys (`key=lambda kv: kv[0]`): the keys are distinct, so the "
        "order is the same, and dynamo orders constant keys instead of refusing pairs that hold tensors.",
    )


@register("TL015")
class SortFixes(Fixer):
    """TL015's fixable forms: a dict's items ordered by their keys (safe), and a submodule
    picked by ``max``/``min`` keyed by a tensor (unsafe)."""

    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if not isinstance(node, cst.Call):
            return None
        return items_key_plan(node, rule) or keyed_pick_plan(node, rule, ctx)
