"""``one_hot`` sized from the values, then cut to a fixed width -> a fixed size (TL008).

    F.one_hot(idx, max(idx.max() + 2, n))[..., :n]  ->  F.one_hot(idx.clamp(max=n), n + 1)[..., :n]

A "safe" one-hot: the number of classes grows with the largest index so that ``one_hot`` never
fails, and the columns past ``n`` are cut off, so an index ``>= n`` gives a row of zeros. The
rewrite clamps such an index to ``n`` and cuts that column off: the same values, dtype and shape
(the width is ``n`` both ways, since the original number of classes is at least ``n``), but the
size no longer depends on the data, so dynamo keeps the graph whole. The number of classes may be
a name bound once, in the same block, to that ``max(...)`` and read nowhere else: that statement
goes too (``max`` of a tensor would still read its value on the host).

Taken when the call is cut with ``[..., :n]`` and its number of classes is ``max(a, n)`` or
``max(n, a)`` with that same ``n`` (a name, an attribute or an integer). Unsafe only in what it
does not check: a negative index still fails in ``one_hot`` both ways, but a number of classes
that was larger than the largest index for another reason than ``max`` (no cut, a different
``n``) is declined.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import REMOVE, UNSAFE, Edits, FixContext, Plan, is_simple_ref
from torchlint.rules.base import Rule
from torchlint.rules.tl008_dynamic_output_shape import ONE_HOT, one_hot_classes

_code = cst.Module([]).code_for_node


def _cut_width(sub: cst.CSTNode | None) -> cst.BaseExpression | None:
    """``n`` of ``[..., :n]``."""
    if not (isinstance(sub, cst.Subscript) and len(sub.slice) == 2):
        return None
    first, second = (el.slice for el in sub.slice)
    if not (isinstance(first, cst.Index) and isinstance(first.value, cst.Ellipsis)):
        return None
    if not (isinstance(second, cst.Slice) and second.lower is None and second.step is None):
        return None
    return second.upper


def _max_other(expr: cst.BaseExpression, width: str, rule: Rule) -> bool:
    """``expr`` is ``max(a, width)`` or ``max(width, a)``."""
    if not (isinstance(expr, cst.Call) and rule.resolve(expr.func) == "builtins.max" and len(expr.args) == 2):
        return False
    if any(a.keyword is not None or a.star for a in expr.args):
        return False
    return width in (_code(expr.args[0].value), _code(expr.args[1].value))


def one_hot_plan(node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
    if not (isinstance(node, cst.Call) and rule.resolve(node.func) == ONE_HOT and node.args):
        return None
    sub = ctx.parent(node)
    width = _cut_width(sub)
    classes = one_hot_classes(node)
    if width is None or classes is None or not (is_simple_ref(width) or isinstance(width, cst.Integer)):
        return None
    text = _code(width)
    edits: Edits = {}
    if isinstance(classes, cst.Name):
        fn = ctx.enclosing_function(node)
        binds = [] if fn is None else _bindings(fn, classes.value)
        if len(binds) != 1:
            return None
        line, value, uses = binds[0]
        if uses != 1 or not _max_other(value, text, rule) or ctx.block_of(line) is None:
            return None
        edits[line] = lambda updated: REMOVE
    elif not _max_other(classes, text, rule):
        return None
    index = node.args[0]
    if index.keyword is not None or index.star:
        return None

    def edit(updated: cst.Call) -> cst.Call:
        first = updated.args[0]
        clamped = cst.Call(
            cst.Attribute(first.value, cst.Name("clamp")),
            [
                cst.Arg(
                    cst.parse_expression(text),
                    keyword=cst.Name("max"),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                    ),
                )
            ],
        )
        size = cst.parse_expression(f"{text} + 1")
        args = [first.with_changes(value=clamped)]
        for arg in updated.args[1:]:
            if arg.keyword is None or arg.keyword.value == "num_classes":
                args.append(arg.with_changes(value=size))
            else:
                args.append(arg)
        return updated.with_changes(args=args)

    edits[node] = edit
    return Plan(
        rule.code,
        node,
        edits,
        UNSAFE,
        description=(
            f"Clamp the indices to `{text}` and make `{text} + 1` classes: the columns past `{text}` are cut off "
            "anyway, so values, dtype and shape are the same, but the size no longer depends on the data. "
            "Assumes the number of classes only had to cover the largest index (it was `max(..., "
            f"{text})`)."
        ),
    )


def _bindings(fn: cst.FunctionDef, name: str) -> list[tuple[cst.SimpleStatementLine, cst.BaseExpression, int]]:
    """Each ``name = value`` line of ``fn``, with the value and how often ``name`` is read in ``fn``."""
    from torchlint.fixes.base import name_nodes

    nodes = name_nodes(fn.body, [name])
    out = []
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.SimpleStatementLine):
            for small in cur.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    ok = len(cur.body) == 1 and len(small.targets) == 1
                    out.append((cur, small.value if ok else cst.Name("None"), len(nodes) - len(small.targets)))
        else:
            stack.extend(cur.children)
    return out
