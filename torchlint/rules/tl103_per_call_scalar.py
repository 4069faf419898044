"""TL103 per-call-scalar: a compiled function's ``int`` parameter used in tensor arithmetic.
A performance warning, not a graph break: the second value recompiles, and under
``reduce-overhead`` every new value records a new CUDA graph (measured on an H200 with torch
2.11: three values, three recordings).

The definition, kept narrow on purpose: a parameter of a compiled *root* (a module's
``forward``, a ``@torch.compile`` function, a function passed to ``torch.compile``) that is
annotated ``int`` (``Optional[...]`` excluded), has no default value (a default marks
configuration, not per-call data), is never reassigned in the function, and appears as an
operand of an arithmetic operator whose other operand is a tensor (``x * step``). It is
reported once, at the parameter. ``float`` parameters are left alone: dynamo makes a float
dynamic after one recompile and CUDA graphs are then not recorded again per value.
"""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_NUMBER_ANNOTATIONS = {"int", "builtins.int"}
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def _number_params(fn: cst.FunctionDef) -> dict[str, cst.Param]:
    """``int``-annotated parameters without a default."""
    out: dict[str, cst.Param] = {}
    params = fn.params
    for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
        if p.default is not None or p.annotation is None:
            continue
        ann = p.annotation.annotation
        text = cst.Module([]).code_for_node(ann).strip()
        if text in _NUMBER_ANNOTATIONS:
            out[p.name.value] = p
    return out


class _Assigned(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._target(el.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)


class PerCallScalar(Rule):
    code = "TL103"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._params: dict[int, dict[str, cst.Param]] = {}

    def _candidates(self) -> dict[str, cst.Param]:
        region = self.ctx.region
        if region is None or not region.is_root:
            return {}
        key = id(region.node)
        if key not in self._params:
            params = _number_params(region.node)
            if params:
                assigned = _Assigned()
                region.node.body.visit(assigned)
                params = {n: p for n, p in params.items() if n not in assigned.names}
            self._params[key] = params
        return self._params[key]

    def _param(self, expr: cst.BaseExpression) -> cst.Param | None:
        if isinstance(expr, cst.Name):
            scope = self.ctx.scope
            # A nested function or comprehension binding the same name shadows the parameter.
            if scope is not None and scope.parent is not None and expr.value in scope.kinds:
                return None
            return self._candidates().get(expr.value)
        return None

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, _ARITHMETIC):
            return
        for number, other in ((node.left, node.right), (node.right, node.left)):
            param = self._param(number)
            if param is not None and param.annotation is not None and self.is_tensor(other):
                ann = cst.Module([]).code_for_node(param.annotation.annotation).strip()
                self.report(param, message=self.message.format(name=param.name.value, ann=ann))
