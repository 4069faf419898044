"""TL002 tensor-to-python: ``float(t)``, ``int(t)``, ``bool(t)``, ``math.f(t)``, ``range(t)``."""
from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_BUILTINS = {"builtins.float", "builtins.int", "builtins.bool", "builtins.complex", "builtins.range"}
_SIZE_FROM_TENSOR = {"torch.arange", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
                     "torch.randn", "torch.rand", "torch.linspace"}


class TensorToPython(Rule):
    code = "TL002"
    name = "tensor-to-python"
    summary = "`float(t)`, `int(t)`, `bool(t)`, `math.*(t)`, `range(t)` on a tensor"
    message = (
        "converting a tensor to a Python number reads its value on the host and splits the graph; "
        "keep it a tensor (`torch.exp(t)` instead of `math.exp(t)`, `t > 0` as a mask)"
    )
    suggestion = (
        "Stay in tensor land: use the torch equivalent of the Python/math call, or pass sizes "
        "from shapes (`x.shape[0]`) rather than from tensor values."
    )
    gb_codes = ("GB0124", "GB0033", "GB0059")

    def _value(self, expr: cst.BaseExpression) -> bool:
        """A tensor used for its value; a bare input parameter (`range(n)`) is likely a number."""
        return self.ctx.scope is not None and self.ctx.scope.is_tensor_value(expr)

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        qual = self.resolve(node.func)
        if qual is None:
            return
        first = node.args[0].value
        if qual in _BUILTINS or (qual.startswith("math.") and qual.count(".") == 1):
            if self._value(first):
                self.report(node)
        elif qual in _SIZE_FROM_TENSOR and self._value(first):
            self.report(
                node,
                message=f"`{qual}` with a size taken from a tensor's value splits the graph; "
                "derive sizes from shapes (`x.shape[0]`), not from tensor data",
            )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.is_tensor(node.value):
            return
        for el in node.slice:
            if isinstance(el.slice, cst.Slice) and any(
                bound is not None and self._value(bound)
                for bound in (el.slice.lower, el.slice.upper, el.slice.step)
            ):
                self.report(
                    node,
                    message="slicing with a bound taken from a tensor's value reads it on the host and "
                    "splits the graph; slice with sizes from shapes, or mask instead of cutting",
                )
                return
