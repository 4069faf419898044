"""``if <tensor condition>: raise ...`` -> ``torch._assert_async(<not condition>, "message")`` (TL005).

    if (x < 0).any():                           torch._assert_async(
        raise ValueError("negative input")  ->      torch.logical_not((x < 0).any()), "negative input")

The check stays on the device and in the graph instead of reading the condition on the host.
Taken when the ``if`` has no ``else``/``elif`` and its body is one ``raise`` of a call whose
message, if any, is a plain string literal (an f-string would read tensor values on the host).
Unsafe: eager raises ``RuntimeError`` with the message instead of the original exception type
(an ``except ValueError`` no longer catches it), and on an accelerator the check is
asynchronous: the error surfaces at a later synchronisation, after the following ops ran. The
condition must have one element, as ``if`` required.

Used by the ``torch.where`` fixer (:mod:`torchlint.fixes.where`), which owns TL005.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from torchlint.fixes.base import UNSAFE, FixContext, Plan, with_leading_lines
from torchlint.rules.base import Rule

_STRINGS = (cst.SimpleString, cst.ConcatenatedString)


def _message(stmt: cst.Raise) -> cst.BaseExpression | None:
    """The string literal of ``raise E("...")``, or ``"E"`` for ``raise E`` / ``raise E()``."""
    exc = stmt.exc
    if exc is None or stmt.cause is not None:
        return None
    if isinstance(exc, (cst.Name, cst.Attribute)):
        return cst.SimpleString(repr(cst.Module([]).code_for_node(exc)))
    if not isinstance(exc, cst.Call) or not isinstance(exc.func, (cst.Name, cst.Attribute)):
        return None
    if not exc.args:
        return cst.SimpleString(repr(cst.Module([]).code_for_node(exc.func)))
    if len(exc.args) == 1 and exc.args[0].keyword is None and not exc.args[0].star:
        value = exc.args[0].value
        if isinstance(value, _STRINGS) and not _has_fstring(value):
            return value
    return None


def _has_fstring(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.ConcatenatedString):
        return _has_fstring(value.left) or _has_fstring(value.right)
    return isinstance(value, cst.FormattedString)


def value_check_plan(
    owner: cst.If,
    node: cst.CSTNode,
    cond: cst.BaseExpression,
    rule: Rule,
    ctx: FixContext,
    negate: Callable[[cst.BaseExpression], cst.BaseExpression],
) -> Plan | None:
    """The plan for ``if cond: raise E("msg")``, else None."""
    if owner.orelse is not None or not isinstance(owner.body, cst.IndentedBlock) or len(owner.body.body) != 1:
        return None
    line = owner.body.body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Raise)):
        return None
    raised = line.body[0]
    message = _message(raised)
    if message is None or raised.exc is None:  # a message means an exception raised
        return None
    call = cst.Call(ctx.torch_expr("_assert_async"), [cst.Arg(negate(cond)), cst.Arg(message)])
    new = with_leading_lines(cst.SimpleStatementLine([cst.Expr(call)]), owner)
    exc = raised.exc
    name = cst.Module([]).code_for_node(exc.func if isinstance(exc, cst.Call) else exc)
    return Plan(
        rule.code,
        node,
        {owner: lambda updated: new},
        UNSAFE,
        needs_torch=True,
        description=(
            "Check the condition on the device with `torch._assert_async(not cond, message)` instead of "
            f"branching on it: eager raises `RuntimeError` with the same message instead of `{name}` (an "
            f"`except {name}` no longer catches it), and on an accelerator the error is asynchronous, "
            "raised at a later synchronisation."
        ),
    )
