"""TL008 dynamic-output-shape: ops whose output shape depends on tensor values."""

from __future__ import annotations

import re

import libcst as cst

from torchlint import knowledge
from torchlint.analysis.names import dotted, self_attr
from torchlint.analysis.torchnames import library_op, op_callee
from torchlint.rules.base import Rule

# Flagged with any arguments (each case is in the rule's tests); the rest of the measured
# knowledge of the torch reported for (``benchmarks/knowledge.py``) is flagged when called
# as its proven example is, with no more arguments (`F.one_hot(t)` breaks, `F.one_hot(t, 10)`
# does not).
_FUNCS = {
    "torch.nonzero",
    "torch.unique",
    "torch.masked_select",
    "torch.repeat_interleave",
    "torch.bincount",
    "torch.argwhere",
    "torch.unique_consecutive",
}
_METHODS = {"nonzero", "unique", "masked_select", "bincount", "argwhere", "unique_consecutive"}
_BOOL_FUNCS = {
    "torch.isfinite",
    "torch.isnan",
    "torch.isinf",
    "torch.logical_and",
    "torch.logical_or",
    "torch.logical_not",
    "torch.logical_xor",
    "torch.isin",
    "torch.eq",
    "torch.ne",
    "torch.gt",
    "torch.ge",
    "torch.lt",
    "torch.le",
    "torch.isclose",
    "torch.signbit",
}
_BOOL_METHODS = {
    "bool",
    "isfinite",
    "isnan",
    "isinf",
    "logical_and",
    "logical_or",
    "logical_not",
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "isclose",
}


# Names that say a tensor holds a boolean mask (`mask`, `valid`, `keep_mask`, `is_pad`).
_MASK_NAME = re.compile(r"(?:^|_)(?:mask|valid|keep)$|^(?:is|has)_")


def _mask_uses(body: cst.CSTNode, imports) -> set[str]:
    """Names the body uses as boolean masks: `~m`, `m & n`, `m.any()`, `torch.where(m, ...)`."""
    from torchlint.analysis.tree import code_children

    found: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            if isinstance(node.expression, cst.Name):
                found.add(node.expression.value)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr)):
            for side in (node.left, node.right):
                if isinstance(side, cst.Name):
                    found.add(side.value)
        elif isinstance(node, cst.Attribute) and node.attr.value in ("any", "all", "logical_not", "logical_and"):
            if isinstance(node.value, cst.Name):
                found.add(node.value.value)
        elif isinstance(node, cst.Call) and node.args and isinstance(node.args[0].value, cst.Name):
            if imports.resolve(node.func) in ("torch.where", "torch.logical_not", "torch.logical_and"):
                found.add(node.args[0].value.value)
        stack.extend(code_children(node))
    return found


# Judged by other means: TL016 owns `torch.equal`; `torch.where(cond)` is flagged only with one
# argument; `one_hot` by its `num_classes` (visit_Call), whatever the measured example passed.
_ELSEWHERE = frozenset({"torch.equal", "equal", "torch.where", "torch.nn.functional.one_hot"})


def _positional(example: str) -> int:
    """How many arguments the proven example passes (``torch.masked_select(x, x > 0)``: 2)."""
    inner = example[example.index("(", example.index(").") + 2 if example.startswith("(") else 0) + 1 : -1]
    depth, count = 0, 1 if inner.strip() else 0
    for ch in inner:
        depth += ch in "([{"
        depth -= ch in ")]}"
        count += ch == "," and depth == 0
    return count


def measured_ops() -> tuple[dict[str, int], dict[str, int], set[str]]:
    """(functions, methods) the knowledge proves dynamic-shape or data-dependent, each with the
    number of arguments of its example, and the data-dependent names among them."""
    data = knowledge.current()
    functions: dict[str, int] = {}
    methods: dict[str, int] = {}
    data_dependent: set[str] = set()
    for family in ("dynamic_shape_ops", "data_dependent_ops"):
        for kind, table in (("functions", functions), ("methods", methods)):
            for name, entry in data.get(family, {}).get(kind, {}).items():
                if name in _ELSEWHERE or name in _FUNCS or name in _METHODS:
                    continue
                table[name] = _positional(entry["example"])
                if family == "data_dependent_ops":
                    data_dependent.add(name)
    return functions, methods, data_dependent


ONE_HOT = "torch.nn.functional.one_hot"


def one_hot_classes(call: cst.Call) -> cst.BaseExpression | None:
    """The ``num_classes`` argument of a ``one_hot`` call (None when it is left out)."""
    for i, arg in enumerate(call.args):
        if (arg.keyword is None and i == 1 and not arg.star) or (arg.keyword and arg.keyword.value == "num_classes"):
            return arg.value
    return None


class DynamicOutputShape(Rule):
    code = "TL008"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.measured_functions, self.measured_methods, self.data_dependent = measured_ops()
        self.masks: dict[tuple, bool] = {}
        self.stores: set[int] = set()
        self.mask_uses: dict[int, set[str]] = {}

    def _used_as_mask(self, name: str) -> bool:
        """A tensor the region never assigns from a mask expression but that is one by name or use."""
        if _MASK_NAME.search(name):
            return True
        region = self.ctx.region
        if region is None:
            return False
        key = id(region.node)
        if key not in self.mask_uses:
            self.mask_uses[key] = _mask_uses(region.node.body, self.ctx.imports)
        return name in self.mask_uses[key]

    def _scope_key(self, name: str) -> tuple:
        return (id(self.ctx.region), name)

    def _is_mask(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Comparison):
            return self.is_tensor(expr)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self._is_mask(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._is_mask(expr.left) or self._is_mask(expr.right)
        if isinstance(expr, cst.IfExp):  # `d < m if inverted else d > m`: a mask either way
            return self._is_mask(expr.body) and self._is_mask(expr.orelse)
        if isinstance(expr, cst.Name):
            key = self._scope_key(expr.value)
            if key in self.masks:
                return self.masks[key] and self.is_tensor(expr)
            return self.is_tensor(expr) and self._used_as_mask(expr.value)
        if self_attr(expr) is not None:  # a mask the region stored on the module
            return self.masks.get(self._scope_key(f"self.{self_attr(expr)}"), False) and self.is_tensor(expr)
        if isinstance(expr, cst.Call):
            qual = self.resolve(expr.func)
            if qual in _BOOL_FUNCS:
                return True
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in _BOOL_METHODS and self.is_tensor(func.value):
                return True
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        # `x[mask] = v` writes in place (index_put_) and keeps shapes, and so does each of
        # `x[mask], y[mask] = f(...)`; `x[mask] += v` reads too.
        todo: list[cst.BaseExpression] = [t.target for t in node.targets]
        while todo:
            target = todo.pop()
            if isinstance(target, cst.Subscript):
                self.stores.add(id(target))
            elif isinstance(target, (cst.Tuple, cst.List)):
                todo.extend(e.value for e in target.elements)

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.masks[self._scope_key(target.target.value)] = self._is_mask(node.value)
            elif self_attr(target.target) is not None:  # `self.keep = self.w_sum > 1e-10`
                self.masks[self._scope_key(f"self.{self_attr(target.target)}")] = self._is_mask(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self.stores or not self.is_tensor(node.value):
            return
        if any(isinstance(el.slice, cst.Index) and self._is_mask(el.slice.value) for el in node.slice):
            self.report(node)

    def _from_values(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """A size computed from tensor values: a tensor, ``max``/``min`` of one, ``-1`` (one_hot's
        "as many as the largest value"), or a name the region binds to one of those."""
        if self.is_tensor(expr):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return isinstance(expr.expression, cst.Integer) and expr.expression.value == "1"
        if isinstance(expr, cst.BinaryOperation):
            return self._from_values(expr.left, depth) or self._from_values(expr.right, depth)
        if isinstance(expr, cst.Call) and self.resolve(expr.func) in ("builtins.max", "builtins.min"):
            return any(self._from_values(a.value, depth) for a in expr.args)
        region = self.ctx.region
        if isinstance(expr, cst.Name) and region is not None and depth < 3:
            from torchlint.analysis.tree import walk

            values = [
                n.value
                for n in walk(region.node.body)
                if isinstance(n, cst.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0].target, cst.Name)
                and n.targets[0].target.value == expr.value
            ]
            return len(values) == 1 and self._from_values(values[0], depth + 1)
        return False

    def _project_op(self, func: cst.BaseExpression, qual: str | None) -> str | None:
        """The project's operator a call runs, when its fake kernel allocates a size from the
        data (:meth:`torchlint.analysis.project.Project.dynamic_ops`): ``torch.ops.ns.op(...)``,
        ``torch.ops.ns.op.default(...)`` or the ``@custom_op`` function's name."""
        known = self.ctx.imports.dynamic_ops
        if not known:
            return None
        if qual is not None and qual.startswith("torch.ops."):
            op = library_op(qual)
            return op_callee(op) if op is not None and op_callee(op) in known else None
        name = dotted(func)
        scope = self.ctx.scope
        if name is None or (scope is not None and name.split(".", 1)[0] in scope.local):
            return None
        if name in known:
            return name
        if qual is not None and f"{name.split('.', 1)[0]}.*" in known:  # an installed package's module
            from torchlint.analysis import installed

            return name if installed.dynamic_call(qual) else None
        return None

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        what: str | None = None
        op = self._project_op(node.func, qual)
        if op is not None:
            self.report(
                node,
                message=f"`{op}` runs an operator whose fake kernel allocates a size computed from "
                "the data: its output shape depends on its inputs' values, so dynamo splits the "
                "graph here; give the operator a fixed-size output (padded to a bound, with a "
                "count) or call it outside the compiled region",
            )
            return
        if qual == ONE_HOT:
            classes = one_hot_classes(node)
            if classes is None or self._from_values(classes):
                self.report(
                    node,
                    message="`one_hot` with a number of classes computed from tensor values returns a tensor "
                    "whose shape depends on them, so dynamo splits the graph here; pass a fixed `num_classes`",
                )
            return
        if qual in _FUNCS:
            what = qual
        elif qual == "torch.where" and len(node.args) == 1:
            what = "torch.where(cond)"
        elif isinstance(node.func, cst.Attribute) and self.is_tensor(node.func.value):
            method = node.func.attr.value
            if method in _METHODS:
                what = f".{method}()"
            elif method == "repeat_interleave" and node.args and self.is_tensor(node.args[0].value):
                what = ".repeat_interleave(tensor)"
        if what == "torch.repeat_interleave" and not (len(node.args) >= 2 and self.is_tensor(node.args[1].value)):
            return
        if what is None:
            what = self._measured(node, qual)
            if what in self.data_dependent or (what and what.strip(".()") in self.data_dependent):
                self.report(
                    node,
                    message=f"`{what}` computes a value from the tensor's data that dynamo cannot "
                    "hold in a graph, so it splits the graph here; pass the sizes it needs "
                    "(`num_classes=`) or compute it outside the compiled region",
                )
                return
        if what is not None:
            self.report(
                node,
                message=f"`{what}` returns a tensor whose shape depends on its values, so "
                "dynamo splits the graph here; use a fixed-size form (`torch.where`, masks, "
                "`torch.nonzero_static`)",
            )

    def _measured(self, node: cst.Call, qual: str | None) -> str | None:
        """A call the knowledge proves breaking, called with no more arguments than its example."""
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        if qual in self.measured_functions and len(node.args) <= self.measured_functions[qual]:
            return qual
        func = node.func
        if isinstance(func, cst.Attribute) and self.is_tensor(func.value):
            method = func.attr.value
            if method in self.measured_methods and len(node.args) <= self.measured_methods[method]:
                return f".{method}()"
        return None
