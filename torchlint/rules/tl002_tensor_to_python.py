"""TL002 tensor-to-python: ``float(t)``, ``int(t)``, ``bool(t)``, ``math.f(t)``, ``range(t)``.

Also a slice bound taken from a tensor, an index that is a 0-d tensor by construction
(``x[:, s.argmax()]``: a reduction over every element, read as a Python int), and the values
dynamo holds as tensors although the program sees Python numbers: numpy results
(``float(np.mean(a))``) and ``random.randint`` draws, when they become a number, a size or a
slice bound.
"""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import int_literal, param_names, target_names, untouched_param
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
#: methods that keep a tensor's rank (``index.sub(1).clamp(0, n)``, ``t.long()``)
_SAME_RANK = {"long", "int", "to", "clone", "detach", "clamp", "clamp_min", "clamp_max", "add", "sub", "remainder"}
#: one-dimensional by construction: ``torch.arange(n)``, ``x.flatten()``, ``x.view(-1)``
_FLAT_FUNCS = {"torch.arange", "torch.flatten", "torch.randperm"}
_FLAT_METHODS = {"flatten", "ravel"}
#: annotations that say a parameter holds one integer (handed a 0-d tensor, it is one)
_INT_ANNOTATIONS = {"int", "Optional[int]", "typing.Optional[int]", "int|None", "None|int"}
#: tensor methods whose position and length arguments are read as Python ints
_OFFSET_METHODS = {"select": (1,), "narrow": (1, 2)}


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
            if isinstance(func, cst.Attribute) and func.attr.value in _OFFSET_METHODS and self.is_tensor(func.value):
                positional = [a.value for a in node.args if a.keyword is None and not a.star]
                at = _OFFSET_METHODS[func.attr.value]
                if any(i < len(positional) and self._zero_dim(positional[i]) for i in at):
                    self.report(
                        node,
                        message=f"`.{func.attr.value}()` at a position held in a 0-d tensor reads it on the "
                        "host and splits the graph; index with `torch.index_select` or `torch.gather`",
                    )
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
        with no dim, an item of a one-dimensional tensor (``idx[0]``), a parameter annotated
        ``int`` that the project's calls hand a tensor, integer arithmetic on them and methods
        that keep the rank, or a name the region binds only to those."""
        if isinstance(expr, cst.Name) and depth < 2 and self.ctx.region is not None:
            if self._int_param_given_tensor(expr.value):
                return True
            values = self._values(expr.value)
            return bool(values) and all(self._zero_dim(v, depth + 1) for v in values)
        if isinstance(expr, cst.BinaryOperation):  # `lengths.max() - 1`
            sides = (expr.left, expr.right)
            return any(self._zero_dim(e, depth) for e in sides) and all(
                isinstance(e, cst.Integer) or self._zero_dim(e, depth) for e in sides
            )
        if isinstance(expr, cst.Subscript):  # `idx[0]` of a one-dimensional `idx`
            return _constant_item(expr) and self._flat(expr.value, depth)
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SAME_RANK and self.resolve(func) is None:
            return self._zero_dim(func.value, depth)
        if any(a.keyword is not None for a in expr.args):
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in _ZERO_DIM and not expr.args:
            return self.is_tensor(func.value) and self.resolve(func) is None
        qual = self.resolve(func)
        if qual is not None and qual.startswith("torch.") and qual[6:] in _ZERO_DIM and len(expr.args) == 1:
            return self.is_tensor(expr.args[0].value)
        return False

    def _flat(self, expr: cst.BaseExpression, depth: int) -> bool:
        """A one-dimensional tensor by construction: ``torch.arange(n)``, ``x.flatten()``,
        ``x.view(-1)``, an item of ``nonzero(as_tuple=True)`` or of one-argument
        ``torch.where``, or a name the region binds only to those."""
        if isinstance(expr, cst.Name) and depth < 2 and self.ctx.region is not None:
            values = self._values(expr.value)
            return bool(values) and all(self._flat(v, depth + 1) for v in values)
        if isinstance(expr, cst.Subscript):  # `m.nonzero(as_tuple=True)[0]`, `torch.where(m)[0]`
            return _constant_item(expr) and self._per_dim_indices(expr.value)
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return False
        func = expr.func
        qual = self.resolve(func)
        if qual in _FLAT_FUNCS:
            return qual != "torch.flatten" or len(expr.args) == 1
        if isinstance(func, cst.Attribute) and qual is None and self.is_tensor(func.value):
            name = func.attr.value
            if name in _FLAT_METHODS:
                return not expr.args
            if name in ("view", "reshape"):  # `x.view(-1)`
                return len(expr.args) == 1 and int_literal(expr.args[0].value, -1)
            if name in _SAME_RANK:
                return self._flat(func.value, depth)
        return False

    def _per_dim_indices(self, expr: cst.BaseExpression) -> bool:
        """``m.nonzero(as_tuple=True)``, ``torch.nonzero(m, as_tuple=True)``, ``torch.where(m)``:
        a tuple of one-dimensional index tensors."""
        if not isinstance(expr, cst.Call):
            return False
        qual = self.resolve(expr.func)
        if qual == "torch.where":
            return len(expr.args) == 1 and expr.args[0].keyword is None
        method = isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "nonzero" and qual is None
        if method or qual == "torch.nonzero":
            return any(a.keyword is not None and a.keyword.value == "as_tuple" and _is_true(a.value) for a in expr.args)
        return False

    def _values(self, name: str) -> list[cst.BaseExpression]:
        """What the region's function plainly binds ``name`` to. (An item of a loop over a tensor,
        used as an index there, is TL006's.)"""
        region = self.ctx.region
        assert region is not None
        fn = region.node
        key = (id(fn), name)
        if key not in self._bound:  # (each subscript asks: the body is walked once per name)
            self._bound[key] = _assigned(fn, name)
        return self._bound[key]

    def _int_param_given_tensor(self, name: str) -> bool:
        """A parameter annotated ``int`` that the project's calls hand a tensor (a sampler's
        ``step(model_out, timestep: int, x)`` called with each item of ``timesteps``): a 0-d
        tensor computed by the caller. (What the compiled function was given is a graph input
        down the calls: indexing with one is traced.)"""
        region = self.ctx.region
        if region is None or region.is_root:
            return False
        fn = region.node
        for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
            if p.name.value != name or p.annotation is None:
                continue
            text = cst.Module([]).code_for_node(p.annotation.annotation).replace(" ", "")
            if text not in _INT_ANNOTATIONS:
                return False
            return name in region.computed_params and self.is_tensor(p.name) and untouched_param(fn, name)
        return False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.is_tensor(node.value):
            return
        for el in node.slice:
            if isinstance(el.slice, cst.Index) and self._zero_dim(el.slice.value):
                self.report(
                    node,
                    message="indexing with a 0-d tensor (a reduction over every element, an item of a "
                    "one-dimensional tensor) reads its "
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


def _constant_item(expr: cst.Subscript) -> bool:
    """``seq[k]`` with one int literal ``k``."""
    if len(expr.slice) != 1:
        return False
    index = expr.slice[0].slice
    return isinstance(index, cst.Index) and int_literal(index.value)


def _is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"
