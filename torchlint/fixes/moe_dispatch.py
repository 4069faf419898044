"""Mixture-of-experts dispatch without data-dependent shapes (TL008): every expert on every token.

The sparse dispatch loop of many mixture-of-experts layers::

    expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
    for expert_idx in expert_hit:
        expert_idx = expert_idx[0]
        pos, tok = torch.where(expert_mask[expert_idx])
        y = self.experts[expert_idx](hidden[tok]) * weights[tok, pos, None]
        final.index_add_(0, tok, y.to(final.dtype))

becomes a loop over every expert that applies it to every token, weighted by the token's
routing weight for it (zero where the token was not routed there)::

    for expert_idx in range(expert_mask.shape[0]):
        routed = expert_mask[expert_idx]
        tok = torch.arange(routed.shape[1], device=routed.device)
        y = self.experts[expert_idx](hidden[tok]) * (weights * routed.transpose(0, 1)).sum(dim=1, keepdim=True)
        final.index_add_(0, tok, y.to(final.dtype))

``expert_mask`` is ``(experts, k, tokens)``: the ``(k, token)`` pairs routed to an expert are its
row's non-zero entries, and ``weights[tok, pos]`` the weight of each pair. A token's rows of the
sparse loop (one per ``k`` that routed it there) all compute the same expert output, which is
then scaled and summed into the token's row; the dense loop scales that output once by the sum
of those weights. No shape depends on the routing, so dynamo traces the whole layer as one
graph (the loop is unrolled over the experts).

Same result, more work: each expert runs on every token instead of on its routed ones, about
``experts / k`` times the expert FLOPs of the sparse loop (the sparse loop's gathers and the
host syncs go). Unsafe because it assumes what the loop's form does not prove:

* an expert computes each token's row from that row alone (a layer mixing rows, such as a
  batch norm over the routed tokens, gives other numbers on all tokens);
* the expert output is finite on tokens it was not routed (``inf * 0`` is ``nan``);
* the routing mask is ``(experts, k, tokens)`` and the weights ``(tokens, k)``, as
  ``weights[tok, pos]`` reads them;
* a dropout between the weighting and ``index_add_`` draws one mask per token instead of one
  per routed pair (training only: eval numbers are the same).

Taken only when the loop's form guarantees the rest: the hit list is the ``nonzero()`` of
``torch.greater(mask.sum(dim=<negative dims>), 0)`` (or ``mask.sum(...) > 0``) bound once and
read only by the loop; the loop variable is used as a row of it (``v[0]``, ``mask[v]``,
``mask[v].squeeze(0)``, or turned into a number first: ``v = v[0]``, ``v = v.item()``,
``i = int(v.item())``) and then as a number (an index, in comparisons, in an f-string); the
pair positions ``pos`` are read only as ``weights[tok, pos]`` / ``weights[tok, pos, None]``,
that value is a factor of a product (through dtype casts), and the weighted rows reach
``final.index_add_(0, tok, ...)`` only through scaling (``* c``, ``/ c``, ``*=``, ``/=``),
dtype casts and dropout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchlint.analysis.names import int_literal
from torchlint.fixes.base import (
    REMOVE,
    UNSAFE,
    Edits,
    FixContext,
    Plan,
    assigned_names,
    is_name,
    is_simple_ref,
    name_nodes,
    read_names,
    with_leading_lines,
)
from torchlint.rules.base import Rule

_CASTS = {"to", "float", "half", "double", "bfloat16", "type_as"}
_NUMBER_CALLS = {"int", "str", "range"}


def _method(call: cst.CSTNode | None, name: str) -> cst.BaseExpression | None:
    """``x`` of ``x.<name>(...)``."""
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == name:
        return call.func.value
    return None


def _negative_dims(expr: cst.BaseExpression) -> bool:
    """A negative int literal or a tuple of them (dimensions that never name dim 0 of a 3-D+ mask)."""
    items = [e.value for e in expr.elements] if isinstance(expr, cst.Tuple) else [expr]
    return bool(items) and all(
        isinstance(i, cst.UnaryOperation)
        and isinstance(i.operator, cst.Minus)
        and isinstance(i.expression, cst.Integer)
        for i in items
    )


def _hit_source(expr: cst.BaseExpression, rule: Rule) -> cst.Name | None:
    """``mask`` of ``torch.greater(mask.sum(dim=...), 0)`` / ``mask.sum(...) > 0`` (negative dims)."""
    summed: cst.BaseExpression | None = None
    if isinstance(expr, cst.Call) and rule.resolve(expr.func) in ("torch.greater", "torch.gt"):
        args = expr.args
        if len(args) == 2 and not any(a.keyword or a.star for a in args) and int_literal(args[1].value, 0):
            summed = args[0].value
    elif (
        isinstance(expr, cst.Comparison)
        and len(expr.comparisons) == 1
        and isinstance(expr.comparisons[0].operator, cst.GreaterThan)
        and int_literal(expr.comparisons[0].comparator, 0)
    ):
        summed = expr.left
    mask = _method(summed, "sum") if summed is not None else None
    if not isinstance(mask, cst.Name):
        return None
    call = summed
    assert isinstance(call, cst.Call)
    dims = [a for a in call.args if a.keyword is None or a.keyword.value == "dim"]
    if len(dims) != 1 or dims[0].star or not _negative_dims(dims[0].value):
        return None
    if any(a.keyword is not None and a.keyword.value not in ("dim", "dtype") for a in call.args):
        return None
    return mask


@dataclass
class _Loop:
    """What the fix learnt of the dispatch loop."""

    var: str  # the loop variable as the new loop spells it (a number)
    edits: Edits = field(default_factory=dict)
    dropout: bool = False


def _statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    return list(block.body) if isinstance(block, cst.IndentedBlock) else []


def _single(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _name_target(small: cst.CSTNode | None) -> str | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    return None


def _as_number(value: cst.BaseExpression, var: str) -> bool:
    """``v[0]``, ``v.item()``, ``int(v)``, ``int(v.item())``, ``int(v[0])``: the number in ``v``."""
    if isinstance(value, cst.Call) and is_name(value.func, "int") and len(value.args) == 1:
        value = value.args[0].value
        if is_name(value, var):
            return True
    if isinstance(value, cst.Call) and is_name(_method(value, "item") or value, var):
        return not value.args
    return _first(value, var)


def _first(expr: cst.CSTNode, var: str) -> bool:
    """``v[0]``."""
    return (
        isinstance(expr, cst.Subscript)
        and is_name(expr.value, var)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and int_literal(expr.slice[0].slice.value, 0)
    )


class _Refuse(Exception):
    """The loop is not of the form this fix proves."""


def moe_dispatch_plan(node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
    """The plan for the dispatch loop whose hit list ``node`` (a ``.nonzero()`` call) makes."""
    try:
        return _plan(node, rule, ctx)
    except _Refuse:
        return None


def _plan(node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
    source = _method(node, "nonzero")
    if source is None or not isinstance(node, cst.Call) or node.args or not rule.is_tensor(source):
        return None
    hit_expr: cst.CSTNode = node
    squeezed = False
    holder = ctx.parent(ctx.parent(node))
    if isinstance(holder, cst.Call) and _method(holder, "squeeze") is node:
        squeeze_args = holder.args
        if len(squeeze_args) != 1 or not (
            int_literal(squeeze_args[0].value, -1) or int_literal(squeeze_args[0].value, 1)
        ):
            return None
        hit_expr, squeezed = holder, True
    mask = _hit_source(source, rule)
    bound = ctx.bound_once(hit_expr) if mask is not None else None
    if bound is None or mask is None or len(bound.uses) != 1:
        return None
    loop = ctx.parent(bound.uses[0])
    if not (
        isinstance(loop, cst.For)
        and loop.iter is bound.uses[0]
        and isinstance(loop.target, cst.Name)
        and loop.orelse is None
        and loop.asynchronous is None
        and isinstance(loop.body, cst.IndentedBlock)
    ):
        return None
    _mask_unchanged(bound, loop, mask.value, ctx)
    found = _loop(loop, squeezed, rule, ctx)
    var = found.var

    def new_loop(updated: cst.For) -> cst.For:
        return updated.with_changes(
            target=cst.Name(var),
            iter=cst.Call(cst.Name("range"), [cst.Arg(cst.parse_expression(f"{mask.value}.shape[0]"))]),
        )

    edits: Edits = {bound.line: lambda updated: REMOVE, loop: new_loop, **found.edits}
    extra = (
        " A dropout on the weighted rows now draws one mask per token instead of one per routed pair (training only)."
        if found.dropout
        else ""
    )
    return Plan(
        rule.code,
        node,
        edits,
        UNSAFE,
        needs_torch=True,
        description=(
            f"Dispatch to every expert without data-dependent shapes: loop over all "
            f"`{mask.value}.shape[0]` experts, apply each to every token and weight its output by the "
            "token's routing weight for it (zero where the token was not routed there), so no shape "
            "depends on the routing and dynamo keeps the layer in one graph. Same result, more work: "
            "each expert now runs on every token (about experts/top-k times the expert FLOPs). Assumes "
            "each expert computes a token's row from that row alone, gives finite values on tokens not "
            f"routed to it (`inf * 0` is nan), and that `{mask.value}` is (experts, k, tokens) with "
            "weights (tokens, k), as the loop reads them. In training, dropout inside the experts "
            "draws its masks over every token, so its random draws (not their distribution) differ "
            "from the original's; and an expert no token was routed to gets a zero gradient rather "
            "than none (an optimizer with momentum or weight decay still steps it)." + extra
        ),
    )


def _mask_unchanged(bound, loop: cst.For, mask: str, ctx: FixContext) -> None:
    """The mask is not rebound between the hit list and the loop: ``mask.shape[0]`` counts the
    same rows the hit list was taken over (the hit line's block, or a ``with`` holding it, sits in
    the loop's block)."""
    found = ctx.block_of(loop)
    if found is None:
        raise _Refuse
    siblings, at = found
    between: list[cst.CSTNode]
    if bound.line in siblings:
        start = siblings.index(bound.line)
        between = list(siblings[start + 1 : at])
    else:
        block = ctx.parent(bound.line)
        outer = ctx.parent(block)
        if not (isinstance(outer, cst.With) and outer in siblings and siblings.index(outer) < at):
            raise _Refuse
        between = list(bound.siblings[bound.at + 1 :]) + list(siblings[siblings.index(outer) + 1 : at])
    if any(mask in assigned_names(s) for s in between):
        raise _Refuse


def _loop(loop: cst.For, squeezed: bool, rule: Rule, ctx: FixContext) -> _Loop:
    """The edits inside the loop body, or :class:`_Refuse`."""
    assert isinstance(loop.target, cst.Name)
    row = loop.target.value
    body = _statements(loop.body)
    out = _Loop(var=row)
    number = squeezed  # the loop variable holds a number (0-d) rather than a one-element row
    first = _single(body[0]) if body else None
    converted = _name_target(first)
    if converted is not None and not squeezed and _as_number(first.value, row):  # type: ignore[union-attr]
        if converted != row and name_nodes(loop.body, [row]) != [
            n
            for n in name_nodes(body[0], [row])
            if n is not first.targets[0].target  # type: ignore[union-attr]
        ]:
            raise _Refuse  # the row is still read after it was turned into a number
        out.var = converted
        out.edits[body[0]] = lambda updated: REMOVE
        number = True
        rest = body[1:]
    else:
        rest = body
    var = out.var
    if any(var in assigned_names(s) for s in rest):
        raise _Refuse
    for use in [u for s in rest for u in name_nodes(s, [var])]:
        _use_of_index(use, number, out, ctx)
    where = _where_statement(rest, rule, ctx)
    pos, tok, stmt = where
    fn = ctx.enclosing_function(loop)
    if fn is None:
        raise _Refuse
    routed = ctx.fresh_name(fn, "routed")
    if any({pos, tok} & assigned_names(s) for s in rest if s is not _top(stmt, rest, ctx)):
        raise _Refuse
    weights = _weight_uses(loop.body, pos, tok, stmt, routed, out, ctx)
    _weighted_flow(rest, weights, tok, out, ctx)
    _token_uses(loop.body, tok, stmt, out, ctx)

    def replace_where(updated: cst.SimpleStatementLine) -> cst.FlattenSentinel:
        stmt = updated.body[0]
        assert isinstance(stmt, (cst.Assign, cst.Expr))  # the `torch.where` line this plan was made for
        call = stmt.value
        assert isinstance(call, cst.Call)
        value = call.args[0].value.with_changes(lpar=[], rpar=[])
        first_line = with_leading_lines(
            cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(routed))], value)]), updated
        )
        arange = cst.parse_statement(f"{tok} = {ctx.torch}.arange({routed}.shape[1], device={routed}.device)\n")
        return cst.FlattenSentinel([first_line, arange])

    out.edits[stmt] = replace_where
    return out


def _top(stmt: cst.CSTNode, rest: list[cst.BaseStatement], ctx: FixContext) -> cst.BaseStatement:
    """The statement of ``rest`` holding ``stmt``."""
    for anc in (stmt, *ctx.ancestors(stmt)):
        if isinstance(anc, cst.BaseStatement) and anc in rest:
            return anc
    raise _Refuse


def _use_of_index(use: cst.Name, number: bool, out: _Loop, ctx: FixContext) -> None:
    """Check one read of the expert index and plan its edit when it was a one-element row."""
    parent = ctx.parent(use)
    if not number:
        # `v[0]` -> `v`; `mask[v].squeeze(0)` -> `mask[v]`
        if isinstance(parent, cst.Subscript) and parent.value is use and _first(parent, use.value):
            out.edits[parent] = lambda updated: cst.Name(use.value, lpar=updated.lpar, rpar=updated.rpar)
            return
        index = parent if isinstance(parent, cst.Index) else None
        element = ctx.parent(index) if index is not None else None
        sub = ctx.parent(element) if element is not None else None
        attr = ctx.parent(sub) if isinstance(sub, cst.Subscript) and len(sub.slice) == 1 else None
        call = ctx.parent(attr) if isinstance(attr, cst.Attribute) and attr.attr.value == "squeeze" else None
        if (
            isinstance(call, cst.Call)
            and call.func is attr
            and len(call.args) == 1
            and int_literal(call.args[0].value, 0)
        ):
            out.edits[call] = lambda updated: updated.func.value.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return
        raise _Refuse
    # a number: an index, a comparison operand, in an f-string, an argument of int()/str()
    if isinstance(parent, cst.Index) and parent.star is None:
        return
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.FormattedStringExpression)):
        return
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _NUMBER_CALLS:
            return
    raise _Refuse


def _where_statement(rest: list[cst.BaseStatement], rule: Rule, ctx: FixContext):
    """``pos, tok = torch.where(mask_row)``: a statement of the body, or of a ``with`` block in it."""
    candidates: list[cst.BaseStatement] = []
    for stmt in rest:
        if isinstance(stmt, cst.With):
            candidates.extend(_statements(stmt.body))
        else:
            candidates.append(stmt)
    found = []
    for stmt in candidates:
        small = _single(stmt)
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            continue
        call = small.value
        if not (
            isinstance(call, cst.Call)
            and rule.resolve(call.func) == "torch.where"
            and len(call.args) == 1
            and not call.args[0].keyword
            and not call.args[0].star
        ):
            continue
        target = small.targets[0].target
        if not (
            isinstance(target, (cst.Tuple, cst.List))
            and len(target.elements) == 2
            and all(isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) for e in target.elements)
        ):
            raise _Refuse
        pos, tok = (e.value.value for e in target.elements if isinstance(e.value, cst.Name))
        if pos == tok:
            raise _Refuse
        found.append((pos, tok, stmt))
    if len(found) != 1:
        raise _Refuse
    return found[0]


def _weight_uses(
    body: cst.BaseSuite, pos: str, tok: str, where: cst.CSTNode, routed: str, out: _Loop, ctx: FixContext
) -> list[cst.CSTNode]:
    """Each ``w[tok, pos]`` / ``w[tok, pos, None]`` -> the token's summed weight; returns the
    expressions holding the weight (the subscript, through casts)."""
    uses = [
        u
        for u in name_nodes(body, [pos])
        if not (isinstance(ctx.parent(u), cst.Element) and where in set(ctx.ancestors(u)))
    ]
    held: list[cst.CSTNode] = []
    for use in uses:
        index = ctx.parent(use)
        element = ctx.parent(index)
        sub = ctx.parent(element)
        if not (isinstance(index, cst.Index) and isinstance(sub, cst.Subscript) and is_simple_ref(sub.value)):
            raise _Refuse
        parts = [e.slice for e in sub.slice]
        if not all(isinstance(p, cst.Index) and p.star is None for p in parts):
            raise _Refuse
        values = [p.value for p in parts if isinstance(p, cst.Index)]
        keep = len(values) == 3 and is_name(values[2], "None")
        if not (len(values) in (2, 3) and is_name(values[0], tok) and values[1] is use and (len(values) == 2 or keep)):
            raise _Refuse
        if read_names(sub.value) & {pos, tok}:
            raise _Refuse

        def edit(updated: cst.Subscript, keep: bool = keep) -> cst.BaseExpression:
            product = cst.BinaryOperation(
                updated.value,
                cst.Multiply(),
                cst.parse_expression(f"{routed}.transpose(0, 1)"),
                lpar=[cst.LeftParen()],
                rpar=[cst.RightParen()],
            )
            args = "dim=1, keepdim=True" if keep else "dim=1"
            summed = cst.parse_expression(f"_.sum({args})")
            assert isinstance(summed, cst.Call) and isinstance(summed.func, cst.Attribute)
            return summed.with_changes(
                func=summed.func.with_changes(value=product), lpar=updated.lpar, rpar=updated.rpar
            )

        out.edits[sub] = edit
        held.append(_through_casts(sub, ctx))
    if not held:
        raise _Refuse
    return held


def _through_casts(expr: cst.CSTNode, ctx: FixContext) -> cst.CSTNode:
    """``expr`` or the outermost ``expr.to(...)`` / ``.float()`` ... call around it."""
    while True:
        attr = ctx.parent(expr)
        call = ctx.parent(attr) if isinstance(attr, cst.Attribute) and attr.value is expr else None
        if (
            isinstance(call, cst.Call)
            and isinstance(attr, cst.Attribute)
            and call.func is attr
            and attr.attr.value in _CASTS
        ):
            expr = call
            continue
        return expr


def _factor_statement(expr: cst.CSTNode, ctx: FixContext) -> tuple[str, cst.SimpleStatementLine, bool]:
    """``(y, line, True)`` when ``expr`` is a factor of the product ``y = a * expr`` (``*`` chains
    and casts around the product allowed); ``(name, line, False)`` when it is the whole value of
    ``name = expr`` (an alias of the weight)."""
    cur = expr
    multiplied = False
    while True:
        parent = ctx.parent(cur)
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Multiply):
            multiplied = True
            cur = parent
            continue
        if multiplied and isinstance(parent, cst.Attribute) and parent.value is cur:
            call = ctx.parent(parent)
            if isinstance(call, cst.Call) and call.func is parent and parent.attr.value in _CASTS:
                cur = call
                continue
        break
    if not (isinstance(parent, cst.Assign) and parent.value is cur):
        raise _Refuse
    name = _name_target(parent)
    line = ctx.parent(parent)
    if name is None or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        raise _Refuse
    return name, line, multiplied


def _weighted_flow(
    rest: list[cst.BaseStatement], weights: list[cst.CSTNode], tok: str, out: _Loop, ctx: FixContext
) -> None:
    """The weighted rows reach ``index_add_(0, tok, ...)`` only through scaling, casts and dropout."""
    products: list[tuple[str, cst.SimpleStatementLine]] = []
    pending = list(weights)
    seen_alias: set[str] = set()
    body_block = ctx.parent(rest[0]) if rest else None
    while pending:
        expr = pending.pop()
        name, line, multiplied = _factor_statement(expr, ctx)
        if not multiplied:  # `rw = w[tok, pos, None]`: each read of `rw` must be a factor
            if name in seen_alias or body_block is None:
                raise _Refuse
            seen_alias.add(name)
            reads = [u for u in name_nodes(body_block, [name]) if not isinstance(ctx.parent(u), cst.AssignTarget)]
            if not reads or sum(name in assigned_names(s) for s in rest) != 1:
                raise _Refuse
            pending.extend(_through_casts(r, ctx) for r in reads)
            continue
        products.append((name, line))
    if len(products) != 1:
        raise _Refuse
    weighted, line = products[0]
    top = _top(line, rest, ctx)
    after = rest[rest.index(top) + 1 :]
    added = 0
    for stmt in after:
        added += _scaled_only(stmt, weighted, tok, out, ctx)
    if added != 1:
        raise _Refuse


def _scaled_only(stmt: cst.CSTNode, y: str, tok: str, out: _Loop, ctx: FixContext) -> int:
    """Check a statement after the weighting: how many ``index_add_`` of ``y`` it makes."""
    if isinstance(stmt, cst.If):
        if y in read_names(stmt.test):
            raise _Refuse
        total = sum(_scaled_only(s, y, tok, out, ctx) for s in _statements(stmt.body))
        orelse = stmt.orelse
        while isinstance(orelse, cst.If):
            if y in read_names(orelse.test):
                raise _Refuse
            total += sum(_scaled_only(s, y, tok, out, ctx) for s in _statements(orelse.body))
            orelse = orelse.orelse
        if isinstance(orelse, cst.Else):
            total += sum(_scaled_only(s, y, tok, out, ctx) for s in _statements(orelse.body))
        if total:
            raise _Refuse  # the add must run on every pass
        return 0
    if not (y in read_names(stmt) or y in assigned_names(stmt)):
        return 0
    small = _single(stmt)
    if small is None:
        raise _Refuse
    if isinstance(small, cst.AugAssign) and is_name(small.target, y):
        if isinstance(small.operator, (cst.MultiplyAssign, cst.DivideAssign)) and y not in read_names(small.value):
            return 0
        raise _Refuse
    if isinstance(small, cst.Assign) and _name_target(small) == y:
        value = small.value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Multiply, cst.Divide)):
            left, right = value.left, value.right
            if _is_y(left, y) and y not in read_names(right):
                return 0
            if isinstance(value.operator, cst.Multiply) and _is_y(right, y) and y not in read_names(left):
                return 0
        if _is_y(value, y):
            return 0
        if (
            isinstance(value, cst.Call)
            and len(value.args) == 1
            and _is_y(value.args[0].value, y)
            and "dropout" in (cst.Module([]).code_for_node(value.func).rsplit(".", 1)[-1].lower())
        ):
            out.dropout = True
            return 0
        raise _Refuse
    if isinstance(small, cst.Expr) and _method(small.value, "index_add_") is not None:
        call = small.value
        assert isinstance(call, cst.Call)
        args = call.args
        if (
            len(args) == 3
            and not any(a.keyword or a.star for a in args)
            and int_literal(args[0].value, 0)
            and is_name(args[1].value, tok)
            and _is_y(args[2].value, y)
            and y not in read_names(_method(call, "index_add_"))  # type: ignore[arg-type]
        ):
            return 1
    raise _Refuse


def _is_y(expr: cst.BaseExpression, y: str) -> bool:
    """``y`` or ``y`` through casts."""
    while True:
        if is_name(expr, y):
            return True
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _CASTS:
            if y in read_names(cst.Tuple([cst.Element(a.value) for a in expr.args])) if expr.args else False:
                return False
            expr = expr.func.value
            continue
        return False


def _token_uses(body: cst.BaseSuite, tok: str, where: cst.CSTNode, out: _Loop, ctx: FixContext) -> None:
    """``tok`` (now every token, in order) is read only as an index, by ``index_add_`` or as
    ``tok.numel()``: a count of the routed pairs (``len(tok)``) would change meaning."""
    for use in name_nodes(body, [tok]):
        parent = ctx.parent(use)
        if isinstance(parent, cst.Element) and where in set(ctx.ancestors(use)):
            continue  # the `pos, tok = ...` target
        if isinstance(parent, cst.Index):
            continue
        if isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            if _method(call, "index_add_") is not None:
                continue
        if isinstance(parent, cst.Attribute) and parent.attr.value == "numel":
            continue
        raise _Refuse
