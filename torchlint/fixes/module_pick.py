"""A submodule chosen by a tensor's arg-max, read to Python -> every submodule run, the output picked (TL001).

    best = scores.argmax().item()           ->    y = torch.stack([m(x) for m in self.experts]).index_select(
    y = self.experts[best](x)                         0, scores.argmax().view(1))[0]

Also ``k = max(range(len(self.experts)), key=lambda i: scores[i])`` (``min`` likewise), with
``scores[:len(self.experts)].argmax()`` as the choice (the first maximal index, as ``max``
returns; a ``nan`` score is the maximum for ``argmax``, while ``max`` skipped it).

The choice stays a tensor: each submodule of the ``nn.ModuleList`` runs on the same inputs
and the output of the one ``argmax`` names is taken (``argmax``/``argmin`` return the first
extreme index, the one ``.item()`` gave). Same values and the same gradients for the chosen
submodule. Taken when the index is a name bound once to ``t.argmax().item()`` (or ``argmin``)
and read once, as ``self.<list>[name](args)`` with ``self.<list> = nn.ModuleList(...)`` built
in ``__init__`` and the arguments plain names (each submodule reads the same values).

Unsafe: every submodule runs (time; state they update, BatchNorm's running statistics in
training, changes), the outputs must have one shape to be stacked, and the submodules not
chosen now get zero gradients instead of none (an optimizer's weight decay then moves them).

Used by the ``.item()`` fixer (:mod:`torchlint.fixes.drop_item`), which owns TL001, and the
``max(..., key=...)`` form by TL015's fixer (:mod:`torchlint.fixes.sort_keys`).
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import REMOVE, UNSAFE, FixContext, Plan, assigned_names, is_name, read_names
from torchlint.rules.base import Rule

_PICKS = ("argmax", "argmin")


def _module_list_attrs(rule: Rule) -> set:
    """``X`` of each ``self.X = nn.ModuleList(...)`` at the top level of the class's ``__init__``."""
    region = rule.ctx.region
    owner = region.owner if region is not None else None
    init = owner.methods.get("__init__") if owner is not None else None
    out: set = set()
    if init is None:
        return out
    for stmt in init.body.body:
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Attribute)
                and is_name(small.targets[0].target.value, "self")
                and isinstance(small.value, cst.Call)
                and rule.resolve(small.value.func) == "torch.nn.ModuleList"
            ):
                out.add(small.targets[0].target.attr.value)
    return out


def module_pick_plan(node: cst.Call, rule: Rule, ctx: FixContext) -> Plan | None:
    """The plan for ``k = t.argmax().item()`` ... ``self.mods[k](x)``, else None."""
    if not isinstance(node.func, cst.Attribute):
        return None
    pick = node.func.value
    if not (
        isinstance(pick, cst.Call)
        and isinstance(pick.func, cst.Attribute)
        and pick.func.attr.value in _PICKS
        and not pick.args
        and rule.is_tensor(pick.func.value)
    ):
        return None
    return _pick_plan(node, pick, rule, ctx, "")


def keyed_pick_plan(node: cst.Call, rule: Rule, ctx: FixContext) -> Plan | None:
    """The plan for ``k = max(range(len(self.mods)), key=lambda i: scores[i])`` ... ``self.mods[k](x)``:
    the same, with ``scores[:len(self.mods)].argmax()`` (``min``: ``argmin``)."""
    qual = rule.resolve(node.func)
    if qual not in ("builtins.max", "builtins.min") or len(node.args) != 2:
        return None
    it, key = node.args
    if it.keyword is not None or it.star or key.keyword is None or key.keyword.value != "key":
        return None
    lam = key.value
    if not (
        isinstance(lam, cst.Lambda)
        and len(lam.params.params) == 1
        and not lam.params.posonly_params
        and not isinstance(lam.params.star_arg, (cst.Param, cst.ParamStar))
        and not lam.params.kwonly_params
        and lam.params.star_kwarg is None
    ):
        return None
    var = lam.params.params[0].name.value
    body = lam.body
    if not (
        isinstance(body, cst.Subscript)
        and len(body.slice) == 1
        and isinstance(body.slice[0].slice, cst.Index)
        and is_name(body.slice[0].slice.value, var)
        and isinstance(body.value, (cst.Name, cst.Attribute))
        and var not in read_names(body.value)
        and rule.is_tensor(body.value)
    ):
        return None
    rng = it.value
    if not (
        isinstance(rng, cst.Call)
        and rule.resolve(rng.func) == "builtins.range"
        and len(rng.args) == 1
        and not rng.args[0].keyword
        and not rng.args[0].star
    ):
        return None
    n = rng.args[0].value
    if not (isinstance(n, cst.Call) and rule.resolve(n.func) == "builtins.len" and len(n.args) == 1):
        return None
    modules = n.args[0].value
    if not (isinstance(modules, cst.Attribute) and is_name(modules.value, "self")):
        return None
    method = "argmax" if qual == "builtins.max" else "argmin"
    pick = cst.Call(
        cst.Attribute(
            cst.Subscript(body.value, [cst.SubscriptElement(cst.Slice(lower=None, upper=n))]), cst.Name(method)
        )
    )
    return _pick_plan(node, pick, rule, ctx, modules.attr.value)


def _pick_plan(node: cst.Call, pick: cst.Call, rule: Rule, ctx: FixContext, only: str) -> Plan | None:
    bound = ctx.bound_once(node)
    if bound is None or not isinstance(pick.func, cst.Attribute):  # the pick is `<scores>.argmax()`
        return None
    picked = pick.func
    line, fn, siblings, at, uses = bound.line, bound.function, bound.siblings, bound.at, bound.uses
    if len(uses) != 1:
        return None
    index = ctx.parent(uses[0])
    sub = ctx.parent(ctx.parent(index)) if isinstance(index, cst.Index) else None
    call = ctx.parent(sub) if isinstance(sub, cst.Subscript) else None
    if not (
        isinstance(sub, cst.Subscript)
        and len(sub.slice) == 1
        and isinstance(call, cst.Call)
        and call.func is sub
        and isinstance(sub.value, cst.Attribute)
        and is_name(sub.value.value, "self")
        and sub.value.attr.value in _module_list_attrs(rule)
        and (not only or sub.value.attr.value == only)
    ):
        return None
    if any(a.star or a.keyword is not None or not isinstance(a.value, cst.Name) for a in call.args):
        return None  # each submodule must read the same values: plain names only
    use_line = next((a for a in ctx.ancestors(call) if a in siblings), None)
    score = picked.value
    if use_line is None or siblings.index(use_line) <= at:
        return None
    between = siblings[at + 1 : siblings.index(use_line)]
    if any(read_names(score) & (read_names(s) | assigned_names(s)) for s in between):
        return None  # the scores may change before the pick
    m = ctx.fresh_name(fn, "module")
    stacked = cst.parse_expression(
        f"{ctx.torch}.stack([{m}({', '.join(cst.Module([]).code_for_node(a) for a in call.args)}) "
        f"for {m} in self.{sub.value.attr.value}])"
    )

    # `[pick.view(1)][0]`: a 0-d tensor index would be read to Python again; a 1-D one is a gather
    chosen = cst.Call(
        cst.Attribute(stacked, cst.Name("index_select")),
        [
            cst.Arg(cst.Integer("0")),
            cst.Arg(cst.Call(cst.Attribute(pick, cst.Name("view")), [cst.Arg(cst.Integer("1"))])),
        ],
    )

    def edit(updated: cst.Call) -> cst.BaseExpression:
        return cst.Subscript(
            chosen, [cst.SubscriptElement(cst.Index(cst.Integer("0")))], lpar=updated.lpar, rpar=updated.rpar
        )

    return Plan(
        rule.code,
        node,
        {line: lambda updated: REMOVE, call: edit},
        UNSAFE,
        needs_torch=True,
        description=(
            f"Run every submodule of `self.{sub.value.attr.value}` and take the output `{picked.attr.value}` names "
            "(`torch.stack([...]).index_select(0, t.argmax().view(1))[0]`) instead of reading the index to Python: "
            "the same values and the "
            "same gradients for the chosen one, but every submodule runs (time, and state they update), their "
            "outputs must have one shape, and the others get zero gradients instead of none."
        ),
    )
