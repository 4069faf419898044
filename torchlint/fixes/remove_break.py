"""Remove ``torch._dynamo.graph_break()`` statements (TL011).

Unsafe: the code on both sides then compiles into one graph, which is the point, but an
explicit break is sometimes left on purpose (bisecting a numerics problem, keeping a graph
small), so the removal needs review. Calls to ``@torch.compiler.disable`` functions, the
rule's other case, have no automatic fix. Comment lines above the statement stay.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import REMOVE, UNSAFE, FixContext, Fixer, Plan, register
from torchlint.rules.base import Rule

_BREAKS = ("torch._dynamo.graph_break", "torch._dynamo.skip_frame")


@register("TL011")
class RemoveGraphBreak(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if not isinstance(node, cst.Call) or rule.resolve(node.func) not in _BREAKS:
            return None
        stmt = ctx.statement_of(node)
        if stmt is None or not isinstance(stmt.body[0], cst.Expr):
            return None
        name = rule.resolve(node.func)
        return Plan(
            code=rule.code,
            node=node,
            edits={stmt: lambda updated: REMOVE},
            applicability=UNSAFE,
            description=f"Remove the `{name}()` call: the code around it compiles as one graph; "
            "check that the break was not kept on purpose.",
        )
