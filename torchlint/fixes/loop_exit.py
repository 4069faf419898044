"""A loop that stops early on a tensor condition -> every pass runs, the state frozen once done (TL005).

    for _ in range(n):                         stopped = torch.zeros((), dtype=torch.bool, device=z.device)
        z_next = step(z)                       for _ in range(n):
        delta = (z_next - z).norm()       ->       z_before = z
        z = z_next                                 z_next = step(z)
        if delta < tol:                            delta = (z_next - z).norm()
            break                                  z = z_next
                                                   z = torch.where(stopped, z_before, z)
                                                   stopped = stopped | (delta < tol)

After the pass that met the condition, each later pass computes a value and throws it away:
``z`` keeps the value it had when the original broke out, exactly. Taken when the loop is a
``for`` without ``else`` whose body is plain assignments to names (no augmented assignment
and no in-place method, which would change the saved value of a tensor too) followed by
``if <tensor condition>: break`` (no other ``break``/``continue``/``return``), the names it
carries are tensors bound before the loop, and neither the loop variable nor a name first
bound in the body is read after the loop.

Unsafe: every pass runs now (time), modules called in the body run on each of them (state they
update, BatchNorm's running statistics in training, changes), and a ``nan``/``inf`` computed in
a pass after the stop reaches the gradients (``0 * inf``). The condition must have one element,
as the ``if`` required.

Used by the ``torch.where`` fixer (:mod:`torchlint.fixes.where`), which owns TL005.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from torchlint.analysis.names import param_names
from torchlint.fixes.base import UNSAFE, FixContext, Plan, assigned_names, contains, read_names, with_leading_lines
from torchlint.rules.base import Rule

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def loop_exit_form(owner: cst.If, rule: Rule, ctx: FixContext) -> tuple[cst.For, list[str]] | None:
    """``(loop, carried names)`` when ``owner`` is the ``if c: break`` ending a loop of this form."""
    if owner.orelse is not None or not isinstance(owner.body, cst.IndentedBlock) or len(owner.body.body) != 1:
        return None
    line = owner.body.body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Break)):
        return None
    block = ctx.parent(owner)
    loop = ctx.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not (
        isinstance(block, cst.IndentedBlock)
        and isinstance(loop, cst.For)
        and loop.orelse is None
        and loop.asynchronous is None
        and block.body
        and block.body[-1] is owner
        and isinstance(loop.target, cst.Name)
    ):
        return None
    body = list(block.body[:-1])
    for stmt in body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            return None
        small = stmt.body[0]
        ok = isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
        if not ok or contains(stmt, (cst.Yield, cst.Await, cst.NamedExpr), stop=_NESTED) or _in_place(stmt):
            return None  # `z += 1` or `z.add_(1)` would change the saved value too
    found = ctx.block_of(loop)
    fn = ctx.enclosing_function(loop)
    if found is None or fn is None:
        return None
    siblings, at = found
    bound = set().union(*(assigned_names(stmt) for stmt in body))
    before = _bound_before(fn, loop, ctx)
    after = set().union(*(read_names(s) for s in siblings[at + 1 :])) if at + 1 < len(siblings) else set()
    if loop.target.value in after or loop.target.value in bound:
        return None
    if (bound - before) & after:
        return None  # a name first bound in the body is read after the loop: its last value differs
    carried = sorted(bound & before, key=lambda n: _first_bind(body, n))
    if not carried or not all(rule.is_tensor(cst.Name(n)) for n in carried):
        return None
    return loop, carried


def _in_place(stmt: cst.CSTNode) -> bool:
    """Whether ``stmt`` calls a method whose name ends in ``_`` (``x.add_(1)``, ``x.copy_(y)``)."""
    stack = [stmt]
    while stack:
        cur = stack.pop()
        if (
            isinstance(cur, cst.Call)
            and isinstance(cur.func, cst.Attribute)
            and cur.func.attr.value.endswith("_")
            and not cur.func.attr.value.startswith("_")
        ):
            return True
        stack.extend(cur.children)
    return False


def _first_bind(body: Sequence[cst.CSTNode], name: str) -> int:
    return next(i for i, s in enumerate(body) if name in assigned_names(s))


def _bound_before(fn: cst.FunctionDef, loop: cst.For, ctx: FixContext) -> set:
    """Names bound in ``fn`` by its parameters or by statements before the loop, in the loop's
    own block or the blocks around it."""
    names = param_names(fn)
    node: cst.CSTNode = loop
    while node is not fn:
        found = ctx.block_of(node)
        if found is not None:
            siblings, at = found
            for stmt in siblings[:at]:
                names |= assigned_names(stmt)
        parent = ctx.parent(node)
        if parent is None:
            break
        node = parent
    return names


def loop_exit_plan(
    owner: cst.If, node: cst.CSTNode, cond: cst.BaseExpression, rule: Rule, ctx: FixContext
) -> Plan | None:
    form = loop_exit_form(owner, rule, ctx)
    if form is None:
        return None
    loop, carried = form
    fn = ctx.enclosing_function(loop)
    if fn is None:  # new names are picked among the function's
        return None
    taken: set[str] = set()
    stopped = ctx.fresh_name(fn, "stopped")
    taken.add(stopped)
    saved = {}
    for name in carried:
        saved[name] = ctx.fresh_name(fn, f"{name}_before", taken)
        taken.add(saved[name])
    init = with_leading_lines(
        _assign(
            stopped, cst.parse_expression(f"{ctx.torch}.zeros((), dtype={ctx.torch}.bool, device={carried[0]}.device)")
        ),
        loop,
    )
    keep = [_assign(saved[n], cst.Name(n)) for n in carried]
    freeze = [
        _assign(
            n,
            cst.Call(
                ctx.torch_expr("where"), [cst.Arg(cst.Name(stopped)), cst.Arg(cst.Name(saved[n])), cst.Arg(cst.Name(n))]
            ),
        )
        for n in carried
    ]
    test = (
        cond
        if cond.lpar or isinstance(cond, (cst.Name, cst.Call, cst.Attribute, cst.Subscript))
        else cond.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    )
    update = _assign(stopped, cst.BinaryOperation(cst.Name(stopped), cst.BitOr(), test))

    def edit(updated: cst.For) -> cst.FlattenSentinel:
        body = list(updated.body.body)[:-1]
        new_loop = updated.with_changes(
            leading_lines=(), body=updated.body.with_changes(body=[*keep, *body, *freeze, update])
        )
        return cst.FlattenSentinel([init, new_loop])

    names = ", ".join(f"`{n}`" for n in carried)
    return Plan(
        rule.code,
        node,
        {loop: edit},
        UNSAFE,
        needs_torch=True,
        description=(
            f"Replace the early `break` with a stop flag: every pass of the loop runs and {names} keep the value "
            "they had when the condition first held (`torch.where`), so the result is the same; but all passes "
            "cost time, modules called in the body run on each (state they update changes), and a nan/inf in a "
            "pass after the stop reaches the gradients."
        ),
    )
