"""Boolean-mask picks without a data-dependent shape (TL008): reduced ones, and shared positions.

A pick that is only reduced, ``x[mask].sum()`` / ``x[mask].mean()``, becomes
``torch.where(mask, x, 0).sum()`` / ``(torch.where(mask, x, 0).sum() / mask.sum())``: no
data-dependent shape at all, so no break. Unsafe: it assumes ``mask`` has ``x``'s shape (a
mask over leading dimensions only broadcasts differently in ``torch.where``), the sum is taken
in another order (equal up to float rounding), an integer ``x`` now gives a float mean where
``.mean()`` raised, and an all-``False`` mask gives ``0`` for the sum and ``nan`` for the mean
(0/0), as ``x[mask]`` did.

Otherwise several picks with one mask share one ``nonzero``:

    keep = scores > thr                          keep = scores > thr
    kept_scores = scores[keep]             ->    keep_idx = keep.nonzero(as_tuple=True)
    kept_boxes = boxes[keep]                     kept_scores = scores[keep_idx]
    image_index = torch.nonzero(keep)[:, 0]      kept_boxes = boxes[keep_idx]
                                                 image_index = torch.stack(keep_idx, dim=1)[:, 0]

Each ``x[mask]`` finds the mask's ``True`` positions again, a host sync and a graph break
apiece; indexing with the positions found once (``x[mask] == x[mask.nonzero(as_tuple=True)]``
for a boolean mask, both in row-major order) leaves one break, at the ``nonzero``, and the
picks after it compile. Same values, shapes, dtypes and gradients.

Taken only when the mask is a name bound once in the function to a boolean expression (a
comparison of tensors, ``~``/``&``/``|``/``^`` of booleans, ``isnan``-style calls), every use
of it is ``x[mask]`` (a read), ``torch.nonzero(mask)`` or ``mask.nonzero()``, at least two of
them, all in plain statements of the block that binds it. Unsafe because it assumes the mask
has at least one dimension (a 0-d mask adds a dimension that the positions do not) and that
each masked tensor's leading dimensions match the mask's, as ``x[mask]`` requires: where they
do not, ``x[mask]`` raised and the positions may pick without an error.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from torchlint.fixes.base import (
    UNSAFE,
    Edits,
    FixContext,
    Fixer,
    Plan,
    assigned_names,
    name_nodes,
    register,
    with_leading_lines,
)
from torchlint.fixes.moe_dispatch import moe_dispatch_plan
from torchlint.fixes.one_hot_slice import one_hot_plan
from torchlint.rules.base import Rule

_BOOL_FUNCS = {
    "torch.isfinite",
    "torch.isnan",
    "torch.isinf",
    "torch.logical_and",
    "torch.logical_or",
    "torch.logical_not",
    "torch.logical_xor",
    "torch.isin",
    "torch.eq",
    "torch.ne",
    "torch.gt",
    "torch.ge",
    "torch.lt",
    "torch.le",
    "torch.isclose",
    "torch.signbit",
}
_BOOL_METHODS = {
    "bool",
    "isfinite",
    "isnan",
    "isinf",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "isclose",
    "signbit",
}
_NONZERO = "torch.nonzero"


def is_bool_tensor(expr: cst.BaseExpression, rule: Rule) -> bool:
    """Whether ``expr`` is a boolean tensor by construction (not just used as one)."""
    if isinstance(expr, cst.Comparison):
        return (
            len(expr.comparisons) == 1
            and not isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
            and rule.is_tensor(expr)
        )
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return is_bool_tensor(expr.expression, rule)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return is_bool_tensor(expr.left, rule) and is_bool_tensor(expr.right, rule)
    if isinstance(expr, cst.Call):
        if rule.resolve(expr.func) in _BOOL_FUNCS:
            return True
        func = expr.func
        return isinstance(func, cst.Attribute) and func.attr.value in _BOOL_METHODS and rule.is_tensor(func.value)
    return False


def _use_kind(name: cst.Name, ctx: FixContext, rule: Rule) -> tuple[str, cst.CSTNode] | None:
    """``("pick", x[mask])`` or ``("nonzero", call)`` for an allowed use of the mask, else None."""
    parent = ctx.parent(name)
    if isinstance(parent, cst.Index) and parent.star is None:
        element = ctx.parent(parent)
        sub = ctx.parent(element)
        if isinstance(sub, cst.Subscript) and len(sub.slice) == 1 and rule.is_tensor(sub.value):
            holder = ctx.parent(sub)
            targets = getattr(holder, "targets", None)
            if isinstance(holder, cst.AssignTarget) or (isinstance(holder, (cst.AugAssign, cst.Del))):
                return None  # a store: `x[mask] = v` keeps shapes and is not a pick
            if targets is not None and any(t.target is sub for t in targets):
                return None
            return "pick", sub
        return None
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        if (
            isinstance(call, cst.Call)
            and rule.resolve(call.func) == _NONZERO
            and len(call.args) == 1
            and parent.keyword is None
            and not parent.star
        ):
            return "nonzero", call
        return None
    if isinstance(parent, cst.Attribute) and parent.value is name and parent.attr.value == "nonzero":
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent and not call.args:
            return "nonzero", call
    return None


_DESCRIPTION = (
    "Find the `True` positions of `{mask}` once (`{idx} = {mask}.nonzero(as_tuple=True)`) and pick "
    "with them: one graph break and host sync instead of one per pick, with the same values, shapes "
    "and gradients, assuming `{mask}` has at least one dimension and each masked tensor's leading "
    "dimensions match it (where they do not, `x[{mask}]` raised; the positions may pick without "
    "an error)."
)


@register("TL008")
class SharedMaskPositions(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        moe = moe_dispatch_plan(node, rule, ctx)  # a mixture-of-experts hit list: no nonzero at all
        if moe is not None:
            return moe
        cut = one_hot_plan(node, rule, ctx)  # `one_hot(i, max(..., n))[..., :n]`, not a mask
        if cut is not None:
            return cut
        mask = self._mask_of(node)
        fn = ctx.enclosing_function(node)
        if mask is None or fn is None:
            return None
        reduced = self._reduction(node, mask, fn, rule, ctx)
        if reduced is not None:
            return reduced
        if not _bound_to_bool(mask, fn, rule, ctx):
            return None
        uses = name_nodes(fn.body, [mask])
        binds = [u for u in uses if isinstance(ctx.parent(u), cst.AssignTarget)]
        assign_line = ctx.parent(ctx.parent(ctx.parent(binds[0])))
        found = ctx.block_of(assign_line)
        if found is None:
            return None
        siblings, at = found
        kinds = []
        for use in uses:
            if use is binds[0]:
                continue
            kind = _use_kind(use, ctx, rule)
            line = next((a for a in ctx.ancestors(use) if a in siblings), None)
            if (
                kind is None
                or not isinstance(line, cst.SimpleStatementLine)
                or siblings.index(line) <= at
                or any(
                    isinstance(a, (cst.BaseComp, cst.Lambda, cst.IfExp, cst.BooleanOperation))
                    for a in _between(use, line, ctx)
                )
            ):
                return None
            kinds.append((kind, line))
        if len(kinds) < 2:
            return None
        first = min((line for _, line in kinds), key=siblings.index)
        if any(mask in assigned_names(s) for s in siblings[at + 1 : siblings.index(first) + 1]):
            return None
        idx = ctx.fresh_name(fn, f"{mask}_idx")
        positions = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(idx))], cst.parse_expression(f"{mask}.nonzero(as_tuple=True)"))]
        )
        positions = with_leading_lines(positions, first)
        edits: Edits = {}
        for (what, where), _ in kinds:
            if what == "pick":
                edits[where] = lambda updated: updated.with_changes(
                    slice=[updated.slice[0].with_changes(slice=cst.Index(cst.Name(idx)))]
                )
            else:
                edits[where] = lambda updated: cst.Call(
                    ctx.torch_expr("stack"),
                    [
                        cst.Arg(cst.Name(idx)),
                        cst.Arg(
                            cst.Integer("1"),
                            keyword=cst.Name("dim"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                        ),
                    ],
                    lpar=updated.lpar,
                    rpar=updated.rpar,
                )
        if first in edits:
            return None
        edits[first] = lambda updated: cst.FlattenSentinel([positions, updated.with_changes(leading_lines=())])
        return Plan(rule.code, node, edits, UNSAFE, _DESCRIPTION.format(mask=mask, idx=idx), needs_torch=True)

    def _reduction(self, node: cst.CSTNode, mask: str, fn: cst.FunctionDef, rule: Rule, ctx: FixContext) -> Plan | None:
        """``x[mask].sum()`` / ``x[mask].mean()`` -> ``torch.where`` forms of fixed shape."""
        attr = ctx.parent(node)
        call = ctx.parent(attr) if isinstance(attr, cst.Attribute) else None
        if not (
            isinstance(node, cst.Subscript)
            and isinstance(attr, cst.Attribute)
            and isinstance(call, cst.Call)
            and call.func is attr
            and not call.args
            and attr.attr.value in ("sum", "mean")
            and _bound_to_bool(mask, fn, rule, ctx)
        ):
            return None
        how = attr.attr.value

        def edit(updated: cst.Call) -> cst.BaseExpression:
            x = cast(cst.Subscript, cast(cst.Attribute, updated.func).value).value  # `x[mask].sum()`
            where = cst.Call(
                ctx.torch_expr("where"),
                [cst.Arg(cst.Name(mask)), cst.Arg(x.with_changes(lpar=[], rpar=[])), cst.Arg(cst.Integer("0"))],
            )
            total = cst.Call(cst.Attribute(where, cst.Name("sum")))
            if how == "sum":
                return total.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            count = cst.Call(cst.Attribute(cst.Name(mask), cst.Name("sum")))
            return cst.BinaryOperation(total, cst.Divide(), count, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        return Plan(
            rule.code,
            node,
            {call: edit},
            UNSAFE,
            needs_torch=True,
            description=(
                f"Reduce over the mask instead of picking with it: `x[{mask}].{how}()` -> "
                + (
                    "`torch.where(mask, x, 0).sum()`"
                    if how == "sum"
                    else "`(torch.where(mask, x, 0).sum() / mask.sum())`"
                )
                + f"; no data-dependent shape, so no graph break. Assumes `{mask}` has `x`'s shape; the sum is "
                "taken in another order (equal up to float rounding); an all-False mask gives "
                + (
                    "0, as before."
                    if how == "sum"
                    else "nan (0/0), as before, and an integer `x` a float mean where `.mean()` raised."
                )
            ),
        )

    @staticmethod
    def _mask_of(node: cst.CSTNode) -> str | None:
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            value = node.slice[0].slice.value
            return value.value if isinstance(value, cst.Name) else None
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) and not node.args:
                return node.func.value.value
            if len(node.args) == 1 and node.args[0].keyword is None and isinstance(node.args[0].value, cst.Name):
                return node.args[0].value.value
        return None


def _bound_to_bool(mask: str, fn: cst.FunctionDef, rule: Rule, ctx: FixContext) -> bool:
    """``mask`` is bound once in ``fn``, by a plain ``mask = <boolean tensor expression>`` line."""
    binds = [u for u in name_nodes(fn.body, [mask]) if isinstance(ctx.parent(u), cst.AssignTarget)]
    if len(binds) != 1 or any(p.name.value == mask for p in fn.params.params):
        return False
    assign = ctx.parent(ctx.parent(binds[0]))
    return (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(ctx.parent(assign), cst.SimpleStatementLine)
        and is_bool_tensor(assign.value, rule)
    )


def _between(node: cst.CSTNode, top: cst.CSTNode, ctx: FixContext):
    for anc in ctx.ancestors(node):
        if anc is top:
            return
        yield anc
