"""TL020 int-buffer-size: a size or padding computed from a 0-d integer buffer.

A module that keeps a Python int as a buffer (``self.stride = nn.Buffer(torch.tensor(s),
persistent=False)``) and does shape arithmetic with it in ``forward`` (``(length -
self.kernel_size) / self.stride``) gets a tensor where it meant a number: dynamo traces a
buffer as data, so a padding, a size, a slice bound or a branch made of it depends on data
and splits the graph. The analysis here is shared with the fix
(:mod:`torchlint.fixes.int_buffer`):

* :func:`int_buffers`: the class's buffers made in ``__init__`` from Python ints and never
  written afterwards;
* :class:`Numbers`: in one method, the expressions that would be Python numbers were those
  buffers Python ints (shape reads, literals, the buffers, arithmetic, ``torch.ceil``), and
  which of them read a buffer;
* the rule reports where such a number is used as a size: a call's argument (alone or in a
  tuple or list), a slice bound, or a branch's test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from torchlint.analysis.names import self_attr
from torchlint.analysis.tree import walk
from torchlint.rules.base import Rule

Resolve = Callable[[cst.BaseExpression], "str | None"]

_INT_DTYPES = frozenset(f"torch.{t}" for t in ("int64", "long", "int32", "int", "int16", "int8", "uint8"))
_BUFFER_CALLS = frozenset({"torch.nn.Buffer", "torch.nn.parameter.Buffer"})
#: rounding of a number -> ``math``'s function of the same name
ROUNDING = {"torch.ceil": "ceil", "torch.floor": "floor", "math.ceil": "ceil", "math.floor": "floor"}
_NUMBER_BUILTINS = frozenset({"builtins.max", "builtins.min", "builtins.abs", "builtins.int", "builtins.round"})
_INT_CASTS = frozenset({"long", "int"})
_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_INT_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_SHAPE_METHODS = frozenset({"size", "dim", "numel"})
#: numpy's integer math, which dynamo traces as tensor operations: on Python ints the result is
#: data to it, where ``math``'s (the same function) is a constant
NUMPY_INT_MATH = {"numpy.lcm": "lcm", "numpy.gcd": "gcd"}


@dataclass
class IntBuffer:
    """``self.<name> = nn.Buffer(<value>, persistent=False)`` in ``__init__``, ``<value>`` an
    integer tensor made from Python ints (``torch.tensor(k, dtype=torch.int64)``, or names
    bound to such, combined with ``+ - * // %``)."""

    name: str
    line: cst.SimpleStatementLine  # the statement that makes it, in __init__
    value: cst.BaseExpression
    #: the int-tensor locals of ``__init__`` the value reads -> the statement binding each
    #: last before ``line`` and the Python-int expression given to ``torch.tensor`` there
    tensor_locals: dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]] = field(default_factory=dict)


def class_methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """The functions defined in the class's body, by name."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return {stmt.name.value: stmt for stmt in body if isinstance(stmt, cst.FunctionDef)}


def _int_tensor_call(expr: cst.BaseExpression, resolve: Resolve) -> cst.BaseExpression | None:
    """The Python-int argument of ``torch.tensor(<int>, dtype=<int dtype>)``, else None."""
    if not (isinstance(expr, cst.Call) and resolve(expr.func) == "torch.tensor" and expr.args):
        return None
    first = expr.args[0]
    if first.keyword is not None or first.star:
        return None
    dtype = next((a.value for a in expr.args[1:] if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is not None:
        return first.value if resolve(dtype) in _INT_DTYPES else None
    return first.value if isinstance(first.value, cst.Integer) else None


def _plain_int_expr(expr: cst.BaseExpression) -> bool:
    """Names, attributes, subscripts by constants, int literals and arithmetic: an expression
    that reads values and calls nothing (so it may be written twice)."""
    for node in walk(expr):
        if isinstance(node, (cst.Call, cst.Lambda, cst.Await, cst.Yield, cst.NamedExpr)):
            return False
    return True


def int_buffers(cls: cst.ClassDef, resolve: Resolve) -> dict[str, IntBuffer]:
    """The class's integer buffers made from Python ints in ``__init__`` (top-level
    statements only) and never written by another method."""
    init = class_methods(cls).get("__init__")
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return {}
    tensor_locals: dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]] = {}
    found: dict[str, IntBuffer] = {}

    int_params = _int_params(init)

    def int_tensor(expr: cst.BaseExpression, used: dict) -> bool:
        arg = _int_tensor_call(expr, resolve)
        if arg is not None:
            return _plain_int_expr(arg) and _scalar(arg, int_params)
        if isinstance(expr, cst.Name) and expr.value in tensor_locals:
            used[expr.value] = tensor_locals[expr.value]
            return True
        if self_attr(expr) in found:
            return True
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _INT_ARITH):
            sides = [expr.left, expr.right]
            tensors = [s for s in sides if not isinstance(s, cst.Integer)]
            return bool(tensors) and all(int_tensor(s, used) for s in tensors)
        return False

    for stmt in init.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            for node in walk(stmt):  # a name bound inside a branch or loop is not followed
                if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
                    tensor_locals.pop(node.target.value, None)
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    arg = _int_tensor_call(small.value, resolve)
                    if arg is not None and _plain_int_expr(arg) and _scalar(arg, int_params) and len(stmt.body) == 1:
                        tensor_locals[target.value] = (stmt, arg)
                    else:
                        tensor_locals.pop(target.value, None)
                    continue
                name = self_attr(target)
                value = small.value
                if name and isinstance(value, cst.Call) and resolve(value.func) in _BUFFER_CALLS:
                    _buffer(name, stmt, value, 0, found, int_tensor)
                elif name and isinstance(value, cst.BinaryOperation) and len(stmt.body) == 1:
                    # `self.padding_right = self.padding_total // 2`: a plain attribute holding
                    # a number made of int buffers is one too
                    used: dict = {}
                    if _self_attrs_in(value) and int_tensor(value, used):
                        found[name] = IntBuffer(name, stmt, value, used)
                    else:
                        found.pop(name, None)
                elif name:
                    found.pop(name, None)
            elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                call = small.value
                if self_attr(call.func) == "register_buffer" and len(call.args) >= 2:
                    key = call.args[0].value
                    if isinstance(key, cst.SimpleString) and key.value[1:-1].isidentifier():
                        _buffer(key.value[1:-1], stmt, call, 1, found, int_tensor)
    written = _written_attrs(cls)
    return {n: b for n, b in found.items() if n not in written}


def _int_params(init: cst.FunctionDef) -> set[str]:
    """``__init__``'s parameters annotated ``int`` or defaulting to an int literal."""
    out = set()
    for p in [*init.params.params, *init.params.kwonly_params]:
        annotated = p.annotation is not None and isinstance(p.annotation.annotation, cst.Name)
        if (annotated and p.annotation.annotation.value == "int") or isinstance(p.default, cst.Integer):  # type: ignore[union-attr]
            out.add(p.name.value)
    return out


def _scalar(expr: cst.BaseExpression, int_params: set[str]) -> bool:
    """An expression that reads as one number: an int literal, an item (``stride[0]``),
    arithmetic, or an int parameter (not a bare name or attribute, which may hold a list)."""
    if isinstance(expr, (cst.Integer, cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(expr, cst.Subscript):
        return all(isinstance(e.slice, cst.Index) for e in expr.slice)
    return isinstance(expr, cst.Name) and expr.value in int_params


def _buffer(name, stmt, call: cst.Call, at: int, found: dict, int_tensor) -> None:
    if len(stmt.body) != 1 or len(call.args) <= at or call.args[at].keyword is not None:
        return
    persistent = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "persistent"), None)
    if not (isinstance(persistent, cst.Name) and persistent.value == "False"):
        return  # a persistent buffer is loaded from checkpoints: its value is not the code's
    used: dict = {}
    value = call.args[at].value
    if int_tensor(value, used):
        found[name] = IntBuffer(name, stmt, value, used)
    else:
        found.pop(name, None)


def _self_attrs_in(expr: cst.BaseExpression) -> bool:
    return any(self_attr(n) for n in walk(expr))


def _written_attrs(cls: cst.ClassDef) -> set[str]:
    """``self.<attr>`` stored, augmented or changed in place (``self.x.copy_(...)``) by a
    method other than ``__init__``."""
    out: set[str] = set()
    for method_name, method in class_methods(cls).items():
        if method_name == "__init__":
            continue
        for node in walk(method):
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                for t in walk(node.target):
                    name = self_attr(t)
                    if name:
                        out.add(name)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                name = self_attr(node.func.value)
                if name and node.func.attr.value.endswith("_") and not node.func.attr.value.startswith("_"):
                    out.add(name)
    return out


class Numbers:
    """In one method of the class: which expressions are numbers (Python numbers, or would
    be were the int buffers Python ints), and which of them read a buffer.

    ``kind(expr)`` is ``"buffer"`` (a number made with a buffer), ``"host"`` (a Python
    number: literals, shape reads, ``len()``) or None. Locals take the kind of what every
    assignment binds them to; a same-class method called on ``self`` whose every ``return``
    is a buffer number is one too (``methods``)."""

    def __init__(
        self,
        fn: cst.FunctionDef,
        buffers: dict[str, IntBuffer],
        resolve: Resolve,
        methods: dict[str, cst.FunctionDef] | None = None,
        _depth: int = 0,
        functions: dict[str, cst.FunctionDef] | None = None,
    ) -> None:
        self.fn = fn
        self.buffers = buffers
        self.resolve = resolve
        self.methods = methods or {}
        self.functions = functions or {}
        self.depth = _depth
        self.locals: dict[str, str | None] = {}
        #: same-class methods called here whose results are buffer numbers, by name
        self.callees: dict[str, Numbers] = {}
        self._memo: dict[int, str | None] = {}
        assigns: list[tuple[str, cst.BaseExpression | None]] = []
        for node in walk(fn.body):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    single = isinstance(t.target, cst.Name)
                    for n in walk(t.target):
                        if isinstance(n, cst.Name):
                            assigns.append((n.value, node.value if single else None))
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName)):
                target = getattr(node, "target", None) or getattr(node, "name", None)
                for n in walk(target) if target is not None else ():
                    if isinstance(n, cst.Name):
                        assigns.append((n.value, node.value if isinstance(node, cst.AugAssign) else None))
        params = fn.params
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            self.locals[p.name.value] = None
        # a local's kind: the weakest of its bindings, settled by iterating
        values: dict[str, list[cst.BaseExpression | None]] = {}
        for name, value in assigns:
            values.setdefault(name, []).append(value)
        #: locals bound to a shape (`input_shape = x.size()`; other bindings only by unpacking,
        #: `..., input_shape = self.pad(...)`): their items are numbers
        self.shapes = {
            n
            for n, vals in values.items()
            if n not in self.locals and any(vals) and all(v is None or _whole_shape(v) for v in vals)
        }
        pending = {n: v for n, v in values.items() if n not in self.locals}
        # optimistic start (`n = torch.ceil(n)` reads itself), then down to what holds
        self.locals.update(dict.fromkeys(pending, "host"))
        for _ in range(6):
            changed = False
            for name, vals in pending.items():
                self._memo.clear()
                kinds = [self.kind(v) if v is not None else None for v in vals]
                kind = None if None in kinds else ("buffer" if "buffer" in kinds else "host")
                if self.locals[name] != kind:
                    self.locals[name] = kind
                    changed = True
            if not changed:
                break
        self._memo.clear()

    def kind(self, expr: cst.BaseExpression) -> str | None:
        key = id(expr)
        if key not in self._memo:
            self._memo[key] = None  # a cycle reads as not a number
            self._memo[key] = self._kind(expr)
        return self._memo[key]

    def _kind(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, (cst.Integer, cst.Float)):
            return "host"
        attr = self_attr(expr)
        if attr is not None and attr in self.buffers:
            return "buffer"
        if isinstance(expr, cst.Name):
            return self.locals.get(expr.value)
        if isinstance(expr, cst.Attribute) and expr.attr.value == "ndim":
            return "host"
        if isinstance(expr, cst.Attribute) and _config_read(expr):
            return "host"  # `config.chunk_length`: a model config's sizes are Python numbers
        if isinstance(expr, cst.Comparison):
            kinds = [self.kind(expr.left), *(self.kind(c.comparator) for c in expr.comparisons)]
            return "buffer" if "buffer" in kinds else None
        if isinstance(expr, cst.BooleanOperation):
            return "buffer" if "buffer" in (self.kind(expr.left), self.kind(expr.right)) else None
        if isinstance(expr, cst.Subscript) and (
            _whole_shape(expr.value) or (isinstance(expr.value, cst.Name) and expr.value.value in self.shapes)
        ):
            return "host"
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITH):
            return _join(self.kind(expr.left), self.kind(expr.right))
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.kind(expr.expression)
        if isinstance(expr, cst.Call):
            return self._call_kind(expr)
        return None

    def _call_kind(self, call: cst.Call) -> str | None:
        func = call.func
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        name = self.resolve(func)
        if name in ROUNDING and len(args) == 1 and len(call.args) == 1:
            return self.kind(args[0])
        if name in _NUMBER_BUILTINS and args and len(args) == len(call.args):
            kinds = [self.kind(a) for a in args]
            return None if None in kinds else ("buffer" if "buffer" in kinds else "host")
        if name == "builtins.len":
            return "host"
        if name in NUMPY_INT_MATH and args and len(args) == len(call.args):
            return "buffer" if all(self.kind(a) is not None for a in args) else None
        if isinstance(func, cst.Name) and func.value in self.functions and self.depth < 2:
            return self._callee_kind(func.value, self.functions[func.value])
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _SHAPE_METHODS and self.resolve(func) is None:
                return "host" if method != "size" or args else None
            if method == "to" and len(call.args) == 1 and self.resolve(call.args[0].value) in _INT_DTYPES:
                return self.kind(func.value)
            if method in _INT_CASTS and not call.args:
                return self.kind(func.value)
            callee = self_attr(func)
            if callee and callee in self.methods and self.depth < 2 and callee != self.fn.name.value:
                return self._callee_kind(callee, self.methods[callee])
        return None

    def _callee_kind(self, name: str, fn: cst.FunctionDef) -> str | None:
        """``"buffer"`` when every ``return`` of the same-file function or method ``fn`` gives
        a number and one of them a buffer number (the callee is then rewritten with the caller)."""
        if fn is self.fn:
            return None
        inner = self.callees.get(name) or Numbers(
            fn, self.buffers, self.resolve, self.methods, self.depth + 1, self.functions
        )
        returns = [n for n in walk(inner.fn.body) if isinstance(n, cst.Return)]
        kinds = [inner.kind(r.value) if r.value is not None else None for r in returns]
        if kinds and None not in kinds and "buffer" in kinds:
            self.callees[name] = inner
            return "buffer"
        return None


def _whole_shape(expr: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.size()``, or a slice of one (``x.size()[:-1]``)."""
    if isinstance(expr, cst.Subscript) and all(isinstance(e.slice, cst.Slice) for e in expr.slice):
        expr = expr.value
    if _attr_named(expr, "shape"):
        return True
    return isinstance(expr, cst.Call) and not expr.args and _attr_named(expr.func, "size")


def _config_read(expr: cst.Attribute) -> bool:
    """``config.x`` or ``self.config.x`` (a config object's field)."""
    base = expr.value
    if isinstance(base, cst.Name):
        return base.value == "config"
    return self_attr(base) == "config"


def _attr_named(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value == name


def _join(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return None
    return "buffer" if "buffer" in (a, b) else "host"


def size_uses(numbers: Numbers) -> list[cst.CSTNode]:
    """Where a buffer number is used as a size: the calls that take one as an argument
    (alone, or in a tuple or list), the subscripts that slice by one, the branch tests that
    read one; in source order, nested functions left out."""
    out: list[cst.CSTNode] = []
    fn = numbers.fn
    for node in walk(fn.body):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.If, cst.While, cst.IfExp)):
            if numbers.kind(node.test) == "buffer" or any(_buffer_number(numbers, n) for n in walk(node.test)):
                out.append(node.test)
        elif isinstance(node, cst.Call) and numbers.kind(node) is None:
            if self_attr(node.func) in numbers.callees:
                continue
            for arg in node.args:
                value = arg.value
                items = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
                if any(numbers.kind(i) == "buffer" for i in items):
                    out.append(node)
                    break
        elif isinstance(node, cst.Subscript):
            bounds = [
                b
                for el in node.slice
                if isinstance(el.slice, cst.Slice)
                for b in (el.slice.lower, el.slice.upper, el.slice.step)
                if b is not None
            ]
            if any(numbers.kind(b) == "buffer" for b in bounds):
                out.append(node)
    return out


def _buffer_number(numbers: Numbers, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.BaseExpression) and numbers.kind(node) == "buffer"


class IntBufferSize(Rule):
    code = "TL020"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._uses: dict[int, set[int]] = {}
        self._has_numpy: bool | None = None
        self._buffers: dict[int, dict[str, IntBuffer]] = {}

    def _region_uses(self) -> set[int]:
        region = self.ctx.region
        if region is None or region.owner is None:
            return set()
        key = id(region.node)
        if key not in self._uses:
            self._uses[key] = set()
            owner = region.owner.node
            if id(owner) not in self._buffers:  # once per class, not per method
                self._buffers[id(owner)] = int_buffers(owner, self.resolve)
            buffers = self._buffers[id(owner)]
            if (buffers or self._numpy_math()) and region.node.name.value != "__init__":
                functions = self.ctx.index.functions
                numbers = Numbers(region.node, buffers, self.resolve, region.owner.methods, functions=functions)
                self._uses[key] = {id(n) for n in size_uses(numbers)}
        return self._uses[key]

    def _numpy_math(self) -> bool:
        """Whether the file calls numpy's integer math at all (else only buffers are looked for)."""
        if self._has_numpy is None:
            numpy = {k for k, v in self.ctx.imports.aliases.items() if v == "numpy"}
            self._has_numpy = bool(numpy) and any(
                isinstance(n, cst.Attribute) and n.attr.value in ("lcm", "gcd") for n in walk(self.ctx.module)
            )
        return self._has_numpy

    def _check(self, node: cst.CSTNode) -> None:
        if id(node) in self._region_uses():
            self.report(node)

    def visit_Call(self, node: cst.Call) -> None:
        self._check(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._check(node)

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test)
