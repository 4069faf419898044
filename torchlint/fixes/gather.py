"""Replace a Python loop that picks one element per row with advanced indexing (TL006).

    torch.stack([x[i, idx[i]] for i in range(n)])
    ->  x[torch.arange(n, device=x.device), idx[:n]]

and the loop spelling

    out = []
    for i in range(n):
        out.append(x[i, idx[i]])
    y = torch.stack(out)
    ->  y = x[torch.arange(n, device=x.device), idx[:n]]

Each index position holds the loop variable ``i`` or a per-row index ``t[i]``; ``x[i][idx[i]]``
counts the same. The result has the same shape, values and autograd graph: row ``i`` of the
indexed tensor is ``x[i, idx[i]]``, and both forms stack rows along a new first dimension.
Unsafe because it assumes each ``t[i]`` is one integer (``t`` is 1-D, as in "one element
per row"); a 2-D ``t`` would broadcast differently.
"""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import dotted
from torchlint.fixes.base import (
    REMOVE,
    UNSAFE,
    Edits,
    FixContext,
    Fixer,
    Plan,
    is_name,
    is_simple_ref,
    read_names,
    register,
    with_leading_lines,
)
from torchlint.rules.base import Rule

_RANGE = "builtins.range"
_STACK = "torch.stack"


def _index_values(sub: cst.Subscript) -> list[cst.BaseExpression] | None:
    """The index expressions of ``x[a, b]`` or ``x[a][b]`` (plain indices only), base last."""
    out: list[cst.BaseExpression] = []
    while True:
        values: list[cst.BaseExpression] = []
        for el in sub.slice:
            if not isinstance(el.slice, cst.Index) or el.slice.star is not None:
                return None
            values.append(el.slice.value)
        out[:0] = values
        if isinstance(sub.value, cst.Subscript):
            sub = sub.value
            continue
        out.append(sub.value)
        return out


def vectorise(sub: cst.Subscript, var: str, count: cst.BaseExpression, ctx: FixContext) -> cst.BaseExpression | None:
    """``x[torch.arange(n, device=x.device), t[:n]]`` for the row pick ``x[i, t[i]]``."""
    parts = _index_values(sub)
    if parts is None:
        return None
    base, indices = parts[-1], parts[:-1]
    if not is_simple_ref(base) or var in (dotted(base) or "").split("."):
        return None
    arange = cst.Call(
        ctx.torch_expr("arange"),
        [
            cst.Arg(count),
            cst.Arg(
                cst.Attribute(base, cst.Name("device")),
                keyword=cst.Name("device"),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            ),
        ],
    )
    new: list[cst.BaseExpression] = []
    per_row = 0
    for idx in indices:
        if is_name(idx, var):
            new.append(arange)
        elif (
            isinstance(idx, cst.Subscript)
            and is_simple_ref(idx.value)
            and len(idx.slice) == 1
            and isinstance(idx.slice[0].slice, cst.Index)
            and is_name(idx.slice[0].slice.value, var)
            and var not in (dotted(idx.value) or "").split(".")
        ):
            whole = (dotted(idx.value) or "") == _length_of(count)  # range(len(t)): t[:n] is t
            new.append(
                idx.value
                if whole
                else cst.Subscript(idx.value, [cst.SubscriptElement(cst.Slice(lower=None, upper=count))])
            )
            per_row += 1
        else:
            return None
    if not per_row:
        return None
    return cst.Subscript(base, [cst.SubscriptElement(cst.Index(e)) for e in new])


def _length_of(count: cst.BaseExpression) -> str | None:
    """``t`` when ``count`` is ``len(t)``, ``t.shape[0]`` or ``t.size(0)``."""
    if (
        isinstance(count, cst.Call)
        and isinstance(count.func, cst.Name)
        and count.func.value == "len"
        and len(count.args) == 1
    ):
        return dotted(count.args[0].value)
    if (
        isinstance(count, cst.Subscript)
        and isinstance(count.value, cst.Attribute)
        and count.value.attr.value == "shape"
        and len(count.slice) == 1
        and isinstance(count.slice[0].slice, cst.Index)
        and isinstance(count.slice[0].slice.value, cst.Integer)
        and count.slice[0].slice.value.value == "0"
    ):
        return dotted(count.value.value)
    if (
        isinstance(count, cst.Call)
        and isinstance(count.func, cst.Attribute)
        and count.func.attr.value == "size"
        and len(count.args) == 1
        and isinstance(count.args[0].value, cst.Integer)
        and count.args[0].value.value == "0"
    ):
        return dotted(count.func.value)
    return None


def range_count(rule: Rule, it: cst.BaseExpression) -> cst.BaseExpression | None:
    """``n`` of ``range(n)`` / ``range(0, n)``, when ``n`` is cheap to evaluate twice."""
    if not isinstance(it, cst.Call) or rule.resolve(it.func) != _RANGE or any(a.keyword or a.star for a in it.args):
        return None
    args = [a.value for a in it.args]
    if len(args) == 2 and isinstance(args[0], cst.Integer) and args[0].evaluated_value == 0:
        args = args[1:]
    if len(args) != 1:
        return None
    n = args[0]
    if isinstance(n, cst.Integer) or is_simple_ref(n):
        return n
    if isinstance(n, cst.Subscript) and is_simple_ref(n.value):  # x.shape[0]
        return n
    if isinstance(n, cst.Call) and (
        rule.resolve(n.func) == "builtins.len"
        or (isinstance(n.func, cst.Attribute) and n.func.attr.value == "size" and is_simple_ref(n.func.value))
    ):
        return n
    return None


def _stack_of(call: cst.CSTNode, rule: Rule) -> cst.BaseExpression | None:
    """The one list argument of ``torch.stack(arg)`` / ``torch.stack(arg, dim=0)``."""
    if not isinstance(call, cst.Call) or rule.resolve(call.func) != _STACK or not call.args:
        return None
    first, extra = call.args[0], call.args[1:]
    if first.keyword is not None or first.star:
        return None
    for arg in extra:
        dim0 = isinstance(arg.value, cst.Integer) and arg.value.evaluated_value == 0
        if not dim0 or (arg.keyword is not None and arg.keyword.value != "dim"):
            return None
    return first.value


_DESCRIPTION = (
    "Replace the per-row Python loop with one advanced-indexing op "
    "(`x[torch.arange(n, device=x.device), idx[:n]]`): same values, shape and gradients "
    "when each per-row index is a single integer (a 1-D index tensor)."
)


@register("TL006")
class VectorisedRowPick(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if not isinstance(node, cst.Subscript):
            return None
        owner = ctx.parent(node)
        if isinstance(owner, (cst.ListComp, cst.GeneratorExp)) and owner.elt is node:
            return self._comprehension(owner, node, rule, ctx)
        if isinstance(owner, cst.Arg):
            return self._loop(owner, node, rule, ctx)
        return None

    def _comprehension(self, comp, node, rule: Rule, ctx: FixContext) -> Plan | None:
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous or not isinstance(loop.target, cst.Name):
            return None
        arg = ctx.parent(comp)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if call is None or _stack_of(call, rule) is not comp:
            return None
        count = range_count(rule, loop.iter)
        new = vectorise(node, loop.target.value, count, ctx) if count is not None else None
        if new is None:
            return None
        return Plan(
            rule.code,
            node,
            {call: lambda updated: new.with_changes(lpar=updated.lpar, rpar=updated.rpar)},
            UNSAFE,
            _DESCRIPTION,
            needs_torch=True,
        )

    def _loop(self, arg: cst.Arg, node, rule: Rule, ctx: FixContext) -> Plan | None:
        """``out = []`` / ``for i in range(n): out.append(x[i, idx[i]])`` / ``torch.stack(out)``."""
        append = ctx.parent(arg)
        if not (
            isinstance(append, cst.Call)
            and len(append.args) == 1
            and isinstance(append.func, cst.Attribute)
            and append.func.attr.value == "append"
            and isinstance(append.func.value, cst.Name)
        ):
            return None
        acc = append.func.value.value
        line = ctx.statement_of(append)
        if line is None or not isinstance(line.body[0], cst.Expr):
            return None
        block = ctx.parent(line)
        loop = ctx.parent(block) if isinstance(block, cst.IndentedBlock) and len(block.body) == 1 else None
        if not (
            isinstance(loop, cst.For)
            and loop.orelse is None
            and loop.asynchronous is None
            and isinstance(loop.target, cst.Name)
        ):
            return None
        count = range_count(rule, loop.iter)
        new = vectorise(node, loop.target.value, count, ctx) if count is not None else None
        found = init_and_use(loop, acc, ctx, rule) if new is not None else None
        block_found = ctx.block_of(loop)  # not None: init_and_use found the loop in its block
        if found is None or new is None or block_found is None:
            return None
        init, use, use_line = found
        siblings, at = block_found
        if any(loop.target.value in read_names(s) for s in siblings[at + 1 :]):
            return None  # the loop variable is read after the loop
        if at + 1 < len(siblings) and siblings[at + 1] is use_line:
            # `y = torch.stack(out)` right after the loop: index there, drop the loop.
            edits: Edits = {
                init: lambda updated: REMOVE,
                loop: lambda updated: REMOVE,
                use: lambda updated: new.with_changes(lpar=updated.lpar, rpar=updated.rpar),
            }
        else:
            assign = with_leading_lines(
                cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(acc))], new)]), loop
            )
            edits = {
                init: lambda updated: REMOVE,
                loop: lambda updated: assign,
                use: lambda updated: cst.Name(acc, lpar=updated.lpar, rpar=updated.rpar),
            }
        return Plan(rule.code, node, edits, UNSAFE, _DESCRIPTION, needs_torch=True)


def init_and_use(
    loop: cst.For, acc: str, ctx: FixContext, rule: Rule
) -> tuple[cst.SimpleStatementLine, cst.Call, cst.CSTNode] | None:
    """``out = []`` just before the loop, and the one later use, ``torch.stack(out)``."""
    found = ctx.block_of(loop)
    if found is None:
        return None
    siblings, at = found
    if at == 0:
        return None
    init = siblings[at - 1]
    if not (
        isinstance(init, cst.SimpleStatementLine)
        and len(init.body) == 1
        and isinstance(init.body[0], cst.Assign)
        and len(init.body[0].targets) == 1
        and is_name(init.body[0].targets[0].target, acc)
        and isinstance(init.body[0].value, cst.List)
        and not init.body[0].value.elements
    ):
        return None
    fn = ctx.enclosing_function(loop)
    if fn is None:
        return None
    appended = _appended_to(loop)
    uses = [n for n in _names(fn, acc) if n is not init.body[0].targets[0].target and n is not appended]
    if len(uses) != 1:
        return None
    arg = ctx.parent(uses[0])
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or _stack_of(call, rule) is not uses[0]:
        return None
    # The use must come after the loop, in the same block or below it.
    use_line = next((a for a in ctx.ancestors(call) if a in siblings), None)
    if use_line is None or siblings.index(use_line) <= at:
        return None
    return init, call, use_line


def _appended_to(loop: cst.For) -> cst.BaseExpression | None:
    """``out`` of ``out.append(...)``, the loop's one statement (both callers checked its form)."""
    line = loop.body.body[0] if loop.body.body else None
    small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and line.body else None
    call = small.value if isinstance(small, cst.Expr) else None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        return call.func.value
    return None


def _names(node: cst.CSTNode, value: str) -> list[cst.Name]:
    out: list[cst.Name] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Name) and cur.value == value:
            out.append(cur)
        elif isinstance(cur, cst.Attribute):
            stack.append(cur.value)
        else:
            stack.extend(cur.children)
    return out
