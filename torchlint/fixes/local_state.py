"""Module state written in ``forward`` -> a local value (TL007).

    self.pos_encoding = self.pos_encoding.to(device=device, dtype=x.dtype)
    pos = self.pos_encoding[position_ids]
    ->
    pos_encoding = self.pos_encoding.to(device=device, dtype=x.dtype)
    pos = pos_encoding[position_ids]

The converted tensor is kept in a local variable and the function's later reads of
``self.<name>`` read it; the module's attribute is no longer rebound on every call, so dynamo
has no module state to write and no graph split at the store. The function computes the same
values. Unsafe because the attribute itself now keeps its old device and dtype after a call:
code outside this function that relied on the call having converted it sees the original.

Taken only when the store is a statement of the function's own block (so the local is bound
before every later read), the function stores to ``self.<name>`` nowhere else and reads it in
no nested function or lambda, and no other method of the class reads or writes ``self.<name>``
besides ``__init__`` (another reader would be reading the state the store kept).
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import UNSAFE, Edits, FixContext, Plan, assigned_names, read_names, with_leading_lines
from torchlint.rules.base import Rule
from torchlint.rules.tl007_module_in_forward import stored_cast


def _self_attrs(scope: cst.CSTNode, name: str) -> list[cst.Attribute]:
    """Every ``self.<name>`` under ``scope``."""
    out: list[cst.Attribute] = []
    stack: list[cst.CSTNode] = [scope]
    while stack:
        cur = stack.pop()
        if (
            isinstance(cur, cst.Attribute)
            and isinstance(cur.value, cst.Name)
            and cur.value.value == "self"
            and cur.attr.value == name
        ):
            out.append(cur)
        stack.extend(cur.children)
    return out


def _free_name(fn: cst.FunctionDef, base: str) -> str:
    """``base`` (or ``base_1``, ...) not a variable of ``fn`` (attribute names may repeat it)."""
    taken = read_names(fn) | assigned_names(fn) | {p.name.value for p in fn.params.params}
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def local_state_plan(node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
    """The plan for the store ``self.x = self.x.to(...)`` whose target is ``node``, else None."""
    assign = ctx.parent(ctx.parent(node))
    if not isinstance(assign, cst.Assign) or assign.targets[0].target is not node:
        return None
    name = stored_cast(assign)
    line = ctx.parent(assign)
    fn = ctx.enclosing_function(assign)
    if name is None or fn is None or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    if not isinstance(fn.body, cst.IndentedBlock) or line not in fn.body.body:
        return None  # in a branch or a loop: the local would not be bound on every path
    cls = next((a for a in ctx.ancestors(fn) if isinstance(a, cst.ClassDef)), None)
    if cls is None or ctx.parent(ctx.parent(fn)) is not cls:
        return None
    for method in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
        if isinstance(method, cst.FunctionDef) and method is not fn and method.name.value != "__init__":
            if _self_attrs(method, name):
                return None  # another method reads or writes the state
    body = list(fn.body.body)
    at = body.index(line)
    uses = [u for s in body[at + 1 :] for u in _self_attrs(s, name)]
    for use in uses:
        holder = ctx.parent(use)
        if isinstance(holder, cst.AssignTarget) or (
            isinstance(holder, (cst.AugAssign, cst.Del)) and getattr(holder, "target", None) is use
        ):
            return None  # stored again
        if any(isinstance(a, (cst.Lambda, cst.FunctionDef)) and a is not fn for a in ctx.ancestors(use)):
            return None
    local = _free_name(fn, name.lstrip("_") or "state")

    def store(updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        stmt = updated.body[0]
        assert isinstance(stmt, cst.Assign)  # the store this plan was made for
        value = stmt.value
        new = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(local))], value)])
        return with_leading_lines(new, updated).with_changes(trailing_whitespace=updated.trailing_whitespace)

    edits: Edits = {line: store}
    for use in uses:
        edits[use] = lambda updated: cst.Name(local, lpar=updated.lpar, rpar=updated.rpar)
    return Plan(
        rule.code,
        node,
        edits,
        UNSAFE,
        description=(
            f"Keep the converted tensor in a local `{local}` instead of storing it to `self.{name}` on every "
            f"call, and read the local after it in this function: the same values, and no module state "
            f"written in the compiled region. Unsafe: `self.{name}` now keeps its old device and dtype after "
            "a call (code elsewhere that relied on the call converting it sees the original)."
        ),
    )
