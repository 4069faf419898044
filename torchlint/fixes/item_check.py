"""A check written with ``.item()`` -> ``torch._assert_async`` on the device (TL001).

    assert lengths.max().item() <= slen          torch._assert_async(
                                            ->       lengths.max() <= slen, "lengths.max().item() <= slen")
    if x.sum().item() > n:                       torch._assert_async(
        raise ValueError("too many")        ->       torch.logical_not(x.sum() > n), "too many")

Reading the value on the host splits the graph; the device check keeps it in. The test is a
comparison (``<``, ``<=``, ``==``, ...) with a ``t.item()`` of a tensor as one side, a bare
``t.item()`` of a boolean tensor, or ``not``/``and``/``or`` of those (then ``logical_not``,
``logical_and``, ``logical_or``: both sides are evaluated). The message is the assert's or the
exception's string literal; an ``assert`` without one gets its test's source text. The ``if``
form is taken when it has no ``else``/``elif`` and its body is one ``raise`` (as the
``(x < 0).any()`` check of :mod:`torchlint.fixes.value_check`).

Unsafe: a bad value still raises in eager, but ``RuntimeError`` instead of ``AssertionError``
or the original exception type (an ``except`` of that type no longer catches it); the check
runs under ``python -O`` too, where an ``assert`` did not; both sides of ``and``/``or`` are
evaluated; on an accelerator the error is asynchronous, raised at a later synchronisation.
Declined: a message made at run time (an f-string, a variable), a comparison chain or ``in``
/ ``is``, a test with no ``.item()`` of a tensor, any other statement around the check.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import UNSAFE, FixContext, Plan, tensor_method_receiver, with_leading_lines
from torchlint.fixes.value_check import _has_fstring, value_check_plan
from torchlint.rules.base import Rule

_COMPARE = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
_STRINGS = (cst.SimpleString, cst.ConcatenatedString)


def _item_receiver(expr: cst.BaseExpression, rule: Rule) -> cst.BaseExpression | None:
    """``t`` of ``t.item()`` on a tensor (parentheses around the call kept), else None."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item"):
        return None
    receiver = tensor_method_receiver(expr, rule)
    if receiver is None:
        return None
    return receiver.with_changes(lpar=[*expr.lpar, *receiver.lpar], rpar=[*receiver.rpar, *expr.rpar])


class _Converter:
    """The test with each ``t.item()`` dropped, as a one-element boolean tensor expression."""

    def __init__(self, rule: Rule, ctx: FixContext) -> None:
        self.rule, self.ctx = rule, ctx
        self.dropped = 0

    def _call(self, name: str, *args: cst.BaseExpression) -> cst.Call:
        return cst.Call(self.ctx.torch_expr(name), [cst.Arg(a) for a in args])

    def convert(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        receiver = _item_receiver(expr, self.rule)
        if receiver is not None:  # `assert mask.all().item()`
            self.dropped += 1
            return receiver
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, _COMPARE):
                return None
            target = expr.comparisons[0]
            left, right = _item_receiver(expr.left, self.rule), _item_receiver(target.comparator, self.rule)
            if left is None and right is None:
                return None  # no `.item()` here: the comparison may be of Python numbers
            self.dropped += (left is not None) + (right is not None)
            return expr.with_changes(
                left=left or expr.left, comparisons=[target.with_changes(comparator=right or target.comparator)]
            )
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            inner = self.convert(expr.expression)
            return None if inner is None else self._call("logical_not", inner)
        if isinstance(expr, cst.BooleanOperation):
            left, right = self.convert(expr.left), self.convert(expr.right)
            if left is None or right is None:
                return None
            op = "logical_and" if isinstance(expr.operator, cst.And) else "logical_or"
            return self._call(op, left, right)
        return None


def _test_owner(node: cst.CSTNode, ctx: FixContext) -> cst.Assert | cst.If | None:
    """The ``assert`` or ``if`` whose test holds ``node`` through comparisons and boolean ops."""
    cur: cst.CSTNode = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, cst.Assert) and anc.test is cur:
            return anc
        if isinstance(anc, cst.If) and anc.test is cur:
            return anc
        if not isinstance(anc, (cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation, cst.UnaryOperation)):
            return None
        cur = anc
    return None


def item_check_plan(node: cst.Call, rule: Rule, ctx: FixContext) -> Plan | None:
    """The plan for an ``assert``/``if ...: raise`` whose test reads ``node`` (a ``.item()``)."""
    owner = _test_owner(node, ctx)
    if owner is None:
        return None
    converter = _Converter(rule, ctx)
    cond = converter.convert(owner.test)
    if cond is None or not converter.dropped:
        return None
    if isinstance(owner, cst.If):
        plan = value_check_plan(owner, node, cond, rule, ctx, lambda c: converter._call("logical_not", c))
        if plan is not None:
            plan.description = plan.description.replace(
                "Check the condition on the device", "Drop `.item()` and check the condition on the device"
            )
        return plan
    line = ctx.parent(owner)
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    if owner.msg is None:
        text = cst.Module([]).code_for_node(owner.test)
        message: cst.BaseExpression = cst.SimpleString('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    elif isinstance(owner.msg, _STRINGS) and not _has_fstring(owner.msg):
        message = owner.msg
    else:
        return None  # a message made at run time may read tensor values on the host
    call = cst.Call(ctx.torch_expr("_assert_async"), [cst.Arg(cond), cst.Arg(message)])
    new = with_leading_lines(cst.SimpleStatementLine([cst.Expr(call)]), line)
    return Plan(
        rule.code,
        node,
        {line: lambda updated: new},
        UNSAFE,
        needs_torch=True,
        description=(
            "Drop `.item()` and check the condition on the device with `torch._assert_async(cond, message)` "
            "instead of asserting on a Python number: a bad value still raises in eager, but `RuntimeError` "
            "instead of `AssertionError`, also under `python -O`, and on an accelerator asynchronously, at a "
            "later synchronisation."
        ),
    )
