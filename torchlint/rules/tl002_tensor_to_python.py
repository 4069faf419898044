"""TL002 tensor-to-python: ``float(t)``, ``int(t)``, ``bool(t)``, ``math.f(t)``, ``range(t)``.

Also a slice bound taken from a tensor, an index that is a 0-d tensor by construction
(``x[:, s.argmax()]``: a reduction over every element, read as a Python int), and the values
dynamo holds as tensors although the program sees Python numbers: numpy results
(``float(np.mean(a))``) and ``random.randint`` draws, when they become a number, a size or a
slice bound.
"""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import param_names, target_names
from torchlint.analysis.tensors import HOST_DATA
from torchlint.analysis.tree import walk
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
# Reductions over every element when given no dim: a 0-d tensor, which as an index is read as
# a Python int (`x[s.argmax()]`); with a dim the rank depends on the input's, unknown here.
_ZERO_DIM = {"argmax", "argmin", "max", "min", "amax", "amin", "sum", "count_nonzero"}


class TensorToPython(Rule):
    code = "TL002"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: (id of the region's function, name) -> the values it plainly assigns the name
        self._bound: dict[tuple[int, str], list[cst.BaseExpression]] = {}

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

    def _zero_dim(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """A 0-d tensor by construction: ``s.argmax()``, ``torch.argmin(s)``, ``lengths.max()``
        with no dim, integer arithmetic on them, or a name the region binds only to those."""
        if isinstance(expr, cst.Name) and depth == 0 and self.ctx.region is not None:
            fn = self.ctx.region.node
            key = (id(fn), expr.value)
            if key not in self._bound:  # (each subscript asks: the body is walked once per name)
                self._bound[key] = _assigned(fn, expr.value)
            values = self._bound[key]
            return bool(values) and all(self._zero_dim(v, 1) for v in values)
        if isinstance(expr, cst.BinaryOperation):  # `lengths.max() - 1`
            sides = (expr.left, expr.right)
            return any(self._zero_dim(e, depth) for e in sides) and all(
                isinstance(e, cst.Integer) or self._zero_dim(e, depth) for e in sides
            )
        if not isinstance(expr, cst.Call) or any(a.keyword is not None or a.star for a in expr.args):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _ZERO_DIM and not expr.args:
            return self.is_tensor(func.value) and self.resolve(func) is None
        qual = self.resolve(func)
        if qual is not None and qual.startswith("torch.") and qual[6:] in _ZERO_DIM and len(expr.args) == 1:
            return self.is_tensor(expr.args[0].value)
        return False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.is_tensor(node.value):
            return
        for el in node.slice:
            if isinstance(el.slice, cst.Index) and self._zero_dim(el.slice.value):
                self.report(
                    node,
                    message="indexing with a 0-d tensor (a reduction over every element) reads its "
                    "value on the host and splits the graph; index with `torch.gather`/`index_select`, "
                    "or keep a dim (`argmax(dim, keepdim=True)`) and index with that tensor",
                )
                return
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


def _assigned(fn: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    """The values ``fn`` assigns ``name`` in plain ``name = value`` statements; empty when it
    also binds it otherwise (a parameter, a loop, an augmented assignment, an unpacking)."""
    params = fn.params
    if name in param_names(fn) or any(
        isinstance(p, cst.Param) and p.name.value == name for p in (params.star_arg, params.star_kwarg)
    ):
        return []
    values: list[cst.BaseExpression] = []
    for node in walk(fn.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(node.value)
                elif name in target_names(target.target):
                    return []
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            if name in target_names(node.target):
                return []
        elif isinstance(node, cst.AsName) and name in target_names(node.name):
            return []
    return values
