"""TL016 tensor-truth-test: a tensor's value tested for truth outside an ``if``/``while``.

TL005 flags the condition of an ``if``, a ``while`` or a ternary. Python also asks a tensor
for its truth in places that read like plain expressions: ``any(t)``/``all(t)`` (one truth
test per element), ``a or b`` / ``a and b`` / ``not a`` used as a value, ``t in [a, b]`` and
``[a, b].index(t)`` (``==`` then a truth test per item), the ``if`` of a comprehension, and
``torch.equal(a, b)`` (a Python bool computed from both tensors' values). Each is a
data-dependent read dynamo cannot put in a graph.
"""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.tensors import HOST_DATA, TENSOR
from torchlint.analysis.tree import walk
from torchlint.rules.base import Rule

_ANY_ALL = frozenset({"builtins.any", "builtins.all"})
_EQUAL = frozenset({"torch.equal"})
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


#: what a tensor says of itself without its data: a test of it is a Python value
_METADATA = frozenset(
    {"shape", "ndim", "dtype", "device", "size", "dim", "numel", "is_cuda", "requires_grad", "layout", "is_sparse"}
)


#: methods whose result is a Python value (their own rules flag the read): `t.item() > 0` is a bool
_TO_PYTHON = frozenset({"item", "tolist"})


def _root_name(expr: cst.BaseExpression, data: bool = False) -> str | None:
    """``t`` of ``t``, ``t > 0``, ``t.sum() > 0``, ``t[0]``, ``(t * 2).any()``. ``data``: only
    where the value reads ``t``'s data (not ``t is None``, ``t.shape[0] > 1``, ``t.dim() == 2``)."""
    while True:
        if isinstance(expr, cst.Call):
            expr = expr.func
        elif isinstance(expr, cst.Attribute):
            if data and expr.attr.value in _METADATA | _TO_PYTHON:
                return None
            expr = expr.value
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        elif isinstance(expr, cst.BinaryOperation):
            expr = expr.left
        elif isinstance(expr, cst.Comparison):
            if data and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in expr.comparisons):
                return None
            expr = expr.left
        elif isinstance(expr, cst.UnaryOperation):
            expr = expr.expression
        else:
            return expr.value if isinstance(expr, cst.Name) else None


class TensorTruthTest(Rule):
    code = "TL016"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: nodes inside an `if`/`while`/ternary test: TL005 judges those
        self.in_test: set[int] = set()

    # ------------------------------------------------------------------ helpers

    def _value(self, expr: cst.BaseExpression) -> bool:
        scope = self.ctx.scope
        return scope is not None and scope.is_tensor_value(expr)

    def _element_is_tensor(self, comp: cst.BaseExpression) -> bool:
        """A comprehension over a tensor (``v > 0 for v in x``, ``t.sum() > 0 for t in x.unbind(0)``)
        whose element reads the loop variable, or whose element is a tensor of the outer scope."""
        scope = self.ctx.scope
        if scope is None or not isinstance(comp, (cst.GeneratorExp, cst.ListComp)):
            return False
        if comp.for_in.inner_for_in is not None:
            return False
        if scope.iter_element_kind(comp.for_in.iter) == "tensor":
            target = comp.for_in.target
            return isinstance(target, cst.Name) and _root_name(comp.elt, data=True) == target.value
        if isinstance(comp.for_in.target, cst.Tuple) and scope.element_kind(comp) in (TENSOR, HOST_DATA):
            return True  # `x < y for x, y in zip(ts[:-1], ts[1:])`: read with the pairs unpacked
        return self._value(comp.elt)

    def _tested_items(self, arg: cst.BaseExpression) -> bool:
        """The argument of ``any``/``all`` whose items are tensors."""
        if self._value(arg) or (self.ctx.kind(arg) == "tensors"):
            return True
        if isinstance(arg, (cst.List, cst.Tuple)):
            return any(not isinstance(e, cst.StarredElement) and self._value(e.value) for e in arg.elements)
        return self._element_is_tensor(arg)

    def _mark_test(self, test: cst.BaseExpression) -> None:
        self.in_test.update(id(n) for n in walk(test))

    # ------------------------------------------------------------------ tests TL005 judges

    def visit_If(self, node: cst.If) -> None:
        self._mark_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._mark_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mark_test(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._mark_test(node.test)  # dynamo traces `assert t.all()` as a runtime assertion

    # ------------------------------------------------------------------ the forms

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if qual in _ANY_ALL and len(positional) == 1 and self._tested_items(positional[0].value):
            self.report(
                node,
                message=f"`{qual.split('.')[-1]}(...)` over tensors tests each item's truth on the host "
                "and splits the graph; reduce on the device with `.any()` / `.all()` and keep the "
                "result a tensor",
            )
        elif qual in _EQUAL:
            self.report(
                node,
                message="`torch.equal` returns a Python bool computed from both tensors' values, "
                "which splits the graph; compare on the device with "
                "`(a == b).all()` (or `torch.allclose` outside the compiled region) and keep the result a tensor",
            )
        elif (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "index"
            and len(positional) == 1
            and (
                isinstance(node.func.value, (cst.List, cst.Tuple))
                # a list of tensors bound earlier (dynamo's `.index` compares each item with `==`,
                # even the very object searched for, unlike its `in`)
                or self.ctx.kind(node.func.value) == "tensors"
            )
            and self._value(positional[0].value)
        ):
            self.report(
                node,
                message="`.index(t)` compares the tensor with each item and tests the result's "
                "truth on the host, which splits the graph; keep an index next to the tensors "
                "instead of searching for one",
            )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a or b` reads the truth of `a` (the last operand is only returned)
        if id(node) in self.in_test:
            return
        if self._value(node.left):
            self.report(
                node,
                message=f"`{'or' if isinstance(node.operator, cst.Or) else 'and'}` tests the truth of "
                "a tensor on the host and splits the graph; combine with `torch.logical_or` / "
                "`torch.logical_and` or `torch.where` and keep the result a tensor",
            )

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if id(node) in self.in_test or not isinstance(node.operator, cst.Not):
            return
        if self._value(node.expression):
            self.report(
                node,
                message="`not` on a tensor tests its truth on the host and splits the graph; use "
                "`~t` / `torch.logical_not(t)` and keep the result a tensor",
            )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        op = node.comparisons[0].operator
        right = node.comparisons[0].comparator
        # a container bound earlier (`seen = [x[0], x[1]]`; `x[2] in seen`): `in` tries identity
        # first, so only a tensor computed here (no name, never one of the items) surely reaches `==`
        listed = isinstance(right, (cst.List, cst.Tuple)) or (
            self.ctx.kind(right) == "tensors" and not isinstance(node.left, cst.Name)
        )
        if isinstance(op, (cst.In, cst.NotIn)) and listed and self._value(node.left):
            self.report(
                node,
                message="`t in [...]` compares the tensor with each item with `==` and tests the "
                "result's truth on the host, which splits the graph; compare on the device "
                "(`(torch.stack(items) == t).any()`) or keep Python values to search",
            )

    def visit_CompIf(self, node: cst.CompIf) -> None:
        if self._comp_if_reads_tensor(node):
            self.report(
                node.test,
                message="a comprehension's `if` on a tensor's value tests it on the host and "
                "splits the graph; select with a mask (`x[mask]`) or `torch.where`",
            )

    def _comp_if_reads_tensor(self, node: cst.CompIf) -> bool:
        # The comprehension's scope is current here (the engine binds the targets on entry).
        return self._value(node.test)
