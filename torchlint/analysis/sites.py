"""What a function passes at each call it makes, for the summary (read with ``ast``).

The project decides what an un-annotated parameter holds from every call that reaches it
(:mod:`torchlint.analysis.callsites`). For that, a function's summary lists its calls with a
coarse *kind* for each argument, worked out from the function alone:

* ``"i"``: an int (a literal, ``len(...)``, ``x.shape[0]``, ``x.size(1)``, ``x.dim()``,
  arithmetic of ints);
* ``"n"``: another Python value that is no tensor (strings, floats, ``None``, booleans,
  ``x.shape``, ``x.item()``, a config's attribute);
* ``"t"``: a tensor (``torch.zeros(...)``, ``x.sum()``, ``F.softmax(...)``);
* ``"?"``: cannot tell;
* ``"p:NAME"``: the function's own parameter NAME, as its callers pass it; ``"s:ATTR"``:
  ``self.ATTR``, as the class's methods set it (``"s:OBJ.ATTR"``: ``self.OBJ.ATTR``, as the
  methods of the classes of the object kept in ``self.OBJ`` set it);
* ``["|", k, ...]``: one of these (a name assigned in several places); ``["+", k, ...]``:
  arithmetic on them (a tensor if one is, an int if all are); ``["/", ...]``: a true division;
  ``["c", ...]``: a comparison; ``["[]", k]``: an item of ``k`` (``["[]", k, "#1"]``: item
  1); ``["()", k, ...]``: a tuple, list or set of them;
* ``["r", NAME]``: what the function (or ``self.method``) NAME returns, as the project
  resolves it from that function's own summary (its ``ret``).

Nothing here imports libcst or the user's code.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import re
from importlib import resources
from typing import Any, Callable, Union, cast

Kind = Union[str, list]

# Builtins whose result is an int / some other Python value (when the name is not rebound).
_INT_BUILTINS = frozenset({"len", "int", "round", "ord", "hash", "id"})
_VALUE_BUILTINS = frozenset(
    {"float", "str", "bool", "repr", "format", "tuple", "list", "dict", "set", "range", "isinstance", "type", "chr"}
)
_ARITH_BUILTINS = frozenset({"min", "max", "abs"})
# Methods whose result is an int / no tensor, on whatever they are called on.
_INT_METHODS = frozenset({"dim", "numel", "ndimension", "nelement", "element_size", "get_device"})
_VALUE_METHODS = frozenset({"item", "tolist", "is_floating_point", "is_contiguous", "data_ptr", "stride"})
# Methods only tensors have (called on anything, their result is a tensor).
_TENSOR_METHODS = frozenset(
    {
        "sum",
        "mean",
        "float",
        "half",
        "long",
        "view",
        "reshape",
        "transpose",
        "permute",
        "unsqueeze",
        "squeeze",
        "softmax",
        "masked_fill",
        "argmax",
        "argmin",
        "detach",
        "clone",
        "contiguous",
        "matmul",
        "flatten",
        "expand",
        "type_as",
        "new_zeros",
        "new_ones",
        "cumsum",
        "exp",
        "sigmoid",
        "tanh",
    }
)


def torch_call_kind(qual: str) -> str | None:
    """What calling torch's ``torch.<name>`` or ``torch.nn.functional.<name>`` (as written:
    ``F.pad``) gives: ``"t"`` a tensor, ``"n"`` a value that is none (``torch.numel``,
    ``torch.device``); None for another name or one that is not a plain function."""
    head = qual.split(".")
    if not ((len(head) == 2 and head[0] == "torch") or qual.startswith(_FUNCTIONAL)):
        return None
    name = head[-1]
    if name[:1].islower() and not name.startswith(("is_", "get_", "set_", "_")):
        return "n" if name in _NOT_TENSOR_CALLS else "t"
    return None


#: Methods of tensors that neither Python's numbers and containers, nor NumPy arrays, nor
#: ``nn.Module`` have: whatever they are called on (an unknown helper's result, a function
#: passed in: ``norm(y / scale).abs()``), the value is a tensor.
ONLY_TENSOR_METHODS = frozenset(
    {
        "abs",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "logsumexp",
        "norm",
        "pow",
        "clamp",
        "clamp_min",
        "clamp_max",
        "amax",
        "amin",
        "isnan",
        "isinf",
        "isfinite",
        "reciprocal",
        "neg",
        "sign",
        "unsqueeze",
        "permute",
        "contiguous",
        "masked_fill",
        "type_as",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
    }
    # and the like among torch's own: elementwise maths, comparisons, indexing and linear
    # algebra that return a tensor (a name another library's classes commonly define as well,
    # `clone`, `detach`, `matmul`, `solve`, `to_dense`, `unique`, `backward`, is left out)
    | frozenset(
        """acos acosh addbmm addcdiv addcmul addmm addmv addr angle arccos arcsin arctan arctan2
        argwhere asin asinh atan atan2 atanh baddbmm bincount bitwise_and bitwise_not bitwise_or
        bitwise_xor bmm broadcast_to ceil copysign cos cosh count_nonzero cummax cummin deg2rad
        diag_embed digamma erf erfc erfinv exp2 expand_as expm1 floor floor_divide fmax fmin fmod
        frac gather ge gt le lt ne eq greater greater_equal less less_equal not_equal heaviside
        hypot i0 index_add index_copy index_fill index_put index_select isneginf isposinf lerp
        lgamma log10 log1p log2 logaddexp logcumsumexp logical_and logical_not logical_or
        logical_xor logit masked_scatter masked_select matrix_exp maximum minimum mm movedim
        moveaxis mv nan_to_num nanmean nansum narrow polygamma rad2deg remainder
        repeat_interleave reshape_as rot90 scatter scatter_add scatter_reduce sgn sin sinh sinc
        square swapdims take_along_dim tan tensor_split tril triu trunc unbind unflatten view_as
        xlogy abs_ add_ addcdiv_ addcmul_ addmm_ baddbmm_ bernoulli_ ceil_ clamp_ clamp_min_
        clamp_max_ copy_ div_ erf_ erfinv_ exp_ expm1_ exponential_ fill_ fill_diagonal_ floor_
        fmod_ index_add_ index_copy_ index_fill_ index_put_ lerp_ log_ log1p_ masked_fill_
        masked_scatter_ mul_ neg_ normal_ pow_ random_ reciprocal_ relu_ remainder_ round_
        scatter_ scatter_add_ sigmoid_ sign_ sqrt_ squeeze_ sub_ t_ tanh_ transpose_ tril_ triu_
        trunc_ uniform_ unsqueeze_ zero_""".split()
    )
)
# torch.<name> calls whose result is no tensor
_NOT_TENSOR_CALLS = frozenset(
    {
        "device",
        "dtype",
        "no_grad",
        "enable_grad",
        "inference_mode",
        "set_grad_enabled",
        "manual_seed",
        "seed",
        "compile",
        "numel",
        "equal",
        "allclose",
        "finfo",
        "iinfo",
        "typename",
        "autocast",
        "cond",
        "broadcast_shapes",
        "promote_types",
        "result_type",
        "can_cast",
    }
)
_FUNCTIONAL = ("F.", "torch.nn.functional.", "nn.functional.")
_CONFIG_WORDS = ("config", "cfg")
#: names of metadata, not data: ``dtype``, ``device``, ``shape``, ``patch_size``, ``sizes``,
#: and dimensions (``dim``, ``seq_dim``, ``axis``)
META_NAME = re.compile(r"(?:^|_)(?:dtype|device|shape|size|sizes|dim|dims|ndim|axis|axes)$")


def _atoms_join(kinds: list[Kind]) -> Kind:
    """One of ``kinds``, folded when they are all known here."""
    flat: list[Kind] = []
    for k in kinds:
        if isinstance(k, list) and k and k[0] == "|":
            flat.extend(k[1:])
        elif k != "":
            flat.append(k)
    if not flat:
        return ""
    atoms = [k for k in flat if isinstance(k, str) and k in ("i", "n", "t", "?")]
    if len(atoms) == len(flat):
        return join(atoms)
    out: list[Kind] = ["|"]
    for k in flat:
        if k not in out[1:]:
            out.append(k)
    return out if len(out) > 2 else out[1]


def join(kinds: list[str]) -> str:
    """The kind of a value that is one of ``kinds`` (each resolved): a tensor if one may be."""
    kinds = [k for k in kinds if k != ""]
    if not kinds:
        return ""
    if "t" in kinds:
        return "t"
    if "?" in kinds:
        return "?"
    return "i" if all(k == "i" for k in kinds) else "n"


def arith(op: str, kinds: list[str]) -> str:
    """The kind of arithmetic (``"+"``, ``"/"``), a comparison (``"c"``) or an index
    (``"[]"``: ``t[i]`` is a tensor when ``t`` is, an item of a value that holds no tensor
    is none) or a tuple, list or set built of them (``"()"``: no tensor when none of its
    items is) on ``kinds``."""
    if "" in kinds:
        return ""
    if op == "[]":  # (an index kept as `#i` says nothing of the kind)
        kinds = [k for k in kinds if not k.startswith(ITEM)]
        return {"t": "t", "n": "n"}.get(kinds[0], "?") if len(kinds) == 1 else "?"
    if op == "()":
        return "n" if all(k in ("i", "n") for k in kinds) else "?"
    if "t" in kinds:
        return "t"
    if "?" in kinds:
        return "?"
    if op == "+" and all(k == "i" for k in kinds):
        return "i"
    return "n"


#: the head of a kind that is what a named function returns
RETURN = "r"
#: the prefix of a constant index in an item's kind: ``["[]", k, "#1"]``
ITEM = "#"
#: the prefix of such a name when it is absolute (imported inside the calling function)
ABSOLUTE = "abs:"
#: the prefix of an argument's kind that is a class passed as an object, by its name as
#: written (``Chain(MaxSemiring)``: ``"c:MaxSemiring"``): not a tensor, nothing known of its
#: value; the project follows the methods called on it (a strategy class)
CLASS_OBJECT = "c:"


def evaluate(kind: Any, atom: Callable[[str], str], call: Callable[[str], str]) -> str:
    """``kind`` worked out to ``"i"``, ``"n"``, ``"t"`` or ``"?"``: ``atom`` gives a
    ``"p:NAME"`` or ``"s:ATTR"`` atom's kind, ``call`` what ``["r", NAME]`` returns."""
    if isinstance(kind, str):
        if kind.startswith(CLASS_OBJECT):
            return "?"
        return atom(kind) if kind.startswith(("p:", "s:")) else kind
    if isinstance(kind, list) and len(kind) == 2 and kind[0] == RETURN:
        return call(kind[1])
    if isinstance(kind, list) and kind:
        parts = [evaluate(k, atom, call) for k in kind[1:]]
        return join(parts) if kind[0] == "|" else arith(kind[0], parts)
    return "?"


def _fold(op: str, kinds: list[Kind]) -> Kind:
    plain = [k for k in kinds if isinstance(k, str) and not k.startswith(("p:", "s:"))]
    if len(plain) == len(kinds):
        return arith(op, plain)
    return [op, *kinds]


def _chain_root(node: ast.AST) -> tuple[ast.AST, list[str]]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return node, parts


_Name, _Constant = ast.Name, ast.Constant
_NOT_CODE = frozenset({"ctx", "op", "ops", "id", "kind", "type_comment", "level", "is_async", "returns", "annotation"})
_FIELDS: dict[type, tuple[str, ...]] = {}
#: the node types that bind names
_BINDS = frozenset(
    t
    for t in (
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.ExceptHandler,
        ast.arg,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Import,
        ast.ImportFrom,
        ast.Global,
        ast.Nonlocal,
        ast.Delete,
        getattr(ast, "MatchAs", None),
        getattr(ast, "MatchStar", None),
    )
    if t is not None
)


class Env:
    """The names a function binds, each with the values assigned to it (None: cannot tell)."""

    def __init__(self, fn: ast.AST, params: set[str], typed: dict[str, Kind] | None = None) -> None:
        self.params = params
        #: parameters whose annotation says what they hold (``ts: Tensor``): that, not an atom
        self.typed = typed or {}
        self.values: dict[str, list[ast.AST | None]] = {}
        #: names the function imports itself (``from diffusers import DDIMScheduler``): their
        #: absolute names, for the calls of them
        self.imported: dict[str, str] = {}
        #: what ``name.append(v)`` puts in a list the function binds: name -> the values
        self.appended: dict[str, list[ast.AST]] = {}
        self._loops: list[tuple[ast.Tuple, ast.AST]] = []
        self._visiting: set[str] = set()
        body = getattr(fn, "body", [])
        stack: list[Any] = list(body) if isinstance(body, list) else [body]
        pop, extend, note = stack.pop, stack.extend, self._note
        while stack:
            node = pop()
            t = type(node)
            if t is _Name or t is _Constant:
                continue
            if t in _BINDS:
                note(node)
            elif t is ast.Call:
                func = node.func
                if type(func) is ast.Attribute and func.attr == "append" and type(func.value) is _Name and node.args:
                    self.appended.setdefault(func.value.id, []).append(node.args[0])
            fields = _FIELDS.get(t)
            if fields is None:  # (a name in `global a, b` is a plain string: no fields)
                fields = _FIELDS[t] = tuple(f for f in getattr(t, "_fields", ()) if f not in _NOT_CODE)
            for f in fields:
                value = getattr(node, f, None)
                if type(value) is list:
                    extend(value)
                elif isinstance(value, ast.AST):
                    stack.append(value)
        for target, seq in self._loops:
            self._unpacked(target, seq)

    def _unpacked(self, target: ast.Tuple, seq: ast.AST) -> None:
        if not isinstance(seq, ast.Name) or seq.id in self.params:
            return
        built = self.values.get(seq.id, [])
        if not built or not all(isinstance(v, ast.List) for v in built):
            return
        rows = [e for v in built if isinstance(v, ast.List) for e in v.elts] + self.appended.get(seq.id, [])
        width = len(target.elts)
        tuples = [r for r in rows if isinstance(r, ast.Tuple) and len(r.elts) == width]
        if not rows or len(tuples) != len(rows):
            return
        for i, name in enumerate(target.elts):
            if isinstance(name, ast.Name):
                values = self.values[name.id]
                values.remove(None)  # (the walk bound it unknown)
                values.extend(r.elts[i] for r in tuples)

    def _bind(self, name: str, value: ast.AST | None) -> None:
        self.values.setdefault(name, []).append(value)

    def _unknown(self, target: ast.AST) -> None:
        """Each name ``target`` binds can no longer be told (``self.ball = ball`` or
        ``x[m] = 0`` binds none: an attribute or an item is set, the name stays)."""
        if isinstance(target, ast.Name):
            self._bind(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self._unknown(e)
        elif isinstance(target, ast.Starred):
            self._unknown(target.value)

    def _unpack(self, target: ast.AST, seq: ast.expr) -> None:
        """``for a, b in pairs``: each name takes its place in the tuples the list ``pairs``
        was built from (``pairs = []`` and ``pairs.append((x, y))``, or a literal); anything
        else is unknown. (Called as the walk meets the loop: the appends are read later.)"""
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            self._loops.append((target, seq))
        if isinstance(target, ast.Name):  # `for t in timesteps`: an item of what is iterated
            self._bind(target.id, ast.Subscript(value=seq, slice=ast.Name(id="_", ctx=ast.Load()), ctx=ast.Load()))
            return
        self._unknown(target)

    def _note(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self._bind(target.id, node.value)
                elif (
                    isinstance(target, ast.Tuple)
                    and isinstance(node.value, ast.Tuple)
                    and len(target.elts) == len(node.value.elts)
                    and not any(isinstance(e, ast.Starred) for e in target.elts + node.value.elts)
                ):  # `p, c = self.patch_size, self.channels`
                    for part, value in zip(target.elts, node.value.elts):
                        if isinstance(part, ast.Name):
                            self._bind(part.id, value)
                        else:
                            self._unknown(part)
                elif isinstance(target, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in target.elts):
                    # `a1, p = torch.where(m)`, `b, n, d = x.shape`: each name is its item
                    for i, part in enumerate(target.elts):
                        if isinstance(part, ast.Name):
                            self._bind(part.id, ast.Subscript(value=node.value, slice=ast.Constant(i), ctx=ast.Load()))
                        else:
                            self._unknown(part)
                else:
                    self._unknown(target)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name):
                if node.value is not None:
                    self._bind(node.target.id, node.value)
            else:
                self._unknown(node.target)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                self._bind(node.target.id, node)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node.target.id, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._unpack(node.target, node.iter)
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None:
                self._unknown(node.optional_vars)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                self._bind(node.name, None)
        elif isinstance(node, ast.arg):  # a nested function's or lambda's parameter
            self._bind(node.arg, None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(node.name, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                local = (a.asname or a.name).split(".")[0]
                self._bind(local, None)
                if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    self.imported[local] = f"{node.module}.{a.name}"
                elif isinstance(node, ast.Import) and a.asname:
                    self.imported[local] = a.name
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self._bind(name, None)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self._unknown(target)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name:
                self._bind(node.name, None)

    def is_local(self, name: str) -> bool:
        return name in self.values or name in self.params

    # -- kinds -------------------------------------------------------------------------
    def name_kind(self, name: str) -> Kind:
        if name in self._visiting:
            return ""  # (a name read in its own assignment: what the others say)
        values = self.values.get(name)
        param: Kind | None = self.typed.get(name, f"p:{name}") if name in self.params else None
        if values is None:
            return param if param is not None else "?"
        self._visiting.add(name)
        try:
            kinds: list[Kind] = [param] if param is not None else []
            for v in values:
                if v is None:
                    kinds.append("?")
                elif isinstance(v, ast.AugAssign):
                    op = "/" if isinstance(v.op, ast.Div) else "+"
                    kinds.append(_fold(op, [self.name_kind(name), self.kind(v.value)]))
                else:
                    kinds.append(self.kind(v))
            return _atoms_join(kinds)
        finally:
            self._visiting.discard(name)

    def kind(self, node: ast.AST) -> Kind:
        if isinstance(node, ast.Constant):
            v = node.value
            return "i" if isinstance(v, int) and not isinstance(v, bool) else "n"
        if isinstance(node, ast.Name):
            return self.name_kind(node.id)
        if isinstance(node, ast.JoinedStr):
            return "n"
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            kinds = [self.kind(e) for e in node.elts]
            if any(isinstance(k, list) or k.startswith(("p:", "s:")) for k in kinds):
                return ["()", *kinds]  # `(top + a, left + b)` of a parameter's items
            return "n" if all(k in ("i", "n") for k in kinds) else "?"
        if isinstance(node, ast.Attribute):
            return self._attribute_kind(node)
        if isinstance(node, ast.Subscript):
            base = node.value
            sliced = isinstance(node.slice, ast.Slice)
            if isinstance(base, ast.Attribute) and base.attr == "shape":
                return "n" if sliced else "i"
            if isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size":
                return "n" if sliced else "i"
            if isinstance(base, ast.Name) and not sliced and self._holds_shape(base.id):
                return "i"  # `dims = x.shape[-2:]; dims[0]`
            inner = self.kind(base)  # an element or a slice of a tensor is a tensor: `t[i]`
            if inner == "t":
                return "t"
            if isinstance(inner, list) or inner.startswith(("p:", "s:")):
                # resolved where the caller's kinds are known; a constant index kept, for the
                # item of a returned tuple (`sde, bm = check(...)`: what `check` makes)
                index = node.slice
                if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0:
                    return ["[]", inner, f"{ITEM}{index.value}"]
                return ["[]", inner]
            return "?"
        if isinstance(node, ast.Call):
            return self._call_kind(node)
        if isinstance(node, ast.BinOp):
            op = "/" if isinstance(node.op, ast.Div) else "+"
            return _fold(op, [self.kind(node.left), self.kind(node.right)])
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return "n"
            return self.kind(node.operand)
        if isinstance(node, ast.Compare):
            if any(isinstance(o, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for o in node.ops):
                return "n"
            return _fold("c", [self.kind(o) for o in [node.left, *node.comparators]])
        if isinstance(node, ast.BoolOp):
            return _atoms_join([self.kind(v) for v in node.values])
        if isinstance(node, ast.IfExp):
            return _atoms_join([self.kind(node.body), self.kind(node.orelse)])
        return "?"

    def _holds_shape(self, name: str) -> bool:
        """Whether every value of ``name`` is a shape or a slice of one (``x.shape[-2:]``)."""
        values = self.values.get(name)
        if not values or name in self.params:
            return False
        for v in values:
            if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Slice):
                v = v.value
            shape = isinstance(v, ast.Attribute) and v.attr == "shape"
            size = (
                isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "size" and not v.args
            )
            if not (shape or size):
                return False
        return True

    def _attribute_kind(self, node: ast.Attribute) -> Kind:
        if node.attr == "ndim":
            return "i"
        if node.attr in ("shape", "dtype", "device", "is_cuda", "requires_grad"):
            return "n"
        root, parts = _chain_root(node)
        names = parts[1:] + ([root.id] if isinstance(root, ast.Name) else [])
        if any(w in p.lower() for p in names for w in _CONFIG_WORDS):
            return "n"  # `config.hidden_size`, `self.config.dim`: configuration, no tensor
        if isinstance(root, ast.Name) and root.id == "self" and "self" not in self.values and len(parts) <= 2:
            # `self.ATTR`, and `self.OBJ.ATTR` of an object kept (`self.scheduler.timesteps`)
            return "s:" + ".".join(reversed(parts))
        return "?"

    def _call_kind(self, node: ast.Call) -> Kind:
        func = node.func
        if isinstance(func, ast.Name) and not self.is_local(func.id):
            if func.id in _INT_BUILTINS:
                return "i"
            if func.id in _VALUE_BUILTINS:
                return "n"
            if func.id in _ARITH_BUILTINS and node.args and not node.keywords:
                if len(node.args) == 1:
                    return "?"  # max(iterable)
                return _fold("+", [self.kind(a) for a in node.args])
            if func.id in UNLISTED_HEADS:
                return "?"
            return [RETURN, func.id]  # what that function returns, as the project knows it
        if isinstance(func, ast.Name) and func.id in self.imported and self.values.get(func.id) == [None]:
            return [RETURN, ABSOLUTE + self.imported[func.id]]  # imported in the function itself
        if isinstance(func, ast.Attribute):
            attr = func.attr
            dotted = _dotted(func)
            if dotted is not None and not self.is_local(dotted.split(".")[0]):
                head = dotted.split(".")
                if head[0] == "math":
                    return "n"
                if (len(head) == 2 and head[0] == "torch") or dotted.startswith(_FUNCTIONAL):
                    return torch_call_kind(dotted) or "?"
                if dotted in ("nn.Parameter", "torch.nn.Parameter", "nn.Buffer", "torch.nn.Buffer"):
                    return "t"
            if attr == "size":
                return "i" if node.args else "n"
            if attr in _INT_METHODS:
                return "i"
            if attr in _VALUE_METHODS:
                return "n"
            if attr in _TENSOR_METHODS and self._may_be_tensor(func.value):
                return "t"
            if attr in _TENSOR_METHODS and isinstance(func.value, ast.Call):
                inner = self._call_kind(func.value)
                if isinstance(inner, list):
                    return inner  # `fold(...).flatten(1)`: a tensor where the call gives one
            if attr in ONLY_TENSOR_METHODS and not _namespace_root(func.value) and not self._global_root(func.value):
                return "t"
            first = dotted.split(".")[0] if dotted is not None else None
            if first == "self" and cast(str, dotted).count(".") == 1:
                return [RETURN, dotted]  # `self.helper(x)`: the method the class's MRO gives
            if first is not None and not self.is_local(first) and first not in UNLISTED_MODULES:
                return [RETURN, dotted]  # `misc.helper(x)`: a function of a module
        return "?"

    def _may_be_tensor(self, node: ast.AST) -> bool:
        """Whether a value a tensor-only method is called on is no module (``self.float()``,
        ``self.proj.half()``), namespace or array."""
        root, _ = _chain_root(node)
        if isinstance(root, ast.Name):
            return root.id not in ("self", "torch", "np", "numpy", "math", "F", "nn") and not self._global_root(root)
        return not isinstance(root, ast.Call) or self._call_kind(root) == "t"

    def _global_root(self, node: ast.AST) -> bool:
        """Whether ``node`` (or its chain's root) is a name the function does not bind: a
        module or a class far more often than a tensor (``misc.half(x)``, ``utils.flatten(seq)``)."""
        root, _ = _chain_root(node)
        return isinstance(root, ast.Name) and not self.is_local(root.id)


def _namespace_root(node: ast.AST) -> bool:
    """``np.x``, ``math.y``, ``self``: what a method name alone does not make a tensor."""
    root, _ = _chain_root(node)
    return isinstance(root, ast.Name) and root.id in ("self", "torch", "np", "numpy", "math", "F", "nn")


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


#: the callee of a site on an instance the calling function made: ``"new:Solver.integrate"``
MADE_PREFIX = "new:"


def class_name(env: Env, node: ast.AST) -> str | None:
    """The name as written of what ``node`` names where it reads a class defined outside the
    function (``MaxSemiring``, ``semirings.LogSemiring``: a name it does not bind, spelt as
    classes are), else None."""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    name = _dotted(node)
    root = name.split(".", 1)[0] if name is not None else ""
    if name is None or root in ("self", "cls") or env.is_local(root):
        return None
    last = name.rsplit(".", 1)[-1]
    constant = last.isupper() and "_" in last  # `MAX_LEN`
    return name if last[:1].isupper() and not constant else None


def _argument_kind(env: Env, node: ast.AST) -> Kind:
    kind = env.kind(node)
    if kind == "?":
        name = class_name(env, node)
        if name is not None:
            return f"{CLASS_OBJECT}{name}"
    return kind


def site(env: Env, call: ast.Call, callee: str, attr: str | None) -> list[Any]:
    """``[callee, positional kinds, {keyword: kind}]`` (and the attribute of ``self`` the
    call's result is assigned to): ``"*"`` for a starred argument, ``"**"`` for ``**kw``."""
    pos: list[Kind] = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            pos.append("*")
            break
        pos.append(_argument_kind(env, a))
    kw: dict[str, Kind] = {}
    for k in call.keywords:
        kw[k.arg if k.arg is not None else "**"] = "?" if k.arg is None else _argument_kind(env, k.value)
    out: list[Any] = [callee, pos]
    if kw or attr is not None:
        out.append(kw)
    if attr is not None:
        out.append(attr)
    return out


#: callees no project function can be: builtins and the usual library modules (a project
#: function named like one is taken as called from where no caller is seen)
UNLISTED_MODULES = frozenset({"torch", "np", "numpy", "math", "os", "sys", "re", "warnings", "logging"})
UNLISTED_HEADS = frozenset(n for n in dir(builtins) if not n.startswith("_"))


def signature(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, Any]:
    """The parameters a call binds: positional names, keyword-only names, and the kinds of
    the defaults."""
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    out: dict[str, Any] = {"sig": positional}
    if args.kwonlyargs:
        out["kwonly"] = [a.arg for a in args.kwonlyargs]
    env = Env(ast.Module(body=[], type_ignores=[]), set())
    defaults: dict[str, Kind] = {}
    for a, d in zip(args.args[len(args.args) - len(args.defaults) :] if args.defaults else [], args.defaults):
        defaults[a.arg] = _plain(env.kind(d))
    for a, kd in zip(args.kwonlyargs, args.kw_defaults):
        if kd is not None:
            defaults[a.arg] = _plain(env.kind(kd))
    if defaults:
        out["defaults"] = defaults
    # the defaults that are `None`, `True` or `False`: a parameter no call passes holds it
    consts = {
        a.arg: repr(d.value)
        for a, d in [
            *zip(args.args[len(args.args) - len(args.defaults) :] if args.defaults else [], args.defaults),
            *zip(args.kwonlyargs, args.kw_defaults),
        ]
        if isinstance(d, ast.Constant) and (d.value is None or isinstance(d.value, bool))
    }
    if consts:
        out["consts"] = consts
    # the defaults that name a class (``semiring=MaxSemiring``): what a call leaving the
    # parameter out hands the function, a class as an object
    classes = {}
    given: list[tuple[ast.arg, ast.expr | None]] = [
        *zip(args.args[len(args.args) - len(args.defaults) :] if args.defaults else [], args.defaults),
        *zip(args.kwonlyargs, args.kw_defaults),
    ]
    for param, value in given:
        name = class_name(env, value) if value is not None else None
        if name is not None:
            classes[param.arg] = name
    if classes:
        out["class_defaults"] = classes
    # annotated parameters keep what their annotation says
    annotated = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.annotation is not None]
    if annotated:
        out["annotated"] = annotated
    return out


def _plain(kind: Kind) -> str:
    return kind if isinstance(kind, str) and kind in ("i", "n", "t") else "?"


@functools.cache
def common_methods() -> frozenset:
    """Method names of tensors and of Python's containers and strings: a call ``v.name(...)``
    on an unknown ``v`` is not listed (it is nearly always one of those), and a project method
    with one of these names is taken as called from where no caller is seen."""
    text = resources.files("torchlint").joinpath("data/tensor_methods.json").read_text("utf-8")
    names = set(json.loads(text)["names"])
    for t in (list, dict, str, set, tuple, bytes, int, float):
        names.update(n for n in dir(t) if not n.startswith("__"))
    return frozenset(names)
