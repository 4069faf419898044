"""TL005 data-dependent-branch: ``if``/``while``/ternary on a tensor's value."""
from __future__ import annotations

import libcst as cst

from torchlint.analysis.tensors import register_functions
from torchlint.rules.base import Rule


class DataDependentBranch(Rule):
    code = "TL005"
    name = "data-dependent-branch"
    summary = "`if`/`while`/ternary on a tensor's value"
    message = (
        "branching on a tensor's value makes dynamo read it on the host and split the graph; "
        "compute both sides and pick with `torch.where(cond, a, b)` (or `torch.cond`)"
    )
    suggestion = (
        "Compute both branches and select with `torch.where(cond, a, b)`; for branches with "
        "different computations use `torch.cond(pred, true_fn, false_fn, operands)`."
    )
    gb_codes = ("GB0170", "GB0035", "GB0033", "GB0124")
    fix_applicability = "unsafe"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        register_functions(ctx.imports, ctx.index.functions)

    def _tensor_test(self, test: cst.BaseExpression) -> bool:
        # Only the operands that run count (`self.training and x.any()` reads no tensor in
        # eval mode). `if output_attentions:` / `if n > 0:` on a bare input parameter: a flag.
        scope = self.ctx.scope
        return scope is not None and any(scope.is_tensor_value(op) for op in self.ctx.index.operands(test))

    def visit_If(self, node: cst.If) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)

    def visit_While(self, node: cst.While) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)
