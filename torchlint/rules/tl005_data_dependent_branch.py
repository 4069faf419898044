"""TL005 data-dependent-branch: ``if``/``while``/ternary on a tensor's value."""

from __future__ import annotations

import libcst as cst

from torchlint import matrix
from torchlint.analysis.tensors import narrowed_in
from torchlint.analysis.tree import walk
from torchlint.rules.base import Rule


class DataDependentBranch(Rule):
    code = "TL005"

    def _tensor_test(self, test: cst.BaseExpression) -> bool:
        # Only the operands that run count (`self.training and x.any()` reads no tensor in
        # eval mode). `if output_attentions:` / `if n > 0:` on a bare input parameter: a flag.
        scope = self.ctx.scope
        if scope is None:
            return False
        narrowed = narrowed_in(test, scope)
        operands = [op for op in self.ctx.index.operands(test) if id(op) not in narrowed]
        return any(scope.is_tensor_value(op) for op in operands) or any(self._traced_draw(op) for op in operands)

    def _traced_draw(self, expr: cst.BaseExpression) -> bool:
        """A `random` draw that the torch the pass reports for traces (``random.random()``
        from 2.14, see the matrix): dynamo holds the value symbolically, so a branch on it
        reads data, where an older torch broke at the call itself (TL009)."""
        version = matrix.active_version()
        traced = {c for c in matrix.traced_calls(version) if c.startswith("random.")} if version else set()
        return bool(traced) and any(isinstance(n, cst.Call) and self.resolve(n.func) in traced for n in walk(expr))

    def visit_If(self, node: cst.If) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)

    def visit_While(self, node: cst.While) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._tensor_test(node.test):
            self.report(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        # `assert t.all()` and `assert t.all(), "text"` are traced as runtime assertions; a
        # message computed at the assert (`.format(...)`, an f-string with values), or an
        # `or`/`and` that picks between tensors, makes dynamo read the value on the host
        if not self._tensor_test(node.test):
            return
        if isinstance(node.test, cst.UnaryOperation) and isinstance(node.test.operator, cst.Not):
            # `assert not t.any()`: Python's `not` asks for the tensor's truth on the host
            self.report(
                node.test,
                message="`assert not` on a tensor makes dynamo read its value on the host and split the graph; "
                "an `assert` of the tensor itself is traced as a runtime assertion",
                suggestion='Negate in torch: `assert (~t).all(), "text"` or `assert t.logical_not().all(), "text"`.',
            )
        elif isinstance(node.test, cst.BooleanOperation) or (node.msg is not None and not _constant_text(node.msg)):
            self.report(
                node.test,
                message="an `assert` on a tensor with a computed message (or an `or`/`and` of tensors) "
                "makes dynamo read the value on the host and split the graph; with a constant message "
                '(`assert cond.all(), "text"`) it is traced as a runtime assertion',
                suggestion="Give the assertion a plain string message and test one tensor: "
                '`assert (t0 <= t).all(), "t out of range"`; format the values outside the compiled region.',
            )


def _constant_text(expr: cst.BaseExpression) -> bool:
    """A string literal (concatenated, or an f-string with no values in it)."""
    if isinstance(expr, cst.SimpleString):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return _constant_text(expr.left) and _constant_text(expr.right)
    if isinstance(expr, cst.FormattedString):
        return not any(isinstance(p, cst.FormattedStringExpression) for p in expr.parts)
    return False
