"""Replace a ``.tolist()`` index list that a comprehension picks rows with by one indexing op (TL003).

    cols = idx.tolist()
    out = torch.stack([h[i, c] for i, c in enumerate(cols)])
    ->  out = h[torch.arange(idx.shape[0], device=h.device), idx]

The forms taken: ``for i, c in enumerate(cols)``, ``for c in cols`` and
``for i in range(len(cols))`` (with ``cols[i]``), the element ``h[i, c]`` or ``h[i][c]`` (any
mix of the counter, the list's value and integer literals), inside ``torch.stack(..., dim=0)``,
or appended in a ``for`` loop to a list made empty just before it and stacked once after. The
``cols = idx.tolist()`` line goes too, so the list must be read nowhere else, and ``idx`` must
not be read between the two lines (an in-place change there would give the list and the tensor different values).

Row ``k`` of the new result is ``h[k, idx[k]]``, the ``k``-th element the comprehension
stacked: same values, shape, dtype and gradients. Unsafe because it assumes ``idx`` is a 1-D
integer tensor with at least one element: a 2-D ``idx`` gives nested lists (a different pick),
a bool one picks with ``True``/``False``, and an empty one made ``torch.stack`` raise where the
new form returns an empty tensor. The result is a copy, as ``torch.stack``'s was.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import (
    REMOVE,
    UNSAFE,
    FixContext,
    Fixer,
    Plan,
    assigned_names,
    is_name,
    is_simple_ref,
    read_names,
    register,
    tensor_method_receiver,
    with_leading_lines,
)
from torchlint.fixes.gather import _index_values, _stack_of
from torchlint.fixes.gather import init_and_use as _init_and_use
from torchlint.rules.base import Rule

_ENUMERATE = "builtins.enumerate"
_RANGE = "builtins.range"
_LEN = "builtins.len"


def _loop_roles(target: cst.BaseExpression, it: cst.BaseExpression, cols: str, rule: Rule) -> dict[str, str] | None:
    """``{name: "row" | "value"}`` for ``for <target> in <it>`` over the list ``cols``.

    ``row``: the counter 0, 1, ...; ``value``: the list's element at that counter."""
    if is_name(it, cols) and isinstance(target, cst.Name):
        return {target.value: "value"}
    if not isinstance(it, cst.Call) or any(a.star or a.keyword for a in it.args):
        return None
    qual = rule.resolve(it.func)
    args = [a.value for a in it.args]
    if qual == _ENUMERATE and len(args) == 1 and is_name(args[0], cols):
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
            return None
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        if len(names) == 2:
            row, value = names
            return None if row == value else {row: "row", value: "value"}
        return None
    if qual == _RANGE and len(args) == 1 and isinstance(target, cst.Name):
        n = args[0]
        if (
            isinstance(n, cst.Call)
            and rule.resolve(n.func) == _LEN
            and len(n.args) == 1
            and is_name(n.args[0].value, cols)
        ):
            return {target.value: "row"}
    return None


def picked(
    elt: cst.BaseExpression, roles: dict[str, str], cols: str, idx: cst.BaseExpression, ctx: FixContext
) -> cst.Subscript | None:
    """``h[torch.arange(idx.shape[0], device=h.device), idx]`` for the element ``h[i, c]``."""
    if not isinstance(elt, cst.Subscript):
        return None
    parts = _index_values(elt)
    if parts is None:
        return None
    base, indices = parts[-1], parts[:-1]
    if not is_simple_ref(base) or read_names(base) & (set(roles) | {cols}):
        return None
    if any(cols in read_names(i) and not (isinstance(i, cst.Subscript) and is_name(i.value, cols)) for i in indices):
        return None
    rows = [n for n, r in roles.items() if r == "row"]
    arange = cst.Call(
        ctx.torch_expr("arange"),
        [
            cst.Arg(cst.parse_expression(f"{cst.Module([]).code_for_node(idx)}.shape[0]")),
            cst.Arg(
                cst.Attribute(base, cst.Name("device")),
                keyword=cst.Name("device"),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            ),
        ],
    )
    new: list[cst.BaseExpression] = []
    values = 0
    for index in indices:
        if isinstance(index, cst.Name) and roles.get(index.value) == "row":
            new.append(arange)
        elif isinstance(index, cst.Name) and roles.get(index.value) == "value":
            new.append(idx)
            values += 1
        elif (
            isinstance(index, cst.Subscript)
            and is_name(index.value, cols)
            and len(index.slice) == 1
            and isinstance(index.slice[0].slice, cst.Index)
            and rows
            and is_name(index.slice[0].slice.value, rows[0])
        ):
            new.append(idx)
            values += 1
        elif isinstance(index, cst.Integer):
            new.append(index)
        else:
            return None
    if not values:
        return None
    return cst.Subscript(base, [cst.SubscriptElement(cst.Index(e)) for e in new])


_DESCRIPTION = (
    "Replace the `.tolist()` index list and the comprehension that picks with it by one advanced-indexing "
    "op (`h[torch.arange(idx.shape[0], device=h.device), idx]`): the same values, shape, dtype and gradients, "
    "assuming `{idx}` is a 1-D integer tensor with at least one element (a 2-D or bool tensor picks "
    "differently; an empty one made `torch.stack` raise and now gives an empty result)."
)


@register("TL003")
class TolistRowPick(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        idx = tensor_method_receiver(node, rule)
        if not isinstance(idx, cst.Name):
            return None
        bound = ctx.bound_once(node)
        if bound is None:
            return None
        line, cols, siblings, at, uses = bound.line, bound.name, bound.siblings, bound.at, bound.uses
        loop = (
            next((a for a in ctx.ancestors(uses[0]) if isinstance(a, (cst.ListComp, cst.GeneratorExp, cst.For))), None)
            if uses
            else None
        )
        if loop is None or any(loop not in set(ctx.ancestors(u)) for u in uses):
            return None  # the list is read (or bound) outside the loop too
        use_line = loop if loop in siblings else next((a for a in ctx.ancestors(loop) if a in siblings), None)
        if use_line is None or siblings.index(use_line) <= at:
            return None
        if any(
            idx.value in read_names(s) or idx.value in assigned_names(s)
            for s in siblings[at + 1 : siblings.index(use_line)]
        ):
            return None  # `idx` may change between the list and its use
        if isinstance(loop, cst.For):
            edits = self._loop(loop, cols, idx, rule, ctx)
        else:
            edits = self._comprehension(loop, cols, idx, rule, ctx)
        if edits is None:
            return None
        edits[line] = lambda updated: REMOVE
        return Plan(rule.code, node, edits, UNSAFE, _DESCRIPTION.format(idx=idx.value), needs_torch=True)

    @staticmethod
    def _element(elt: cst.BaseExpression, target, it, cols: str, idx: cst.Name, rule: Rule, ctx: FixContext):
        roles = _loop_roles(target, it, cols, rule)
        parts = _index_values(elt) if isinstance(elt, cst.Subscript) else None
        if roles is None or parts is None or not rule.is_tensor(parts[-1]):
            return None
        return picked(elt, roles, cols, idx, ctx)

    def _comprehension(
        self, comp: cst.ListComp | cst.GeneratorExp, cols: str, idx: cst.Name, rule: Rule, ctx: FixContext
    ):
        """``torch.stack([h[i, c] for i, c in enumerate(cols)])``."""
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous:
            return None
        arg = ctx.parent(comp)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if call is None or _stack_of(call, rule) is not comp:
            return None
        new = self._element(comp.elt, loop.target, loop.iter, cols, idx, rule, ctx)
        if new is None:
            return None
        return {call: lambda updated: new.with_changes(lpar=updated.lpar, rpar=updated.rpar)}

    def _loop(self, loop: cst.For, cols: str, idx: cst.Name, rule: Rule, ctx: FixContext):
        """``out = []`` / ``for i, c in enumerate(cols): out.append(h[i, c])`` / ``torch.stack(out)``."""
        if loop.orelse is not None or loop.asynchronous is not None or not isinstance(loop.body, cst.IndentedBlock):
            return None
        body = loop.body.body
        small = (
            body[0].body[0]
            if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1
            else None
        )
        append = small.value if isinstance(small, cst.Expr) else None
        if not (
            isinstance(append, cst.Call)
            and len(append.args) == 1
            and isinstance(append.func, cst.Attribute)
            and append.func.attr.value == "append"
            and isinstance(append.func.value, cst.Name)
            and not append.args[0].keyword
            and not append.args[0].star
        ):
            return None
        acc = append.func.value.value
        new = self._element(append.args[0].value, loop.target, loop.iter, cols, idx, rule, ctx)
        found = _init_and_use(loop, acc, ctx, rule) if new is not None else None
        if found is None:
            return None
        init, use, use_line = found
        block_found = ctx.block_of(loop)  # not None: _init_and_use found the loop in its block
        if block_found is None:
            return None
        siblings, at = block_found
        if assigned_names(loop.target) & set().union(*(read_names(s) for s in siblings[at + 1 :])):
            return None  # a loop variable is read after the loop
        if at + 1 < len(siblings) and siblings[at + 1] is use_line:
            return {
                init: lambda updated: REMOVE,
                loop: lambda updated: REMOVE,
                use: lambda updated: new.with_changes(lpar=updated.lpar, rpar=updated.rpar),
            }
        assign = with_leading_lines(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(acc))], new)]), loop)
        return {
            init: lambda updated: REMOVE,
            loop: lambda updated: assign,
            use: lambda updated: cst.Name(acc, lpar=updated.lpar, rpar=updated.rpar),
        }
