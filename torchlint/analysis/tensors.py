"""Light inference of which expressions are tensors.

Kinds: ``TENSOR``; ``TENSORS`` (a tuple of tensors: ``x.chunk(3)``, ``torch.max(x, 1)``);
``MODULE`` (a callable submodule); ``None`` (cannot tell). Rules that need tensor-ness ask
:meth:`TensorScope.is_tensor` and stay quiet on ``False``: precision first, dynamo catches
the rest.
"""

from __future__ import annotations

import functools
import json
import re
import weakref
from importlib import resources

import libcst as cst

from torchlint.analysis.names import ImportTable, dotted, target_names
from torchlint.analysis.regions import ClassInfo, self_attr
from torchlint.analysis.sites import META_NAME, ONLY_TENSOR_METHODS
from torchlint.analysis.tree import code_children

TENSOR = "tensor"
TENSORS = "tensors"
MODULE = "module"
# A dict whose values are tensors (`Dict[str, Tensor]`, `{"a": x, "b": y}`): `d["k"]` is one.
TENSOR_DICT = "tensor-dict"
# A list of such dicts (`List[Dict[str, Tensor]]`, a detector's targets): each element is one.
TENSOR_DICTS = "tensor-dicts"
# A Python-looking value that dynamo holds as a tensor: a numpy result computed from
# something other than literals (`np.mean(a)`, `t.numpy()`), or a `random.randint` draw.
# Turning it into a Python number, a size, a slice bound or a branch reads it on the host.
HOST_DATA = "host-data"

# An instance of a record class of the file (a dataclass, a `NamedTuple`, a
# `collections.namedtuple`): `"record:State"`; `state.t` has the kind of the field.
RECORD = "record:"

# Calls whose result dynamo traces as a tensor although the program sees a Python int.
RANDOM_INTS = frozenset({"random.randint", "random.randrange"})

# Tensor methods and attributes whose result is not a tensor.
NON_TENSOR_METHODS = frozenset(
    {
        "item",
        "tolist",
        "size",
        "dim",
        "ndimension",
        "numel",
        "nelement",
        "element_size",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "data_ptr",
        "numpy",
        "stride",
        "get_device",
        "storage_offset",
        "untyped_storage",
        "storage",
        "type",
        "__len__",
        "is_pinned",
        "is_shared",
        "is_set_to",
        "equal",
        "backward",
        "register_hook",
        "requires_grad_",
        "retain_grad",
        "has_names",
        "is_nonzero",
        "copy_",
        "dim_order",
    }
)
TENSORS_METHODS = frozenset(
    {
        "chunk",
        "split",
        "unbind",
        "tensor_split",
        "split_with_sizes",
        "sort",
        "topk",
        "kthvalue",
        "unique_consecutive",
        "aminmax",
        "hsplit",
        "vsplit",
        "dsplit",
        "frexp",
        "slogdet",
        "qr",
        "svd",
        "lu",
    }
)
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag", "weight", "bias"})


@functools.cache
def tensor_method_names() -> frozenset:
    """Every public attribute of ``torch.Tensor`` (a shipped list, remade from torch by the
    tests): a value taken for a tensor whose method is not one of them is something else
    (``cache.get_seq_length()`` on a cache parameter of ``forward``)."""
    text = resources.files("torchlint").joinpath("data/tensor_methods.json").read_text("utf-8")
    return frozenset(json.loads(text)["names"])


# torch.* functions that do not return a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "is_tensor",
        "is_storage",
        "is_floating_point",
        "is_complex",
        "is_nonzero",
        "numel",
        "is_grad_enabled",
        "is_inference_mode_enabled",
        "get_default_dtype",
        "device",
        "dtype",
        "Size",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "manual_seed",
        "seed",
        "initial_seed",
        "compile",
        "is_compiling",
        "finfo",
        "iinfo",
        "typename",
        "broadcast_shapes",
        "get_num_threads",
        "set_num_threads",
        "equal",
        "allclose",
        "set_default_dtype",
        "use_deterministic_algorithms",
        "promote_types",
        "result_type",
        "can_cast",
        "is_same_size",
        "cond",
        "Generator",
        "Tensor",
        "autocast",
    }
)
TENSORS_TORCH = frozenset(
    {
        "chunk",
        "split",
        "unbind",
        "tensor_split",
        "meshgrid",
        "sort",
        "topk",
        "kthvalue",
        "std_mean",
        "var_mean",
        "aminmax",
        "hsplit",
        "vsplit",
        "dsplit",
        "broadcast_tensors",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "frexp",
        "unique_consecutive",
    }
)
# max/min/median/mode return a tensor without `dim` and a (values, indices) pair with it.
DIM_PAIR = frozenset({"max", "min", "median", "mode", "nanmedian", "cummax", "cummin"})
TENSOR_NAMESPACES = ("torch.", "torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
NOT_TENSOR_NAMESPACES = (
    "torch.nn.",
    "torch.cuda.",
    "torch.backends.",
    "torch.distributed.",
    "torch.compiler.",
    "torch._dynamo.",
    "torch.jit.",
    "torch.utils.",
    "torch.autograd.",
    "torch.onnx.",
    "torch.testing.",
    "torch.profiler.",
    "torch.overrides.",
    "torch.library.",
    "torch.hub.",
    "torch.amp.",
    "torch.cpu.",
    "torch.mps.",
    "torch.xpu.",
    "torch.random.",
    "torch.fx.",
)
TUPLE_MODULES = frozenset(
    {
        "torch.nn.LSTM",
        "torch.nn.GRU",
        "torch.nn.RNN",
        "torch.nn.MultiheadAttention",
        "torch.nn.ModuleList",
        "torch.nn.ModuleDict",
        "torch.nn.ParameterList",
        "torch.nn.ParameterDict",
        "torch.nn.LSTMCell",
    }
)

_NOT_TENSOR_ANNOTATIONS = frozenset({"int", "float", "bool", "str", "bytes", "list", "dict", "tuple"})
# Parameter names that hold metadata (a dtype, a device, a shape or size tuple), never data.
# torch.* predicates and getters (`torch.is_autocast_enabled(...)`, `torch.get_autocast_dtype`)
_NON_TENSOR_PREFIXES = ("is_", "get_", "set_", "has_", "are_", "can_")


# Attributes that only a tensor (or an array) has: a guessed parameter used this way
# (`t.float()`, `t.sum()`, `t.shape`) holds data, not a flag or a count.
_DATA_EVIDENCE = frozenset(
    {
        "float",
        "long",
        "half",
        "double",
        "bool",
        "item",
        "detach",
        "numpy",
        "tolist",
        "sum",
        "mean",
        "argmax",
        "argmin",
        "masked_fill",
        "unsqueeze",
        "squeeze",
        "view",
        "reshape",
        "numel",
        "ndim",
        "shape",
        "dtype",
        "any",
        "all",
        "clamp",
        "abs",
        "new_zeros",
        "new_ones",
        "type_as",
        "flatten",
        "permute",
        "transpose",
        "expand",
        "contiguous",
        "cumsum",
        "softmax",
        "exp",
        "log",
        "sqrt",
        "pow",
        "norm",
        "gather",
        "index_select",
        "masked_select",
    }
)


#: torch functions whose first argument is a number or a size (`torch.arange(n)`,
#: `torch.zeros(n, d)`, `torch.tensor(n)`): passing a parameter there says nothing of data
#: torch functions whose first argument is a list or tuple of tensors (`torch.cat(parts)`):
#: passing a parameter there makes it a sequence, not a tensor
_TAKE_SEQUENCES = frozenset(
    f"torch.{n}"
    for n in (
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "dstack",
        "column_stack",
        "row_stack",
        "block_diag",
        "broadcast_tensors",
        "cartesian_prod",
        "meshgrid",
        "einsum",
    )
)
_TAKE_NUMBERS = frozenset(
    f"torch.{n}"
    for n in (
        "arange",
        "range",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "linspace",
        "logspace",
        "eye",
        "tensor",
        "as_tensor",
        "scalar_tensor",
    )
)


def _data_evidence(body: cst.CSTNode, names: set[str], imports: ImportTable) -> set[str]:
    """Those of ``names`` that the body uses as tensors: ``n.float()``, ``n.shape``, ``torch.f(n)``."""
    found: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            base = node.value
            if isinstance(base, cst.Name) and base.value in names and node.attr.value in _DATA_EVIDENCE:
                found.add(base.value)
        elif isinstance(node, cst.Call) and node.args and isinstance(node.args[0].value, cst.Name):
            first = node.args[0].value.value
            if first in names and node.args[0].keyword is None:
                qual = imports.resolve(node.func)
                if (
                    qual is not None
                    and qual.startswith(TENSOR_NAMESPACES)
                    and not qual.startswith(NOT_TENSOR_NAMESPACES)
                    and qual not in _TAKE_NUMBERS
                    and qual not in _TAKE_SEQUENCES
                ):
                    found.add(first)
        stack.extend(code_children(node))
    return found


def _literal(expr: cst.BaseExpression) -> bool:
    """A constant the tracer folds: numbers, strings, and tuples/lists of them."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(not isinstance(e, cst.StarredElement) and _literal(e.value) for e in expr.elements)
    return False


def _python_comparison(expr: cst.Comparison) -> bool:
    """A comparison whose result is a Python bool even of tensors: identity and membership
    (``x is None``, ``k in d``), and equality with ``None`` (``mem == None``: a tensor's
    ``__eq__`` of ``None`` is ``False``, and dynamo folds it)."""
    operands = [expr.left] + [c.comparator for c in expr.comparisons]
    return any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons) or any(
        isinstance(o, cst.Name) and o.value == "None" for o in operands
    )


def _number_literal(expr: cst.BaseExpression) -> bool:
    """``3``, ``-0.5``: a number written out."""
    if isinstance(expr, cst.UnaryOperation):
        return _number_literal(expr.expression)
    return isinstance(expr, (cst.Integer, cst.Float))


# Same-file functions by name, per file (keyed by the file's import table), so that a call of
# a helper can be followed to what it returns. Filled by :func:`register_functions`.
_FUNCTIONS: weakref.WeakKeyDictionary[ImportTable, dict[str, cst.FunctionDef]] = weakref.WeakKeyDictionary()


# What same-file helpers return, per file and per which arguments are tensors.
_RETURNED: weakref.WeakKeyDictionary[ImportTable, dict] = weakref.WeakKeyDictionary()


def register_functions(imports: ImportTable, functions: dict[str, cst.FunctionDef]) -> None:
    """Make the file's top-level functions known to the scopes that share ``imports``."""
    _FUNCTIONS[imports] = functions


# The file's record classes (dataclasses, NamedTuples, namedtuples): name -> {field: kind},
# the fields in order. Filled by :func:`register_records`.
_RECORDS: weakref.WeakKeyDictionary[ImportTable, dict[str, dict[str, str | None]]] = weakref.WeakKeyDictionary()
# module-level names bound to a record of the file (`RK = Tableau(...)`): name -> kind
_RECORD_NAMES: weakref.WeakKeyDictionary[ImportTable, dict[str, str]] = weakref.WeakKeyDictionary()
_DATACLASS = frozenset({"dataclasses.dataclass", "attr.s", "attr.define", "attrs.define", "attr.attrs"})
_NAMED_TUPLES = frozenset({"collections.namedtuple", "typing.NamedTuple"})


def register_records(imports: ImportTable, module: cst.Module) -> None:
    """Find the file's record classes and what their fields hold: a dataclass's or a
    ``NamedTuple``'s annotated fields say it (``t: Tensor``); a ``collections.namedtuple``'s
    fields hold tensors where a module-level construction passes one
    (``RK = Tableau(alpha=torch.tensor([...]), ...)``), and where the regions' constructions do
    (:meth:`TensorScope.note_record_fields`). A module-level name bound to a construction is a
    record wherever the file reads it."""
    records: dict[str, dict[str, str | None]] = {}
    instances: dict[str, str] = {}
    module_level: list[cst.Call] = []
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef):
            decorated = any(
                imports.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) in _DATACLASS
                for d in stmt.decorators
            )
            typed = any(imports.resolve(b.value) == "typing.NamedTuple" for b in stmt.bases)
            if not (decorated or typed):
                continue
            fields: dict[str, str | None] = {}
            for item in stmt.body.body:
                for small in item.body if isinstance(item, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        text = cst.Module([]).code_for_node(small.annotation.annotation)
                        fields[small.target.value] = annotation_kind(text)
            records[stmt.name.value] = fields
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)):
                    continue
                call = small.value
                names = [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
                if imports.resolve(call.func) in _NAMED_TUPLES and len(call.args) >= 2 and names:
                    records[names[0]] = dict.fromkeys(_tuple_fields(call.args[1].value))
                elif isinstance(call.func, cst.Name) and call.func.value in records:  # (defined above)
                    module_level.append(call)
                    instances.update(dict.fromkeys(names, RECORD + call.func.value))
    _RECORDS[imports] = records
    _RECORD_NAMES[imports] = instances
    if module_level:
        scope = TensorScope(imports, None)
        for call in module_level:
            scope.note_record_fields(call)


def _tuple_fields(expr: cst.BaseExpression) -> list[str]:
    """The field names of ``namedtuple("P", "a b")`` / ``"a, b"`` / ``["a", "b"]``, and of
    ``NamedTuple("P", [("a", Tensor), ...])`` (their kinds are not read)."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return text.replace(",", " ").split() if isinstance(text, str) else []
    if isinstance(expr, (cst.List, cst.Tuple)):
        out = []
        for e in expr.elements:
            v = e.value
            if isinstance(v, (cst.Tuple, cst.List)) and v.elements:
                v = v.elements[0].value
            if isinstance(v, cst.SimpleString) and isinstance(v.evaluated_value, str):
                out.append(v.evaluated_value)
        return out
    return []


def returns_random_int(fn: cst.FunctionDef, imports: ImportTable) -> bool:
    """Whether every ``return`` of ``fn`` hands back a ``random.randint``-like draw."""
    returns = [n for n in _iter_nodes(fn.body) if isinstance(n, cst.Return)]
    return bool(returns) and all(
        isinstance(r.value, cst.Call) and imports.resolve(r.value.func) in RANDOM_INTS for r in returns
    )


def _iter_nodes(body: cst.CSTNode):
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) or node is body:
            stack.extend(code_children(node))


def _is_pairs(expr: cst.BaseExpression) -> bool:
    """``zip(...)`` / ``enumerate(...)``: an iterable whose elements unpack further."""
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("zip", "enumerate")


def _has_keyword(call: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name for a in call.args)


_CONTAINERS = re.compile(r"\b(?:List|Tuple|Sequence|Iterable|list|tuple)\[")
_DICTS = re.compile(r"\b(?:Dict|Mapping|MutableMapping|dict|OrderedDict)\[")
_TYPE_COMMENT = re.compile(r"#\s*type:\s*\((.*)\)\s*->\s*(.+?)\s*$")


def annotation_kind(text: str) -> str | None:
    """What a parameter annotated ``text`` holds: ``Tensor`` / ``Optional[Tensor]`` a tensor,
    ``List[Tensor]`` / ``Tuple[Tensor, Tensor]`` tensors, ``Dict[str, Tensor]`` a dict of
    them, ``List[Dict[str, Tensor]]`` a list of such dicts; an annotation naming no tensor
    (``int``, ``torch.Size``, ``MyConfig``) nothing."""
    if "Tensor" not in text:
        return None
    dicts = _DICTS.search(text)
    if dicts:
        inner = text[dicts.end() :]
        if "Tensor" not in inner.split(",", 1)[-1]:
            return None
        outer = _CONTAINERS.search(text)
        return TENSOR_DICTS if outer is not None and outer.start() < dicts.start() else TENSOR_DICT
    if _CONTAINERS.search(text):
        return TENSORS
    return TENSOR


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def type_comment(fn: cst.FunctionDef) -> tuple[list[str], str] | None:
    """A TorchScript-style ``# type: (Tensor, int) -> Tensor`` comment of ``fn`` (on the
    ``def`` line or the first line of its body): the parameters' types, the return type."""
    comment = fn.body.header.comment if isinstance(fn.body, cst.IndentedBlock) else None
    texts = [comment.value] if comment is not None else []
    if isinstance(fn.body, cst.IndentedBlock) and fn.body.body:
        first = fn.body.body[0]
        texts += [line.comment.value for line in getattr(first, "leading_lines", ()) if line.comment is not None]
    for text in texts:
        m = _TYPE_COMMENT.match(text)
        if m is not None:
            return _split_top(m.group(1)), m.group(2)
    return None


class TensorScope:
    """Kinds of the names bound in one function, updated in source order by the engine."""

    def __init__(
        self,
        imports: ImportTable,
        owner: ClassInfo | None = None,
        parent: TensorScope | None = None,
    ) -> None:
        self.imports = imports
        self.owner = owner
        self.parent = parent
        self.kinds: dict[str, str | None] = {}
        self.local: set[str] = set(parent.local) if parent is not None else set()
        # Parameters taken for tensors by assumption, not evidence (no `Tensor` annotation, no
        # caller seen passing a tensor): the inputs of a root region, and `name=None`
        # parameters (`mask=None`, but also `output_attentions=None`). Used bare as a truth
        # value or a size they are more often Python numbers and flags than data.
        self.guessed: set[str] = set()
        #: names bound to Python numbers read from shapes (``n = x.shape[0] // 2``), as far as
        #: the scope can tell: numpy math on them is folded by dynamo like math on literals
        self.numbers: set[str] = set()
        self.floats: set[str] = set()  # of those, the floats (`h = n / 3`)

    # -- binding ----------------------------------------------------------------------
    def bind(self, name: str, kind: str | None) -> None:
        self.kinds[name] = kind
        self.local.add(name)
        self.guessed.discard(name)
        self.numbers.discard(name)
        self.floats.discard(name)

    def bind_number(self, name: str, value: cst.BaseExpression) -> None:
        """After ``name = value`` was bound: note ``name`` a number when ``value`` is one (and
        a float when it is one: ``h = n / 3``)."""
        if self.kinds.get(name) is None and self._shape_number(value):
            self.numbers.add(name)
            if self._number_kind(value) == "float":
                self.floats.add(name)

    def _number_kind(self, expr: cst.BaseExpression) -> str:
        """Whether a number is a float (``n / 3``, ``0.5 * n``, ``math.sqrt(n)``, a name bound
        to one, numpy that gives one) or an int."""
        if isinstance(expr, cst.Name):
            scope: TensorScope | None = self
            while scope is not None:
                if expr.value in scope.kinds:
                    return "float" if expr.value in scope.floats else "int"
                scope = scope.parent
            return "int"
        if isinstance(expr, cst.Float):
            return "float"
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Divide):
                return "float"
            return "float" if "float" in (self._number_kind(expr.left), self._number_kind(expr.right)) else "int"
        if isinstance(expr, cst.UnaryOperation):
            return self._number_kind(expr.expression)
        if isinstance(expr, cst.Call):
            qual = self.resolve(expr.func) or ""
            if qual in ("builtins.float", "math.sqrt", "math.log", "math.log2", "math.exp", "math.pow"):
                return "float"
            if qual in ("builtins.min", "builtins.max", "builtins.abs") and expr.args:
                kinds = {self._number_kind(a.value) for a in expr.args}
                return "float" if "float" in kinds else "int"
            if qual.startswith("numpy.") and expr.args:
                inner = self._number_kind(expr.args[0].value)
                # numpy of a float is a float; of an int, what the function gives (`np.sqrt`)
                return "float" if inner == "float" or qual not in self.imports.numpy_keeps_int else "int"
        return "int"

    def _numpy_folds(self, call: cst.Call, qual: str) -> bool:
        """Whether dynamo folds numpy of these numbers to a constant: unless the function was
        measured breaking on a number of that kind (``np.ceil(n)`` of an int breaks)."""
        kinds = self.imports.numpy_breaks_on.get(qual)
        return not kinds or not call.args or self._number_kind(call.args[0].value) not in kinds

    def _shape_number(self, expr: cst.BaseExpression) -> bool:
        """A Python int read from a shape, a literal, a number the scope noted, or arithmetic
        (``min``, ``max``, ``abs``, ``int``, ``math.*``) on them."""
        if isinstance(expr, cst.Name):
            scope: TensorScope | None = self
            while scope is not None:
                if expr.value in scope.kinds:
                    return expr.value in scope.numbers
                scope = scope.parent
            return False
        if _literal(expr):
            return True
        if isinstance(expr, cst.BinaryOperation):
            return self._shape_number(expr.left) and self._shape_number(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return self._shape_number(expr.expression)
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
            one = len(expr.slice) == 1 and not isinstance(expr.slice[0].slice, cst.Slice)
            return expr.value.attr.value == "shape" and one
        if isinstance(expr, cst.Call):
            func = expr.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in ("size", "dim", "numel")
                and (func.attr.value != "size" or len(expr.args) == 1)
            ):
                return self.kind(func.value) == TENSOR
            qual = self.resolve(func) or ""
            if qual == "builtins.len":
                return True
            if qual in ("builtins.min", "builtins.max", "builtins.abs", "builtins.int") or qual.startswith("math."):
                return bool(expr.args) and all(self._shape_number(a.value) for a in expr.args)
        return False

    def bind_params(
        self,
        fn: cst.FunctionDef,
        tensor_params: set[str],
        all_tensors: bool,
        called_with: dict[str, str] | None = None,
        records: dict[str, str] | None = None,
        guessed_params: set[str] | None = None,
    ) -> None:
        """Bind ``fn``'s parameters: ``tensor_params`` are passed tensors here, and with
        ``all_tensors`` the rest are taken for tensors too (a root's inputs), as are
        ``guessed_params``, passed a parameter taken for one by assumption; ``called_with``:
        what every call in the project passes (``"int"``, ``"value"``, ``"tensor"``), from
        :mod:`torchlint.analysis.callsites`, which an annotation overrides unless a tensor
        is passed (``timestep: int`` handed a 0-d tensor is a tensor)."""
        params = fn.params
        called_with = called_with or {}
        every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        commented: dict[str, str] = {}
        typed = type_comment(fn)
        if typed is not None:  # (TorchScript leaves `self` out of the list)
            named = [p.name.value for p in every if p.name.value not in ("self", "cls") or self.owner is None]
            if len(named) == len(typed[0]):
                commented = dict(zip(named, typed[0]))
        for i, p in enumerate(every):
            name = p.name.value
            if i == 0 and name in ("self", "cls") and self.owner is not None:
                self.local.add(name)
                continue
            if records and name in records and p.annotation is None:
                self.bind(name, records[name])  # `step(x, RK)`: a record of the file
                continue
            passed = called_with.get(name)
            if p.annotation is not None and passed != "tensor":
                passed = None  # (an annotation gives way only to a tensor passed)
            if passed == "tensor":
                self.bind(name, TENSOR)
                continue
            if passed is not None and name not in tensor_params:
                self.bind(name, None)  # an int or another value at every call
                continue
            if p.annotation is not None or name in commented:
                text = cst.Module([]).code_for_node(p.annotation.annotation) if p.annotation else commented[name]
                said = annotation_kind(text) or self.record_kind(text)
                self.bind(name, TENSOR if said is None and name in tensor_params else said)
                continue
            is_tensor = self._param_is_tensor(p, name, tensor_params | (guessed_params or set()), all_tensors)
            self.bind(name, TENSOR if is_tensor else None)
            if is_tensor and name not in tensor_params:  # (un-annotated: those went above)
                self.guessed.add(name)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.bind(star.name.value, None)
        if self.guessed:
            # A guessed parameter that the body uses as a tensor is one: `int(t)` then reads data.
            self.guessed -= _data_evidence(fn.body, self.guessed, self.imports)

    def _param_is_tensor(self, p: cst.Param, name: str, hinted: set[str], all_tensors: bool) -> bool:
        ann = p.annotation.annotation if p.annotation is not None else None
        if ann is not None:
            # An annotation that does not name a tensor type (`torch.Size`, `torch.dtype`,
            # `int`, `MyConfig`) says the parameter is something else.
            return "Tensor" in cst.Module([]).code_for_node(ann)
        if META_NAME.search(name):
            return False  # `shape`, `dtype`, `device`, `out_size`: metadata, not data
        if p.default is not None and not (isinstance(p.default, cst.Name) and p.default.value == "None"):
            return False  # `dim=1`, `training=False`: configuration, not data
        return name in hinted or all_tensors

    def bind_target(self, target: cst.BaseExpression, kind: str | None) -> None:
        """Bind an assignment target; tuples of tensors unpack to tensors."""
        if isinstance(target, cst.Name):
            self.bind(target.value, kind)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elem = TENSOR if kind in (TENSORS, TENSOR) else HOST_DATA if kind == HOST_DATA else None
            for el in target.elements:
                inner = el.value.value if isinstance(el.value, cst.StarredElement) else el.value
                self.bind_target(inner, elem)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, None)
        elif self_attr(target) is not None:
            # `self.keep = self.w_sum > 1e-10` stored in this function: read back below it
            # (stored a value of unknown kind, it is what the class keeps there again)
            self.bind(f"self.{self_attr(target)}", kind)

    def bind_assigned(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Bind ``target = value``. A name unpacked from a call it was passed to keeps its kind
        when the call's is not known: ``images, targets = self.transform(images, targets)``
        hands back the targets it took."""
        kind = self.kind(value)
        kept: dict[str, tuple[str | None, bool]] = {}
        if kind is None and isinstance(value, cst.Call) and isinstance(target, (cst.Tuple, cst.List)):
            passed = {a.value.value for a in value.args if isinstance(a.value, cst.Name) and not a.star}
            for el in target.elements:
                name = el.value.value if isinstance(el.value, cst.Name) else None
                if name is not None and name in passed and self.lookup(name) is not None:
                    kept[name] = (self.lookup(name), self.is_guessed(name))
        self.bind_target(target, kind)
        for name, (was, guessed) in kept.items():
            self.bind(name, was)
            if guessed:
                self.guessed.add(name)
        if kind == TENSOR and not self.is_tensor_value(value):
            # `both = decoder == encoder`, `h, w = size`: a tensor only by what parameters were
            # taken for, as the value it was computed from
            for name in target_names(target):
                if self.kinds.get(name) == TENSOR:
                    self.guessed.add(name)

    def is_guessed(self, name: str) -> bool:
        """Whether ``name`` is still a parameter taken for a tensor by assumption only."""
        scope: TensorScope | None = self
        while scope is not None:
            if name in scope.kinds:
                return name in scope.guessed
            scope = scope.parent
        return False

    def lookup(self, name: str) -> str | None:
        scope: TensorScope | None = self
        while scope is not None:
            if name in scope.kinds:
                return scope.kinds[name]
            scope = scope.parent
        return None

    # -- querying ---------------------------------------------------------------------
    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.kind(expr) == TENSOR

    def is_tensor_value(self, expr: cst.BaseExpression) -> bool:
        """A tensor whose *value* is used (a truth test, a size, a number): like
        :meth:`is_tensor`, but a parameter taken for a tensor by assumption does not count when
        it stands bare (``if flag:``, ``range(n)``, ``n > 0``), since there it is usually a
        Python value; ``n.max()`` or ``x.sum() > 0`` still do."""
        if isinstance(expr, cst.Name):
            kind = self.kind(expr)
            return kind == HOST_DATA or (not self.is_guessed(expr.value) and kind == TENSOR)
        if isinstance(expr, cst.Comparison):
            if _python_comparison(expr):
                return False
            return any(self.is_tensor_value(o) for o in [expr.left] + [c.comparator for c in expr.comparisons])
        if isinstance(expr, cst.BinaryOperation):
            # `j - i`, `-j + 1` of parameters taken for tensors are numbers as much as they are
            return self.is_tensor_value(expr.left) or self.is_tensor_value(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return self.is_tensor_value(expr.expression)
        return self.kind(expr) in (TENSOR, HOST_DATA)

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.imports.resolve(expr, self.local)

    def kept_tensor(self, attr: str) -> bool:
        """Whether the class keeps ``self.<attr>`` as a tensor: a buffer or parameter it
        registers, a tensor its constructor stores (also the project's: a buffer a base class
        registers, in any file)."""
        owner = self.owner
        return owner is not None and (
            attr in owner.tensor_attrs or attr in self.imports.class_tensors.get(owner.name, ())
        )

    def kind(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.Name):
            found = self.lookup(expr.value)
            if found is not None or expr.value in self.local:
                return found
            record = _RECORD_NAMES.get(self.imports, {}).get(expr.value)
            return record if record is not None else self._project_kind(expr, "=")
        if isinstance(expr, cst.Attribute):
            base = expr.value
            if isinstance(base, cst.Name) and base.value == "self" and self.owner is not None:
                attr = expr.attr.value
                stored = self.lookup(f"self.{attr}")
                if stored is not None:
                    return stored
                if self.kept_tensor(attr) or attr in self.owner.passed_tensors:
                    return TENSOR
                if attr in self.owner.submodules or f"{self.owner.name}.{attr}" in self.imports.handed_modules:
                    return MODULE
                return None
            projected = self._project_kind(expr, "=")
            if projected is not None:
                return projected
            child = self_attr(base)
            if child is not None and self.owner is not None:
                held = self.imports.class_tensors.get(self.owner.submodules.get(child, ""), frozenset())
                if expr.attr.value in held:
                    return TENSOR  # self.child.buffer, of a project class that registers it
                if expr.attr.value in self.imports.handed_tensors.get(f"{self.owner.name}.{child}", ()):
                    return TENSOR  # ... or of every object the constructor is handed for it
            base_kind = self.kind(base)
            if base_kind is not None and base_kind.startswith(RECORD):  # `state.t` of a record
                return _RECORDS.get(self.imports, {}).get(base_kind[len(RECORD) :], {}).get(expr.attr.value)
            if base_kind == TENSOR and expr.attr.value in TENSOR_ATTRS:
                return TENSOR
            if base_kind == HOST_DATA and expr.attr.value in ("T", "real", "imag", "flat"):
                return HOST_DATA  # `np.asarray(rows).T`
            if base_kind == MODULE and expr.attr.value in ("weight", "bias"):
                return TENSOR
            return None
        if isinstance(expr, cst.Call):
            return self._call_kind(expr)
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                return None  # "%f" % t is a string
            if self.is_tensor(expr.left) or self.is_tensor(expr.right):
                return TENSOR
            if HOST_DATA in (self.kind(expr.left), self.kind(expr.right)):
                return HOST_DATA
            return None
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            inner = self.kind(expr.expression)
            return inner if inner in (TENSOR, HOST_DATA) else None
        if isinstance(expr, cst.Comparison):
            if _python_comparison(expr):
                return None
            operands = [expr.left] + [c.comparator for c in expr.comparisons]
            if any(self.is_tensor(o) for o in operands):
                return TENSOR
            return HOST_DATA if any(self.kind(o) == HOST_DATA for o in operands) else None
        if isinstance(expr, cst.Subscript):
            base_kind = self.kind(expr.value)
            if base_kind in (TENSOR, HOST_DATA):
                return base_kind
            if base_kind == TENSORS:
                return TENSOR if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) else None
            if base_kind == MODULE:
                return MODULE  # self.blocks[i]
            if base_kind in (TENSOR_DICT, TENSOR_DICTS):
                one = len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                return (TENSOR if base_kind == TENSOR_DICT else TENSOR_DICT) if one else None
            if base_kind is None and len(expr.slice) > 1 and any(self._known_tensor_index(e) for e in expr.slice):
                return TENSOR  # `mat[rows, cols]` with index tensors: only an array takes them
            return None
        if isinstance(expr, cst.Dict):
            values = [e.value for e in expr.elements if isinstance(e, cst.DictElement)]
            if values and len(values) == len(expr.elements) and all(self.is_tensor(v) for v in values):
                return TENSOR_DICT
            return None
        if isinstance(expr, cst.BooleanOperation):
            # `a and b` is one of its operands: a tensor when both are, and `flag and t` is `t`
            # whenever the flag holds (`not self.batch_first and mask[0].all()`); numpy's results
            # likewise (`np.any(space.low != 0) or np.any(space.high != 255)`): host data
            sides = [expr.right] if isinstance(expr.operator, cst.And) else [expr.left, expr.right]
            kinds = {self.kind(side) for side in sides}
            if kinds == {TENSOR}:
                return TENSOR
            return HOST_DATA if kinds <= {TENSOR, HOST_DATA} else None
        if isinstance(expr, cst.IfExp):
            if self.is_tensor(expr.body) and self.is_tensor(expr.orelse):
                return TENSOR
            return None
        if isinstance(expr, cst.ListComp):
            return TENSORS if self.element_kind(expr) == TENSOR else None
        if isinstance(expr, (cst.Tuple, cst.List)):
            if expr.elements and all(
                not isinstance(e, cst.StarredElement) and self.is_tensor(e.value) for e in expr.elements
            ):
                return TENSORS
            return None
        return None

    def _known_tensor_index(self, element: cst.SubscriptElement) -> bool:
        """An index that is a tensor by evidence, not a parameter taken for one."""
        index = element.slice
        if not isinstance(index, cst.Index):
            return False
        value = index.value
        return self.kind(value) == TENSOR and not (isinstance(value, cst.Name) and self.is_guessed(value.value))

    def _number_math(self, expr: cst.BaseExpression) -> bool:
        """Arithmetic, a literal, or numpy math on them (``np.sqrt(40.0 * n)``): a number
        when what it works on is."""
        if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)) or _literal(expr):
            return True
        if self._shape_number(expr):
            return True  # `n = x.shape[-1] // 2; np.sqrt(n)`, `np.log2(max(n, 2))`
        qual = self.resolve(expr.func) if isinstance(expr, cst.Call) else None
        return (
            isinstance(expr, cst.Call)
            and (qual or "").startswith("numpy.")
            and bool(expr.args)
            and all(self._number_math(a.value) for a in expr.args)
            and self._numpy_folds(expr, qual or "")
        )

    def _project_kind(self, expr: cst.BaseExpression, prefix: str = "") -> str | None:
        """What the project says a call of ``expr`` (or, with ``prefix`` "=", its value) is:
        functions annotated ``-> torch.Tensor`` and module-level tensors of any project file."""
        returns = self.imports.returns
        if not returns:
            return None
        name = dotted(expr)
        if name is None or name.split(".", 1)[0] in self.local:
            return None
        return returns.get(prefix + (self.imports.resolve(expr) or name))

    def _call_kind(self, call: cst.Call) -> str | None:
        func = call.func
        record = self._record_made(call)
        if record is not None:
            return record
        projected = self._project_kind(func)
        if projected is not None:
            return projected
        if isinstance(func, cst.Attribute) and self.owner is not None:
            held = self_attr(func.value)
            # `self.box_coder.decode(x)`: a method of an object the class keeps, that returns one
            found = self.imports.returns.get(f"{self.owner.name}.self.{held}.{func.attr.value}") if held else None
            if found is not None:
                return found
        qual = self.resolve(func)
        if (
            qual is not None
            and not qual.startswith("torch.")
            and isinstance(func, cst.Attribute)
            and self.kind(func.value) is not None
        ):
            qual = None  # a method of a project value whose kind is known (`MASK.sum()`)
        if qual is not None and (qual in RANDOM_INTS or qual.startswith("numpy.")):
            if qual in RANDOM_INTS:
                return HOST_DATA
            if qual.startswith("numpy.random."):
                return None  # the draw itself breaks (TL009); what it returns is not known
            if call.args and all(_number_literal(a.value) for a in call.args):
                # numpy of literal numbers: folded, unless measured breaking (`np.int64(3)`)
                return None if self._numpy_folds(call, qual) else HOST_DATA
            if call.args and not all(_literal(a.value) for a in call.args):
                # numpy math on Python numbers (`np.ceil(h / w)`, h from a shape) is folded to a
                # constant; what gets an array (a list, an array, a tensor) is traced as one
                if (
                    all(self._number_math(a.value) for a in call.args)
                    and not any(self.kind(a.value) in (TENSOR, HOST_DATA) for a in call.args)
                    and self._numpy_folds(call, qual)
                ):
                    return None
                return HOST_DATA
            return None
        if (
            qual is None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and self.owner is not None
        ):
            method = self.owner.methods.get(func.attr.value)
            if method is not None and returns_random_int(method, self.imports):
                return HOST_DATA
        if qual is None and isinstance(func, cst.Name):
            helper = _FUNCTIONS.get(self.imports, {}).get(func.value)
            if helper is not None and func.value not in self.local and returns_random_int(helper, self.imports):
                return HOST_DATA
        if qual is None:
            returned = self._helper_returns(call)
            if returned is not None:
                return returned
        if qual in ("builtins.tuple", "builtins.list") and len(call.args) == 1 and call.args[0].keyword is None:
            arg = call.args[0].value  # `tuple(params[k] for k in keys)`, `list(x.unbind(0))`
            if isinstance(arg, (cst.GeneratorExp, cst.ListComp)):
                return TENSORS if self.element_kind(arg) == TENSOR else None
            return TENSORS if self.kind(arg) in (TENSOR, TENSORS) else None
        if qual is not None:
            if any(qual.startswith(ns) for ns in NOT_TENSOR_NAMESPACES) and not qual.startswith(
                ("torch.nn.functional.",)
            ):
                if qual == "torch.nn.Parameter":
                    return TENSOR
                return None
            if qual.startswith(TENSOR_NAMESPACES):
                last = qual.rsplit(".", 1)[-1]
                if (
                    last in NON_TENSOR_TORCH
                    or last[:1].isupper()
                    or last.startswith("_")
                    or last.startswith(_NON_TENSOR_PREFIXES)
                ):
                    return None
                if last in TENSORS_TORCH:
                    return TENSORS
                if last in DIM_PAIR and (
                    len(call.args) >= 2 and call.args[1].keyword is None or _has_keyword(call, "dim")
                ):
                    # `torch.max(a, b)` of two tensors is their elementwise maximum
                    other = call.args[1] if len(call.args) >= 2 and call.args[1].keyword is None else None
                    return TENSOR if other is not None and self._elementwise_other(last, other) else TENSORS
                return TENSOR
            return None
        func_kind = self.kind(func)
        if func_kind == MODULE:
            attr = func.attr.value if isinstance(func, cst.Attribute) else None
            return self._module_call_kind(attr)
        if isinstance(func, cst.Attribute):
            base_kind = self.kind(func.value)
            method_name = func.attr.value
            if base_kind == HOST_DATA:
                return HOST_DATA  # a.mean(), a.sum() of an array
            if base_kind == TENSOR and method_name == "numpy":
                return HOST_DATA
            if base_kind == TENSOR:
                if method_name in NON_TENSOR_METHODS or method_name not in tensor_method_names():
                    return None
                if method_name in TENSORS_METHODS:
                    return TENSORS
                if method_name in DIM_PAIR and (
                    call.args and call.args[0].keyword is None or _has_keyword(call, "dim")
                ):
                    other = call.args[0] if call.args and call.args[0].keyword is None else None
                    return TENSOR if other is not None and self._elementwise_other(method_name, other) else TENSORS
                return TENSOR
            if base_kind is None and method_name in ONLY_TENSOR_METHODS and not self._namespace(func.value):
                return TENSOR  # `norm(y / scale).abs()`: only a tensor has it
            return None
        return None

    def _elementwise_other(self, name: str, arg: cst.Arg) -> bool:
        """Whether ``max``/``min``'s second operand is a tensor (``torch.max(a, b)``: the
        elementwise maximum), not a ``dim``."""
        return name in ("max", "min") and self.is_tensor(arg.value)

    def _namespace(self, expr: cst.BaseExpression) -> bool:
        """``self``, a module alias (``np``, ``math``) or an attribute of one."""
        while isinstance(expr, cst.Attribute):
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return False
        return expr.value == "self" or self.imports.resolve(expr) is not None and expr.value not in self.local

    def record_kind(self, text: str) -> str | None:
        """``"record:State"`` for an annotation naming a record class of the file (``State``,
        ``Optional[State]``, ``"State"``), else None."""
        records = _RECORDS.get(self.imports)
        if not records:
            return None
        name = text.strip().strip("'\"")
        for wrapper in ("Optional[", "typing.Optional["):
            if name.startswith(wrapper) and name.endswith("]"):
                name = name[len(wrapper) : -1].strip()
        name = name.split("|")[0].strip()
        return RECORD + name if name in records else None

    def _record_made(self, call: cst.Call) -> str | None:
        """A record made (``State(t, y)``) or returned by a same-file function or method
        annotated to return one (``def advance(s: State) -> State``)."""
        records = _RECORDS.get(self.imports)
        if not records:
            return None
        func = call.func
        if isinstance(func, cst.Name) and func.value not in self.local and func.value in records:
            self.note_record_fields(call)
            return RECORD + func.value
        fn: cst.FunctionDef | None = None
        if isinstance(func, cst.Name) and func.value not in self.local:
            fn = _FUNCTIONS.get(self.imports, {}).get(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            fn = self.owner.methods.get(func.attr.value) if self.owner is not None else None
        if fn is not None and fn.returns is not None:
            return self.record_kind(cst.Module([]).code_for_node(fn.returns.annotation))
        return None

    def note_record_fields(self, call: cst.Call) -> None:
        """At a construction of a record (``Pair(a=x.mean(), b=x)``): the fields it passes a
        tensor hold tensors."""
        func = call.func
        records = _RECORDS.get(self.imports, {})
        if not isinstance(func, cst.Name) or func.value not in records:
            return
        fields = records[func.value]
        order = list(fields)
        for i, arg in enumerate(call.args):
            if arg.star:
                break
            name = arg.keyword.value if arg.keyword is not None else (order[i] if i < len(order) else None)
            if name in fields and fields[name] is None and self.is_tensor(arg.value):
                fields[name] = TENSOR

    def _helper_returns(self, call: cst.Call) -> str | None:
        """What a same-file helper (``helper(x)``, ``self.helper(x)``) returns with these
        arguments: tensors when every ``return`` gives a tuple of them (``return h, attn``)."""
        func = call.func
        fn: cst.FunctionDef | None = None
        owner = None
        if isinstance(func, cst.Name) and func.value not in self.local:
            fn = _FUNCTIONS.get(self.imports, {}).get(func.value)
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and self.owner is not None
        ):
            fn, owner = self.owner.methods.get(func.attr.value), self.owner
        if fn is None or any(a.star or a.keyword is not None for a in call.args):
            return None
        memo = _RETURNED.setdefault(self.imports, {})
        passed = tuple(self.is_tensor(a.value) for a in call.args)
        key = (id(fn), passed)
        if key in memo:
            return memo[key]
        memo[key] = None  # (a helper that calls itself: nothing more from the inner call)
        params = [p.name.value for p in list(fn.params.posonly_params) + list(fn.params.params)]
        if owner is not None and params[:1] in (["self"], ["cls"]):
            params = params[1:]
        scope = TensorScope(self.imports, owner)
        scope.bind_params(fn, {n for n, t in zip(params, passed) if t}, all_tensors=False)
        kinds: list[str | None] = []
        scope._run(fn.body, kinds)
        found = kinds[0] if kinds and kinds[0] in (TENSOR, TENSORS) and all(k == kinds[0] for k in kinds) else None
        memo[key] = found
        return found

    def _run(self, node: cst.CSTNode, returns: list[str | None]) -> None:
        """Bind the assignments of a body in order, noting the kind of each ``return``."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(node, cst.Return):
            returns.append(self.kind(node.value) if node.value is not None else None)
            return
        if isinstance(node, cst.Assign):
            kind = self.kind(node.value)
            for target in node.targets:
                self.bind_target(target.target, kind)
            return
        if isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.bind_target(node.target, self.kind(node.value))
            return
        if isinstance(node, cst.AugAssign):
            if isinstance(node.target, cst.Name) and self.is_tensor(node.value):
                self.bind(node.target.value, TENSOR)
            return
        if isinstance(node, cst.For):
            self.bind_loop(node.target, node.iter)
        if isinstance(node, cst.BaseExpression):
            return
        for child in code_children(node):
            self._run(child, returns)

    def _module_call_kind(self, attr: str | None) -> str | None:
        if attr is not None and self.owner is not None:
            qual = self.owner.submodules.get(attr)
            if qual in TUPLE_MODULES:
                return TENSORS if qual != "torch.nn.ModuleList" else None
            if qual is None and self.imports.handed_modules.get(f"{self.owner.name}.{attr}") == TENSOR_DICT:
                return TENSOR_DICT
        return TENSOR

    def bind_loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """Bind the target of ``for target in iterable``: ``zip(a, b)`` unpacks to an element
        of each, ``enumerate(a)`` to an int and an element of ``a``."""
        parts = self._unpacked_kinds(iterable)
        if parts is not None and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(parts):
            if not any(isinstance(el.value, cst.StarredElement) for el in target.elements):
                for el, (kind, sub) in zip(target.elements, parts):
                    if sub is not None:
                        self.bind_loop(el.value, sub)
                    else:
                        self.bind_target(el.value, kind)
                return
        self.bind_target(target, self.iter_element_kind(iterable))

    def _unpacked_kinds(
        self, iterable: cst.BaseExpression
    ) -> list[tuple[str | None, cst.BaseExpression | None]] | None:
        """Per position of the element of ``zip(...)`` / ``enumerate(...)``: its kind, or the
        iterable it is an element of (to unpack further); None for other iterables."""
        if not isinstance(iterable, cst.Call) or any(a.keyword is not None or a.star for a in iterable.args):
            return None
        qual = self.resolve(iterable.func)
        if qual == "builtins.zip" and iterable.args:
            return [(self.iter_element_kind(a.value), a.value if _is_pairs(a.value) else None) for a in iterable.args]
        if (
            isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items"
            and not iterable.args
            and self.kind(iterable.func.value) == TENSOR_DICT
        ):
            return [(None, None), (TENSOR, None)]
        if qual == "builtins.enumerate" and len(iterable.args) == 1:
            arg = iterable.args[0].value
            return [(None, None), (self.iter_element_kind(arg), arg if _is_pairs(arg) else None)]
        return None

    def element_kind(self, comp: cst.GeneratorExp | cst.ListComp) -> str | None:
        """The kind of the element a one-loop comprehension makes (``t * 2 for t in x``)."""
        if comp.for_in.inner_for_in is not None:
            return None
        inner = TensorScope(self.imports, self.owner, parent=self)
        inner.bind_loop(comp.for_in.target, comp.for_in.iter)
        return inner.kind(comp.elt)

    def iter_element_kind(self, iterable: cst.BaseExpression) -> str | None:
        """The kind of the loop variable of ``for v in iterable``."""
        kind = self.kind(iterable)
        if kind == TENSOR or kind == TENSORS:
            return TENSOR
        if kind == HOST_DATA:
            return HOST_DATA  # the rows of an array dynamo traces as a tensor
        if kind == MODULE:
            return MODULE  # for block in self.blocks
        if kind == TENSOR_DICTS:
            return TENSOR_DICT  # for target in targets: List[Dict[str, Tensor]]
        if isinstance(iterable, cst.Call):
            qual = self.resolve(iterable.func)
            if qual in ("builtins.zip",):
                return None
            if (
                isinstance(iterable.func, cst.Attribute)
                and iterable.func.attr.value == "values"
                and self.kind(iterable.func.value) == TENSOR_DICT
            ):
                return TENSOR
            if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in (
                "values",
                "children",
                "modules",
            ):
                if self.kind(iterable.func.value) == MODULE:
                    return MODULE
        return None


#: the types an ``isinstance`` test can name that no tensor is
_NOT_TENSOR_TYPES = frozenset(
    {
        "builtins.int",
        "builtins.float",
        "builtins.bool",
        "builtins.complex",
        "builtins.str",
        "builtins.bytes",
        "builtins.list",
        "builtins.tuple",
        "builtins.dict",
        "builtins.set",
        "numbers.Number",
        "numbers.Real",
        "numbers.Integral",
        "numbers.Complex",
    }
)


def not_tensors_when(test: cst.BaseExpression, scope: TensorScope) -> list[str]:
    """The names ``test`` proves no tensor where it holds: ``isinstance(a, float)``, each
    operand of an ``and`` (``not is_compiling() and isinstance(gamma, (int, float))``)."""
    if isinstance(test, cst.BooleanOperation):
        if not isinstance(test.operator, cst.And):
            return []
        return not_tensors_when(test.left, scope) + not_tensors_when(test.right, scope)
    if not (isinstance(test, cst.Call) and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return []
    if scope.resolve(test.func) != "builtins.isinstance":
        return []
    kinds = test.args[1].value
    named = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    if all(isinstance(n, (cst.Name, cst.Attribute)) and scope.resolve(n) in _NOT_TENSOR_TYPES for n in named):
        return [test.args[0].value.value]
    return []


def narrowed_in(test: cst.BaseExpression, scope: TensorScope, names: frozenset[str] = frozenset()) -> set[int]:
    """The ids of the bare names in ``test`` that an ``isinstance`` before them in an ``and``
    proves no tensor (``isinstance(d, list) and d``: the truth of a list)."""
    if isinstance(test, cst.BooleanOperation):
        left = narrowed_in(test.left, scope, names)
        if isinstance(test.operator, cst.And):
            names = names | frozenset(not_tensors_when(test.left, scope))
        return left | narrowed_in(test.right, scope, names)
    if isinstance(test, cst.UnaryOperation):
        return narrowed_in(test.expression, scope, names)
    return {id(test)} if isinstance(test, cst.Name) and test.value in names else set()
