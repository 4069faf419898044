"""TL006 python-indexing-loop: a Python loop that picks tensor elements one at a time."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import target_names
from torchlint.analysis.tree import walk
from torchlint.rules.base import Rule

_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


class PythonIndexingLoop(Rule):
    code = "TL006"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.loop_vars: list[set[str]] = []
        self.matrices: dict[tuple[int, str], bool] = {}

    # Loop variables of the enclosing loops and comprehensions.
    def visit_For(self, node: cst.For) -> None:
        self.loop_vars.append(set(target_names(node.target)))

    def leave_For(self, node: cst.For) -> None:
        self.loop_vars.pop()

    def _enter_comp(self, node) -> None:
        names: set[str] = set()
        comp = node.for_in
        while comp is not None:
            names.update(target_names(comp.target))
            comp = comp.inner_for_in
        self.loop_vars.append(names)

    def _leave_comp(self, node) -> None:
        self.loop_vars.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _enter_comp
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_comp

    def _per_iteration_element(self, expr: cst.BaseExpression, loop: set[str]) -> bool:
        """``idx[i]`` with ``i`` a loop variable, or a loop variable bound to a tensor element."""
        if isinstance(expr, cst.Name):
            return expr.value in loop and self.is_tensor(expr)
        if isinstance(expr, cst.Subscript) and self.is_tensor(expr.value) and not self._matrix(expr.value):
            return any(
                isinstance(el.slice, cst.Index)
                and isinstance(el.slice.value, cst.Name)
                and el.slice.value.value in loop
                for el in expr.slice
            )
        return False

    def _matrix(self, expr: cst.BaseExpression) -> bool:
        """``tags`` unpacked into two or more sizes in the region (``n, batch = tags.shape``):
        ``tags[i]`` is a row, and indexing by it is vectorized, not one element at a time."""
        region = self.ctx.region
        if not isinstance(expr, cst.Name) or region is None:
            return False
        key = (id(region.node), expr.value)
        if key not in self.matrices:
            self.matrices[key] = any(
                isinstance(n, cst.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0].target, (cst.Tuple, cst.List))
                and len(n.targets[0].target.elements) >= 2
                and not any(isinstance(e, cst.StarredElement) for e in n.targets[0].target.elements)
                and _sizes_of(n.value) == expr.value
                for n in walk(region.node.body)
            )
        return self.matrices[key]

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.loop_vars or not self.is_tensor(node.value):
            return
        loop = set().union(*self.loop_vars)
        for el in node.slice:
            if isinstance(el.slice, cst.Index) and self._per_iteration_element(el.slice.value, loop):
                self.report(node)
                return


def _sizes_of(value: cst.BaseExpression) -> str | None:
    """The name whose sizes ``value`` is: ``t.shape`` or ``t.size()``."""
    if isinstance(value, cst.Call) and not value.args:
        value = value.func
        if not (isinstance(value, cst.Attribute) and value.attr.value == "size"):
            return None
    elif not (isinstance(value, cst.Attribute) and value.attr.value == "shape"):
        return None
    return value.value.value if isinstance(value.value, cst.Name) else None
