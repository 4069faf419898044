"""TL002 tensor-to-python: ``float(t)``, ``int(t)``, ``bool(t)``, ``math.f(t)``, ``range(t)``.

Also the values dynamo holds as tensors although the program sees Python numbers: numpy
results (``float(np.mean(a))``) and ``random.randint`` draws, when they become a number, a
size or a slice bound.
"""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.tensors import HOST_DATA
from torchlint.rules.base import Rule

_BUILTINS = {"builtins.float", "builtins.int", "builtins.bool", "builtins.complex", "builtins.range"}
_SIZE_FROM_TENSOR = {
    "torch.arange",
    "torch.zeros",
    "torch.ones",
    "torch.empty",
    "torch.full",
    "torch.randn",
    "torch.rand",
    "torch.linspace",
}
# Runtime assertions on a tensor condition: dynamo reads the condition on the host.
_TENSOR_CHECKS = {"torch._check_tensor_all", "torch._check_tensor_all_with"}
# Tensor methods whose arguments are sizes or offsets.
_SIZE_METHODS = {"narrow", "view", "reshape", "expand", "repeat", "new_zeros", "new_ones", "new_empty"}


class TensorToPython(Rule):
    code = "TL002"

    _HOST_MESSAGE = (
        "dynamo holds this numpy result or `random` draw as a tensor, so turning it into a Python "
        "number, a size or a slice bound reads it on the host and splits the graph; compute it "
        "with torch ops, or draw and convert it outside the compiled region and pass it in"
    )

    def _value(self, expr: cst.BaseExpression) -> bool:
        """A tensor used for its value; a bare input parameter (`range(n)`) is likely a number."""
        return self.ctx.scope is not None and self.ctx.scope.is_tensor_value(expr)

    def _message(self, expr: cst.BaseExpression, default: str) -> str:
        return self._HOST_MESSAGE if self.ctx.kind(expr) == HOST_DATA else default

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        qual = self.resolve(node.func)
        first = node.args[0].value
        if qual is None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _SIZE_METHODS and self.is_tensor(func.value):
                for arg in node.args:
                    if arg.keyword is None and not arg.star and self.ctx.kind(arg.value) == HOST_DATA:
                        self.report(node, message=self._HOST_MESSAGE)
                        return
            return
        if qual in _TENSOR_CHECKS:
            self.report(
                node,
                message=f"`{qual}` reads its tensor condition on the host and splits the "
                "graph; check it outside the compiled region, or drop the check in compiled code",
            )
        elif qual in _BUILTINS or (qual.startswith("math.") and qual.count(".") == 1):
            if self._value(first):
                self.report(node, message=self._message(first, self.message))
        elif qual == "builtins.slice":
            hit = next((a.value for a in node.args if a.keyword is None and not a.star and self._value(a.value)), None)
            if hit is not None:
                self.report(
                    node,
                    message=self._message(
                        hit,
                        "`slice()` with a bound taken from a tensor's value reads it on the host and "
                        "splits the graph; take the bounds from shapes or Python ints",
                    ),
                )
        elif qual in _SIZE_FROM_TENSOR and self._value(first):
            self.report(
                node,
                message=self._message(
                    first,
                    f"`{qual}` with a size taken from a tensor's value splits the "
                    "graph; derive sizes from shapes (`x.shape[0]`), not from tensor data",
                ),
            )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.is_tensor(node.value):
            return
        for el in node.slice:
            if isinstance(el.slice, cst.Slice):
                bounds = [b for b in (el.slice.lower, el.slice.upper, el.slice.step) if b is not None]
                hit = next((b for b in bounds if self._value(b)), None)
                if hit is not None:
                    self.report(
                        node,
                        message=self._message(
                            hit,
                            "slicing with a bound taken from a tensor's value reads it "
                            "on the host and splits the graph; slice with sizes from "
                            "shapes, or mask instead of cutting",
                        ),
                    )
                    return
