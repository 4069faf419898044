"""Replace a data-dependent ``if`` of simple form with ``torch.where`` (TL005).

Three forms:

* assignments: ``if c: y = a`` / ``else: y = b`` (or no ``else``: ``y`` keeps its value)
  -> ``y = torch.where(c, a, b)``; several names share one condition variable;
* early return at the top of a function: ``if c: return a`` ... ``return b``
  -> ``cond = c`` ... ``return torch.where(cond, a, b)``;
* ternary: ``a if c else b`` -> ``torch.where(c, a, b)``;
* a value check, ``if c: raise E("msg")`` -> ``torch._assert_async(...)``
  (:mod:`torchlint.fixes.value_check`);
* a loop's early exit, ``if c: break`` ending its body -> a stop flag that freezes the state
  with ``torch.where`` (:mod:`torchlint.fixes.loop_exit`).

Unsafe: both sides are computed on every call (it costs time, and an error or side effect on
the side not taken now happens), and the result follows ``torch.where``'s broadcasting and
type promotion, which matches the branch's value whenever both sides have the same shape and
dtype. ``if``/``elif``/``else`` chains whose arms only assign names become nested
``torch.where``, the first true condition first. Branches that assign a name they also read
from another assignment, and ``while`` loops, are left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable

import libcst as cst

from torchlint.fixes.base import (
    SAFE,
    UNSAFE,
    FixContext,
    Fixer,
    Plan,
    assigned_names,
    contains,
    read_names,
    register,
    with_leading_lines,
)
from torchlint.fixes.loop_exit import loop_exit_form, loop_exit_plan
from torchlint.fixes.value_check import value_check_plan
from torchlint.rules.base import Rule

IsTensor = Callable[[cst.BaseExpression], bool]

_AUG: dict[type[cst.BaseAugOp], Callable[[], cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
    cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power,
    cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr,
}
_BOOL_METHODS = {
    "any",
    "all",
    "isnan",
    "isinf",
    "isfinite",
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "bool",
    "isclose",
}
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)
# Values torch.where cannot take, or that change meaning as a call argument.
_NOT_VALUES = (
    cst.Tuple,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.Yield,
    cst.Await,
    cst.NamedExpr,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.StarredElement,
)


def _not_value(expr: cst.BaseExpression) -> bool:
    """``torch.where`` cannot take it (``None``, a tuple, a lambda...) or it means something else
    as a call argument (a starred value, a generator)."""
    return isinstance(expr, _NOT_VALUES) or (isinstance(expr, cst.Name) and expr.value in ("None", "True", "False"))


def paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, _ATOMS) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def bool_test(test: cst.BaseExpression, is_tensor: IsTensor, ctx: FixContext) -> cst.BaseExpression | None:
    """``test`` as a boolean tensor expression (``not``/``and``/``or`` become logical ops)."""
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1 or isinstance(
            test.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)
        ):
            return None
        return test if is_tensor(test) else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = bool_test(test.expression, is_tensor, ctx)
        return None if inner is None else _call(ctx, "logical_not", inner)
    if isinstance(test, cst.BooleanOperation):
        left = bool_test(test.left, is_tensor, ctx)
        right = bool_test(test.right, is_tensor, ctx)
        if left is None or right is None:
            return None
        op = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
        return _call(ctx, op, left, right)
    if not is_tensor(test):
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value in _BOOL_METHODS:
        return test
    return cst.Call(cst.Attribute(paren(test), cst.Name("bool")))


def _call(ctx: FixContext, name: str, *args: cst.BaseExpression) -> cst.Call:
    """``torch.<name>(args)``; arguments lose parentheses they no longer need."""
    keep = (cst.Tuple, cst.GeneratorExp, cst.NamedExpr, cst.Yield)  # need theirs as arguments
    bare = [a if isinstance(a, keep) else a.with_changes(lpar=[], rpar=[]) for a in args]
    return cst.Call(ctx.torch_expr(name), [cst.Arg(a) for a in bare])


def _negated(ctx: FixContext, cond: cst.BaseExpression) -> cst.BaseExpression:
    """``torch.logical_not(cond)``, or ``c`` when ``cond`` is ``torch.logical_not(c)``."""
    if (
        isinstance(cond, cst.Call)
        and isinstance(cond.func, cst.Attribute)
        and cond.func.attr.value == "logical_not"
        and len(cond.args) == 1
        and cst.Module([]).code_for_node(cond.func) == f"{ctx.torch}.logical_not"
    ):
        return cond.args[0].value
    return _call(ctx, "logical_not", cond)


def _where(ctx: FixContext, cond: cst.BaseExpression, a: cst.BaseExpression, b: cst.BaseExpression) -> cst.Call:
    return _call(ctx, "where", cond, a, b)


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _branch(block: cst.BaseSuite) -> list[tuple[str, cst.BaseExpression]] | None:
    """``[(name, value)]`` when a branch is only plain assignments to names, else None."""
    if not isinstance(block, cst.IndentedBlock):
        return None
    out = []
    for line in block.body:
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        stmt = line.body[0]
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
            name, value = stmt.targets[0].target.value, stmt.value
        elif isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) and type(stmt.operator) in _AUG:
            name = stmt.target.value
            value = cst.BinaryOperation(cst.Name(name), _AUG[type(stmt.operator)](), paren(stmt.value))
        else:
            return None
        if _not_value(value):
            return None
        out.append((name, value))
    return out


def assignment_form(node: cst.If, rule: Rule, is_tensor: IsTensor):
    """``[(name, if_value, else_value)]`` for an ``if`` that only assigns names, else None."""
    if node.orelse is not None and not isinstance(node.orelse, cst.Else):
        return None
    body = _branch(node.body)
    orelse = _branch(node.orelse.body) if node.orelse is not None else []
    if not body or orelse is None:
        return None
    names: list[str] = []
    for branch in (body, orelse):
        seen = [n for n, _ in branch]
        if len(seen) != len(set(seen)):
            return None
        names.extend(n for n in seen if n not in names)
    # A value may read the name it replaces (its old value), no other name assigned here.
    for name, value in body + orelse:
        if read_names(value) & (set(names) - {name}):
            return None
    bound = rule.ctx.scope.local if rule.ctx.scope is not None else set()
    out = []
    for name in names:
        a = dict(body).get(name)
        b = dict(orelse).get(name)
        if (a is None or b is None) and name not in bound:
            return None  # `y` has no value to keep on the other side
        a = a if a is not None else cst.Name(name)
        b = b if b is not None else cst.Name(name)
        if not (is_tensor(a) or is_tensor(b)):
            return None
        out.append((name, a, b))
    return out


def chain_form(node: cst.If, rule: Rule, is_tensor: IsTensor):
    """``(tests, [(name, [value per arm..., else value])])`` for an ``if``/``elif`` chain (at least
    one ``elif``) whose arms only assign names, else None."""
    tests = [node.test]
    arms: list[cst.BaseSuite | None] = [node.body]
    cur = node.orelse
    while isinstance(cur, cst.If):
        tests.append(cur.test)
        arms.append(cur.body)
        cur = cur.orelse
    if len(tests) < 2:
        return None
    arms.append(cur.body if isinstance(cur, cst.Else) else None)
    parsed = [_branch(a) if a is not None else [] for a in arms]
    branches = [b for b in parsed if b is not None]
    if len(branches) != len(parsed) or not any(branches):
        return None
    names: list[str] = []
    for branch in branches:
        seen = [n for n, _ in branch]
        if len(seen) != len(set(seen)):
            return None
        names.extend(n for n in seen if n not in names)
    for branch in branches:
        for name, value in branch:
            if read_names(value) & (set(names) - {name}):
                return None
    for test in tests[1:]:
        if read_names(test) & set(names):
            return None  # the original read it after no arm ran; computed first, the same
    bound = rule.ctx.scope.local if rule.ctx.scope is not None else set()
    out = []
    for name in names:
        values = [dict(b).get(name) for b in branches]
        if any(v is None for v in values) and name not in bound:
            return None
        filled = [v if v is not None else cst.Name(name) for v in values]
        if not any(is_tensor(v) for v in filled):
            return None
        out.append((name, filled))
    return tests, out


def early_return_form(node: cst.If, ctx: FixContext, is_tensor: IsTensor):
    """``(a, final_return, rest)`` for ``if c: return a`` at a function's top level whose rest
    ends in its only other ``return b``; else None."""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock) or len(node.body.body) != 1:
        return None
    line = node.body.body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Return)):
        return None
    a = line.body[0].value
    if a is None or _not_value(a) or not is_tensor(a):
        return None
    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.body, cst.IndentedBlock) or node not in fn.body.body:
        return None
    rest = list(fn.body.body)[list(fn.body.body).index(node) + 1 :]
    if not rest:
        return None
    last = rest[-1]
    if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)):
        return None
    final = last.body[0]
    if final.value is None or _not_value(final.value):
        return None
    nested = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    for stmt in rest[:-1]:
        if isinstance(stmt, nested) or contains(stmt, (cst.Return, cst.Yield, cst.Raise), stop=nested):
            return None
    if contains(final, (cst.Yield,), stop=nested):
        return None
    changed = set().union(*(assigned_names(s) for s in rest[:-1])) if rest[:-1] else set()
    if read_names(a) & changed:
        return None  # `a` would no longer mean the same at the end
    return a, final, rest


#: what gives a boolean tensor (negated exactly by `~`)
_BOOL_REDUCTIONS = frozenset({"any", "all", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_not"})


def _boolean(expr: cst.BaseExpression, rule: Rule) -> bool:
    """A boolean tensor by construction: a comparison of a tensor, `t.any()`, `torch.isnan(t)`."""
    if isinstance(expr, cst.Comparison):
        plain = all(
            isinstance(
                c.operator,
                (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual),
            )
            for c in expr.comparisons
        )
        return plain and len(expr.comparisons) == 1 and rule.is_tensor(expr)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        name = expr.func.attr.value
        qual = rule.resolve(expr.func) or ""
        return name in _BOOL_REDUCTIONS and (qual.startswith("torch.") or rule.is_tensor(expr.func.value))
    return False


def assert_not_plan(node: cst.CSTNode, owner: cst.CSTNode | None, rule: Rule) -> Plan | None:
    """`assert not t.any(), "text"` -> `assert ~t.any(), "text"`: negated in torch, the
    assertion is traced as a runtime check; `~` of a boolean tensor is `not` of its value."""
    if not (
        isinstance(owner, cst.Assert)
        and owner.test is node
        and isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Not)
        and _boolean(node.expression, rule)
    ):
        return None
    inner = node.expression
    if isinstance(inner, cst.Comparison) and not inner.lpar:
        inner = inner.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def edit(updated: cst.UnaryOperation) -> cst.UnaryOperation:
        return cst.UnaryOperation(cst.BitInvert(), inner, lpar=updated.lpar, rpar=updated.rpar)

    return Plan(
        rule.code,
        node,
        {node: edit},
        SAFE,
        description="Negate in torch (`assert ~t.any()` for `assert not t.any()`): the same truth, and dynamo traces "
        "the assertion as a runtime check instead of reading the value on the host.",
    )


@register("TL005")
class WhereForBranch(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        owner = ctx.parent(node)
        negated = assert_not_plan(node, owner, rule)
        if negated is not None:
            return negated
        if isinstance(owner, cst.IfExp) and owner.test is node:
            return self._ternary(owner, node, rule, ctx)
        if not isinstance(owner, cst.If) or owner.test is not node or isinstance(ctx.parent(owner), cst.If):
            return None
        cond = bool_test(node, rule.is_tensor, ctx)
        if cond is None:
            return None
        assigns = assignment_form(owner, rule, rule.is_tensor)
        if assigns is not None:
            return self._assignments(owner, node, cond, assigns, rule, ctx)
        chain = chain_form(owner, rule, rule.is_tensor)
        if chain is not None:
            return self._chain(owner, node, chain, rule, ctx)
        early = early_return_form(owner, ctx, rule.is_tensor)
        if early is not None:
            return self._early_return(owner, node, cond, early, rule, ctx)
        return value_check_plan(owner, node, cond, rule, ctx, lambda c: _negated(ctx, c)) or loop_exit_plan(
            owner, node, cond, rule, ctx
        )

    def _ternary(self, owner: cst.IfExp, node, rule: Rule, ctx: FixContext) -> Plan | None:
        cond = bool_test(node, rule.is_tensor, ctx)
        values = (owner.body, owner.orelse)
        if cond is None or any(_not_value(v) for v in values) or not any(map(rule.is_tensor, values)):
            return None

        def edit(updated: cst.IfExp):
            return _where(ctx, cond, updated.body, updated.orelse).with_changes(lpar=updated.lpar, rpar=updated.rpar)

        return Plan(
            rule.code,
            node,
            {owner: edit},
            UNSAFE,
            needs_torch=True,
            description=(
                "Replace the conditional expression with `torch.where(cond, a, b)`: both sides are computed "
                "on every call and picked element-wise (same values when both have the same shape and dtype)."
            ),
        )

    def _assignments(self, owner: cst.If, node, cond, assigns, rule: Rule, ctx: FixContext) -> Plan:
        fn = ctx.enclosing_function(owner) or ctx.module
        if len(assigns) == 1:
            name, a, b = assigns[0]
            lines = [_assign(name, _where(ctx, cond, a, b))]
        else:
            flag = ctx.fresh_name(fn, "cond")
            lines = [_assign(flag, cond)] + [_assign(name, _where(ctx, cst.Name(flag), a, b)) for name, a, b in assigns]
        lines[0] = with_leading_lines(lines[0], owner)
        targets = ", ".join(f"`{n}`" for n, _, _ in assigns)
        return Plan(
            rule.code,
            node,
            {owner: lambda updated: cst.FlattenSentinel(lines)},
            UNSAFE,
            needs_torch=True,
            description=(
                f"Replace the `if` with `torch.where` for {targets}: both branches are computed on "
                "every call and picked element-wise (same values when both have the same shape "
                "and dtype; an error or side effect of the branch not taken now happens too)."
            ),
        )

    def _chain(self, owner: cst.If, node, chain, rule: Rule, ctx: FixContext) -> Plan | None:
        tests, assigns = chain
        tested = [bool_test(t, rule.is_tensor, ctx) for t in tests]
        conds: list[cst.BaseExpression] = [c for c in tested if c is not None]
        if len(conds) != len(tested):
            return None
        fn = ctx.enclosing_function(owner) or ctx.module
        lines = []
        if len(assigns) > 1:
            flags: list[str] = []
            taken: set[str] = set()
            for c in conds:
                flag = ctx.fresh_name(fn, "cond", taken)
                taken.add(flag)
                flags.append(flag)
                lines.append(_assign(flag, c))
            conds = [cst.Name(f) for f in flags]

        def nested(values):
            out = values[-1]
            for c, v in zip(reversed(conds), reversed(values[:-1])):
                out = _where(ctx, c, v, out)
            return out

        lines += [_assign(name, nested(values)) for name, values in assigns]
        lines[0] = with_leading_lines(lines[0], owner)
        targets = ", ".join(f"`{n}`" for n, _ in assigns)
        return Plan(
            rule.code,
            node,
            {owner: lambda updated: cst.FlattenSentinel(lines)},
            UNSAFE,
            needs_torch=True,
            description=(
                f"Replace the `if`/`elif` chain with nested `torch.where` for {targets}: every arm and "
                "every condition is computed on each call and the values picked element-wise, first "
                "true condition first (same values when the arms have the same shape and dtype; an "
                "error or side effect of an arm or a condition not reached now happens too)."
            ),
        )

    def _early_return(self, owner: cst.If, node, cond, early, rule: Rule, ctx: FixContext) -> Plan:
        a, final, _ = early
        fn = ctx.enclosing_function(owner) or ctx.module  # a function's: early_return_form checked
        flag = ctx.fresh_name(fn, "take_early")
        first = with_leading_lines(_assign(flag, cond), owner)
        edits = {
            owner: lambda updated: first,
            final: lambda updated: updated.with_changes(value=_where(ctx, cst.Name(flag), a, updated.value)),
        }
        return Plan(
            rule.code,
            node,
            edits,
            UNSAFE,
            needs_torch=True,
            description=(
                "Replace the early `return` with `torch.where` on the final result: the rest of the function "
                "now runs on every call (time, and its side effects), and both results must have the same "
                "shape and dtype for the values to match."
            ),
        )


def branch_is_convertible(node: cst.If, rule: Rule, ctx: FixContext) -> bool:
    """Whether this fix can take the ``if`` once its test is a tensor (used by the .item() fix)."""
    if isinstance(ctx.parent(node), cst.If):
        return False
    any_tensor: IsTensor = lambda e: True  # noqa: E731 - the test is about to become one
    forms: Sequence[object] = (
        assignment_form(node, rule, rule.is_tensor),
        early_return_form(node, ctx, rule.is_tensor),
        loop_exit_form(node, rule, ctx),
    )
    return bool_test(node.test, any_tensor, ctx) is not None and any(f is not None for f in forms)
