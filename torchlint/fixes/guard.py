"""Guard side-effect statements with ``if not torch.compiler.is_compiling():`` (TL004, TL009).

``print(...)``, ``warnings.warn(...)``, ``logger.info(...)``, ``torch.cuda.synchronize()`` and
other calls used as statements run only in eager mode once guarded; dynamo drops the block while tracing, so the
graph is no longer split there. Safe: eager runs them exactly as before (a compiled run no
longer prints or logs). Two kinds of statements make the fix unsafe because the compiled
model then computes something else: calls that change random state (``torch.manual_seed``,
``random.shuffle``), and assignments to attributes or items (``self.stats[k] = str(t)``),
which a compiled run no longer updates. A call whose value is kept (``t0 = time.time()``)
is not guarded: the name would be missing in compiled runs.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from torchlint.fixes.base import SAFE, UNSAFE, FixContext, Fixer, Plan, register, with_leading_lines
from torchlint.rules.base import Rule

# Calls whose effect is on state the model's results depend on.
_STATEFUL = ("torch.manual_seed", "torch.random.manual_seed", "torch.seed", "torch.cuda.manual_seed",
             "torch.cuda.manual_seed_all", "random.", "numpy.random.", "copy.deepcopy")


def guarded(stmt: cst.SimpleStatementLine, ctx: FixContext) -> cst.If:
    """``if not torch.compiler.is_compiling():`` around ``stmt``, which keeps its comment lines."""
    test = cst.UnaryOperation(operator=cst.Not(), expression=cst.Call(ctx.torch_expr("compiler.is_compiling")))
    inner = stmt.with_changes(leading_lines=())
    guard = with_leading_lines(cst.If(test=test, body=cst.IndentedBlock([inner])), stmt)
    ctx.new_guards[id(guard)] = guard
    return guard


def _the_statement(node: cst.CSTNode, ctx: FixContext) -> Optional[cst.SimpleStatementLine]:
    """The one-statement line that ``node`` is the whole of, or whose stored value holds it."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, cst.SimpleStatementLine):
            return anc if len(anc.body) == 1 else None
        if isinstance(anc, (cst.BaseCompoundStatement, cst.Lambda, cst.BaseComp, cst.SimpleStatementSuite)):
            return None
    return None


@register
class GuardSideEffect(Fixer):
    codes = ("TL004", "TL009")
    applicability = SAFE

    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Optional[Plan]:
        stmt = _the_statement(node, ctx)
        if stmt is None:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and small.value is node:
            qual = rule.resolve(node.func) if isinstance(node, cst.Call) else None
            if qual is not None and qual.startswith(_STATEFUL):
                applicability = UNSAFE
                why = (f"`{qual}` changes state the model's results depend on: guarded, a compiled run "
                       "no longer does it, so compiled and eager results can differ")
            else:
                applicability = SAFE
                why = "eager runs it as before; compiled runs skip it instead of splitting the graph"
        elif isinstance(small, (cst.Assign, cst.AugAssign)) and all(
            isinstance(t, (cst.Attribute, cst.Subscript))
            for t in ([t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target])
        ):
            applicability = UNSAFE
            why = ("eager runs it as before, but compiled runs no longer update the stored value, so code "
                   "that reads it sees the value from the last eager run")
        else:
            return None
        return Plan(
            code=rule.code, node=node, edits={stmt: lambda updated: guarded(updated, ctx)},
            applicability=applicability, needs_torch=True,
            description=f"Guard the statement with `if not torch.compiler.is_compiling():`; {why}.",
        )
