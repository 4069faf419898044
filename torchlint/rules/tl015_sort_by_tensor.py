"""TL015 sort-by-tensor: ``sorted``/``min``/``max``/``list.sort`` that compare tensor values."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.tensors import TENSOR_DICT
from torchlint.rules.base import Rule

# Tensor methods that reduce to a value a Python comparison would read.
_REDUCTIONS = frozenset(
    {
        "sum",
        "mean",
        "norm",
        "max",
        "min",
        "amax",
        "amin",
        "item",
        "prod",
        "std",
        "var",
        "count_nonzero",
        "numel_nonzero",
        "abs",
    }
)
_TENSOR_LISTS = frozenset({"builtins.list", "builtins.tuple"})
# A dict's views whose items hold its values: `(key, tensor)` pairs or the tensors themselves.
_VALUE_VIEWS = frozenset({"items", "values"})


def _name(expr: cst.BaseExpression):
    return expr.value if isinstance(expr, cst.Name) else None


def _root_name(expr: cst.BaseExpression):
    """``row`` of ``row``, ``row.sum()``, ``row.abs().max()``, ``row * 2``, ``row[0]``."""
    while True:
        if isinstance(expr, cst.Call):
            expr = expr.func
        elif isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        elif isinstance(expr, cst.BinaryOperation):
            expr = expr.left
        else:
            return _name(expr)


class SortByTensor(Rule):
    code = "TL015"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.lists: dict[tuple, bool] = {}

    def _key(self, name: str) -> tuple:
        return (id(self.ctx.region), name)

    def _tensor_items(self, expr: cst.BaseExpression) -> bool:
        """An iterable whose items are tensors or hold one: a tensor, `x.unbind()`, `[a, b]`,
        `list(x.split(2))`, `d.items()` / `d.values()` of a dict of tensors, `zip(names, ts)`."""
        if self.ctx.kind(expr) in ("tensor", "tensors"):
            return True
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in _VALUE_VIEWS
            and not expr.args
        ):
            # the pairs compare keys first, but dynamo orders only constants: a tuple holding a
            # tensor is refused even when its keys differ
            return self.ctx.kind(expr.func.value) == TENSOR_DICT
        if isinstance(expr, cst.Call) and self.resolve(expr.func) == "builtins.zip":
            return any(a.star == "" and self._tensor_items(a.value) for a in expr.args)
        if isinstance(expr, (cst.List, cst.Tuple)):
            return bool(expr.elements) and all(
                not isinstance(e, cst.StarredElement) and self.is_tensor(e.value) for e in expr.elements
            )
        if isinstance(expr, cst.Call) and self.resolve(expr.func) in _TENSOR_LISTS and expr.args:
            return self._tensor_items(expr.args[0].value)
        if isinstance(expr, cst.Name):
            return self.lists.get(self._key(expr.value), False)
        if isinstance(expr, cst.ListComp) and expr.for_in.inner_for_in is None:
            # [row.sum() for row in x] / [e(x) for e in self.experts]
            scope = self.ctx.scope
            element = scope.iter_element_kind(expr.for_in.iter) if scope is not None else None
            target = expr.for_in.target
            if element == "module":
                return isinstance(expr.elt, cst.Call) and _root_name(expr.elt.func) == _name(target)
            return element == "tensor" and _root_name(expr.elt) == _name(target) is not None
        return False

    def _tensor_key(self, call: cst.Call) -> bool:
        """``key=lambda t: t.sum()`` and the like: the key reads a tensor value."""
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "key" and not isinstance(arg.value, cst.Lambda):
                return (self.resolve(arg.value) or "").startswith("torch.")  # key=torch.norm
            if arg.keyword is not None and arg.keyword.value == "key" and isinstance(arg.value, cst.Lambda):
                lam = arg.value
                params = {p.name.value for p in lam.params.params}
                body = lam.body
                while isinstance(body, cst.UnaryOperation):
                    body = body.expression
                if isinstance(body, cst.Call) and isinstance(body.func, cst.Attribute):
                    base = body.func.value
                    while isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute):
                        base = base.func.value  # t.abs().sum()
                    if isinstance(base, cst.Subscript):
                        base = base.value  # kv[1].sum()
                    if isinstance(base, cst.Name) and base.value in params and body.func.attr.value in _REDUCTIONS:
                        return True
                if self.is_tensor(body):
                    return True
                if isinstance(body, cst.Subscript) and self._tensor_items(body.value):
                    return True  # key=lambda i: scores[i], scores a list of tensors
        return False

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.lists[self._key(target.target.value)] = self._tensor_items(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual in ("builtins.sorted", "builtins.min", "builtins.max") and node.args:
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if not positional:
                return
            if self._tensor_key(node):
                self.report(node)
            elif (
                qual == "builtins.sorted"
                and not any(a.keyword is not None and a.keyword.value == "key" for a in node.args)
                and self._tensor_items(positional[0].value)
            ):  # with a key, the keys are compared, not the items (`key=lambda t: t.shape[0]`)
                items = positional[0].value
                if (
                    isinstance(items, cst.Call)
                    and isinstance(items.func, cst.Attribute)
                    and items.func.attr.value == "items"
                ):
                    self.report(
                        node,
                        suggestion="Order the keys and look the values up: `for k in sorted(d): v = d[k]` "
                        "(or pass `key=lambda kv: kv[0]`); dynamo orders string keys.",
                    )
                else:
                    self.report(node)
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "sort" and qual is None:
            receiver = node.func.value
            if not self.is_tensor(receiver) and self._tensor_key(node):
                self.report(node)
