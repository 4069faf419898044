"""Which functions of a file torch.compile would trace: the compiled regions.

Roots are ``forward`` of ``nn.Module`` subclasses, functions decorated with
``@torch.compile``, and functions or modules handed to ``torch.compile(...)`` in the same
file. Same-file functions and methods called from a region join it, transitively, and keep
the name of the root that reached them ("called from Net.forward"). ``__init__`` and
functions decorated with ``@torch.compiler.disable`` never join.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from torchlint.analysis.names import ImportTable, param_names, self_attr
from torchlint.analysis.torchnames import (  # noqa: F401 - re-exported
    AUTOGRAD_FUNCTION,
    COMPILE_CALLS,
    DISABLE_DECORATORS,
    IS_COMPILING,
    JIT_MODULE_MAKERS,
    LABEL_PARAMS,
    MODULE_BASES,
    NOT_MODULES,
    NOT_WHILE_COMPILING,
    OPAQUE_DECORATORS,
    is_module_class_name,
)
from torchlint.analysis.tree import code_children


@dataclass
class ClassInfo:
    node: cst.ClassDef
    name: str
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    base_names: list[str] = field(default_factory=list)  # same-file bases, by name
    is_module: bool = False
    #: a ``torch.autograd.Function`` subclass: ``Cls.apply(...)`` runs its ``forward``, which
    #: dynamo traces
    is_autograd_function: bool = False
    #: autograd Functions defined in the class body (``self._Double.apply(x)``): name -> info
    nested_functions: dict[str, ClassInfo] = field(default_factory=dict)
    # self.<attr> = <call> in __init__: attr -> qualified name of the callee (or class name)
    submodules: dict[str, str] = field(default_factory=dict)
    #: the submodules ``__init__`` makes under a test of a setting it keeps (``self.kind =
    #: kind``; ``if kind == "lstm": self.net = nn.LSTM(...)``): (the setting's attribute, the
    #: value tested) -> attr -> what made it, as :attr:`submodules` holds
    switched: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    #: self.<attr> = <call> in __init__, whatever the callee: attr -> its qualified name (an
    #: installed package's class, read for what calling the object runs)
    made_by: dict[str, str] = field(default_factory=dict)
    tensor_attrs: set[str] = field(default_factory=set)
    #: attributes a constructor keeps as handed where some construction in the project hands a
    #: tensor (the project's ``passed_tensors`` facts): tensors to read, not buffers it owns
    passed_tensors: set[str] = field(default_factory=set)
    #: self.<attr> = f in __init__ (``self.search_fn = native_search``, ``self.spike_fn =
    #: Spike.apply``): attr -> what calling it runs, (function, qualname, owner) as
    #: :func:`resolve_callee` gives
    function_refs: dict[str, list[tuple[cst.FunctionDef, str, ClassInfo | None]]] = field(default_factory=dict)
    #: attributes some method sets to a sparse tensor (the project's ``sparse`` facts)
    sparse_attrs: set[str] = field(default_factory=set)


@dataclass
class Region:
    """A function that torch.compile would trace."""

    node: cst.FunctionDef
    qualname: str  # "Net.forward", "helper"
    root: str  # the root region that reaches it
    owner: ClassInfo | None = None
    is_root: bool = True
    # reached from a region in another file: its callers' arguments are not seen here
    cross_file: bool = False
    # parameters known to receive tensors (from call sites or because this is a root)
    tensor_params: set[str] = field(default_factory=set)
    #: parameters passed a record of the file at its calls (``step(x, RK)``): name -> kind
    record_params: dict[str, str] = field(default_factory=dict)
    #: parameters some call hands a tensor the caller computed (not its own input, passed on)
    computed_params: set[str] = field(default_factory=set)
    #: parameters calls hand only a parameter of their own taken for a tensor by assumption (a
    #: root's ``length=None`` passed on): taken for one here too, by the same assumption
    guessed_params: set[str] = field(default_factory=set)
    #: flags of ``self`` every compiled call of this method sees alike (``if self.merged:
    #: self.unmerge()``): the tests it opens with on them are decided (:func:`entry_decisions`)
    entry: dict[str, bool] = field(default_factory=dict)
    #: parameters with a constant default every compiled call leaves out, where those calls
    #: are all seen here: name -> ``"None"`` / ``"True"`` / ``"False"``
    defaults: dict[str, str] = field(default_factory=dict)
    #: parameters some call of the project hands a sparse tensor (or a tuple holding one)
    sparse_params: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        return self.qualname if self.is_root else f"{self.qualname} (called from {self.root})"


@dataclass
class ModuleIndex:
    """Classes and functions defined at a file's top level, with what they are."""

    imports: ImportTable
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # module-level `name = ClassName(...)` bindings, for torch.compile(name)
    instances: dict[str, str] = field(default_factory=dict)
    # module-level `name = Fn.apply` bindings of a same-file autograd Function: name -> class
    applies: dict[str, str] = field(default_factory=dict)
    # module-level `name = torch.jit.script(Module())` bindings: name -> the maker
    scripted: dict[str, str] = field(default_factory=dict)
    compile_args: list[cst.BaseExpression] = field(default_factory=list)
    #: the static pass checks training-only code too (``--train``); else eval mode is assumed
    train: bool = False
    #: and half-precision-only code (``--half``); else float32 is assumed
    half: bool = False
    #: the module is in training mode (``self.training`` true, labels given): the pass that
    #: finds what breaks only in training; else ``train`` says whether the flag is known
    training: bool = False
    #: the parameters of the function being checked that hold a known constant (``"None"``,
    #: ``"True"``, ``"False"``): no call passes them (set by the walk, region by region)
    constants: dict[str, str] = field(default_factory=dict)
    #: the tests of the function being checked that the flags its calls see decide, by node
    #: id (:func:`entry_decisions`; set by the walk, region by region)
    decided: dict[int, bool] = field(default_factory=dict)

    def truth(self, test: cst.BaseExpression) -> bool | None:
        """:func:`branch_truth` of an ``if`` test in this file."""
        if self.decided:
            known = self.decided.get(id(test))
            if known is not None:
                return known
        return branch_truth(test, self.imports, self.train, self.half, self.training, self.constants)

    def operands(self, test: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The operands of a test's ``and``/``or``/``not`` that run, in order, and whose value
        is not known: ``x.any() and self.training`` still reads ``x.any()`` in eval mode,
        ``self.training and x.any()`` never does."""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if isinstance(test, cst.BooleanOperation):
            left = self.operands(test.left)
            decided = self.truth(test.left) is (isinstance(test.operator, cst.Or))
            return left if decided else left + self.operands(test.right)
        return [] if self.truth(test) is not None else [test]

    def live_statements(self, block: cst.IndentedBlock) -> Sequence[cst.BaseStatement]:
        """A block's statements up to an ``if`` that is known to be taken and always leaves
        (``if not self.training: return x`` in eval mode): what follows it never runs."""
        body = block.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.If) and self.truth(stmt.test) is True and _leaves(stmt.body):
                return body[: i + 1]
        return body

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.imports.resolve(expr)

    def decorated_by(self, fn: cst.FunctionDef, names: Set[str]) -> bool:
        """Whether a decorator of ``fn`` (``@d`` or ``@d(...)``) resolves to one of ``names``."""
        for dec in fn.decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            if self.resolve(target) in names:
                return True
        return False

    def is_disabled(self, fn: cst.FunctionDef) -> bool:
        return self.decorated_by(fn, DISABLE_DECORATORS)

    def is_opaque(self, fn: cst.FunctionDef) -> bool:
        """A ``@torch.library.custom_op`` function: dynamo calls it as one operator and never
        traces its body (no break either)."""
        return self.decorated_by(fn, OPAQUE_DECORATORS)

    def untraced(self, fn: cst.FunctionDef) -> bool:
        return self.is_disabled(fn) or self.is_opaque(fn)

    def is_compile_decorated(self, fn: cst.FunctionDef) -> bool:
        return self.decorated_by(fn, COMPILE_CALLS)


_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _leaves(block: cst.BaseSuite) -> bool:
    """Whether a block always ends in ``return``, ``raise``, ``continue`` or ``break``."""
    last = block.body[-1] if isinstance(block, cst.IndentedBlock) and block.body else None
    if isinstance(block, cst.SimpleStatementSuite):
        small = block.body
    elif isinstance(last, cst.SimpleStatementLine):
        small = last.body
    else:
        return False
    return bool(small) and isinstance(small[-1], _EXITS)


def is_compiling_guard(test: cst.BaseExpression, imports: ImportTable) -> bool | None:
    """``True`` for ``is_compiling()``, ``False`` for ``not is_compiling()`` (and the reverse
    for ``torch.jit.is_scripting()`` / ``is_tracing()``, false under dynamo), else ``None``."""
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated = not negated
        test = test.expression
    if isinstance(test, cst.Call):
        name = imports.resolve(test.func)
        if name in IS_COMPILING:
            return not negated
        if name in NOT_WHILE_COMPILING:  # `torch.jit.is_scripting()`: False under dynamo
            return negated
    return None


def is_training_test(test: cst.BaseExpression) -> bool | None:
    """True for a test that holds only in training: ``self.training`` (the flag ``train()`` /
    ``eval()`` set) or ``labels is not None`` (a loss is computed); False for ``labels is
    None``; else None."""
    if isinstance(test, cst.Attribute) and test.attr.value == "training":
        return True
    none = _none_test(test)
    if none is not None and none[0] in LABEL_PARAMS:
        return not none[1]
    return None


def _none_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """For ``name is None``: (name, True); for ``name is not None``: (name, False); the same
    for ``self.<attr>``, named ``self.<attr>``."""
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
    ):
        left = test.left
        attr = self_attr(left)
        name = left.value if isinstance(left, cst.Name) else f"self.{attr}" if attr is not None else None
        return (name, isinstance(test.comparisons[0].operator, cst.Is)) if name is not None else None
    return None


HALF_DTYPES = frozenset({"torch.float16", "torch.half", "torch.bfloat16"})


def half_dtype_test(test: cst.BaseExpression, imports: ImportTable) -> bool | None:
    """For ``x.dtype == torch.float16`` (``is``, ``in (torch.float16, torch.bfloat16)``):
    True; for ``!=`` / ``is not`` / ``not in``: False (the test holds in float32); else None."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    left, right = test.left, target.comparator
    if not (isinstance(left, cst.Attribute) and left.attr.value == "dtype"):
        left, right = right, left
    if not (isinstance(left, cst.Attribute) and left.attr.value == "dtype"):
        return None
    values = [e.value for e in right.elements] if isinstance(right, (cst.Tuple, cst.List, cst.Set)) else [right]
    if not values or any(imports.resolve(v) not in HALF_DTYPES for v in values):
        return None
    op = target.operator
    if isinstance(op, (cst.Equal, cst.Is, cst.In)):
        return True
    if isinstance(op, (cst.NotEqual, cst.IsNot, cst.NotIn)):
        return False
    return None


def constant_truth(test: cst.BaseExpression, constants: dict[str, str]) -> bool | None:
    """``flag``, ``mask is None``, ``mask is not None`` of a name known to hold ``None``,
    ``True`` or ``False`` (or of ``self.<attr>`` known to, keyed ``self.<attr>``): what the
    test is; else None."""
    if isinstance(test, cst.Name) and test.value in constants:
        return constants[test.value] == "True"
    attr = self_attr(test)  # `self.reset_delay`, kept from the constructor (key `self.<attr>`)
    if attr is not None and f"self.{attr}" in constants:
        return constants[f"self.{attr}"] == "True"
    none = _none_test(test)
    if none is not None and none[0] in constants:
        return (constants[none[0]] == "None") is none[1]
    return None


def branch_truth(
    test: cst.BaseExpression,
    imports: ImportTable,
    train: bool = False,
    half: bool = False,
    training: bool = False,
    constants: dict[str, str] | None = None,
) -> bool | None:
    """What an ``if`` test is while dynamo traces, when that is known without the data.

    ``is_compiling()`` is true. Unless ``train``, the module is in eval mode (as the dynamic
    pass runs targets by default), so ``self.training`` is false and no ``labels`` are given;
    with ``train`` both are unknown (a model trained with ``torch.compile`` is evaluated by the
    same code too). With ``training`` the module is in training mode: ``self.training`` is
    true and labels are given.
    Unless ``half``, tensors are float32 (what modules are built with), so a test for a
    half-precision dtype is false; with ``half`` it is unknown.
    A parameter of ``constants`` holds that constant (no call passes it: ``if safe_merge:``).
    ``not``, ``and`` and ``or`` combine these; anything else is ``None`` (decided by values)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = branch_truth(test.expression, imports, train, half, training, constants)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = branch_truth(test.left, imports, train, half, training, constants)
        right = branch_truth(test.right, imports, train, half, training, constants)
        if isinstance(test.operator, cst.And):
            if left is False or right is False:
                return False
            return True if left is True and right is True else None
        if left is True or right is True:
            return True
        return False if left is False and right is False else None
    if training or not train:
        holds_in_training = is_training_test(test)
        if holds_in_training is not None:
            return holds_in_training if training else not holds_in_training
    if not half:
        dtype = half_dtype_test(test, imports)
        if dtype is not None:
            return not dtype
    if constants:
        known = constant_truth(test, constants)
        if known is not None:
            return known
    return is_compiling_guard(test, imports)


def build_index(
    module: cst.Module, imports: ImportTable, train: bool = False, half: bool = False, training: bool = False
) -> ModuleIndex:
    index = ModuleIndex(imports=imports, train=train or training, half=half, training=training)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            index.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            info = ClassInfo(node=stmt, name=stmt.name.value)
            info.is_module = info.name in imports.module_local
            for arg in stmt.bases:
                qual = imports.resolve(arg.value)
                if is_module_class_name(qual) or qual in imports.module_classes:
                    info.is_module = True
                elif qual in AUTOGRAD_FUNCTION:
                    info.is_autograd_function = True
                elif isinstance(arg.value, cst.Name):
                    info.base_names.append(arg.value.value)
            for item in stmt.body.body:
                if isinstance(item, cst.FunctionDef):
                    if not (item.name.value in info.methods and _accessor(item)):
                        info.methods[item.name.value] = item  # (a property's getter is what is read)
                elif isinstance(item, cst.ClassDef) and any(
                    imports.resolve(a.value) in AUTOGRAD_FUNCTION for a in item.bases
                ):
                    inner = ClassInfo(node=item, name=f"{info.name}.{item.name.value}", is_autograd_function=True)
                    inner.methods = {m.name.value: m for m in item.body.body if isinstance(m, cst.FunctionDef)}
                    info.nested_functions[item.name.value] = inner
            index.classes[info.name] = info
    # Module-ness (and autograd Function-ness) through same-file bases, to a fixed point.
    changed = True
    while changed:
        changed = False
        for info in index.classes.values():
            bases = [index.classes[b] for b in info.base_names if b in index.classes]
            if not info.is_module and any(b.is_module for b in bases):
                info.is_module = True
                changed = True
            if not info.is_autograd_function and any(b.is_autograd_function for b in bases):
                info.is_autograd_function = True
                changed = True
    for stmt in module.body:  # `double = Double.apply`
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target, cls = small.targets[0].target, _applied_class(small.value, index)
                    if isinstance(target, cst.Name) and cls is not None:
                        index.applies[target.value] = cls
    for info in index.classes.values():
        init = info.methods.get("__init__")
        if init is not None:
            _scan_init(init, info, index)
            _switched(init, info, index)
            for helper in _self_calls(init):  # `self._reset_buffer(mode)`: built there too
                if helper != "__init__" and helper in info.methods:
                    _scan_init(info.methods[helper], info, index)
        for name, fn in info.methods.items():  # what any method registers is a tensor
            if name != "__init__":
                info.tensor_attrs.update(_registered(fn))
    changed = True
    while changed:  # and a same-file base's tensors are its subclasses'
        changed = False
        for info in index.classes.values():
            for base in info.base_names:
                extra = index.classes[base].tensor_attrs - info.tensor_attrs if base in index.classes else set()
                if extra:
                    info.tensor_attrs |= extra
                    changed = True
    _CompileCallScanner(index).scan(module)
    return index


def _makes_module(call: cst.Call, index: ModuleIndex) -> bool:
    """Whether ``torch.jit.script(...)`` (or ``trace``, ``freeze``) is given a module: a module
    class called in place (``torch.jit.script(nn.Linear(4, 4))``, a same-file module class), or
    another such call (``torch.jit.freeze(torch.jit.script(m()))``)."""
    if not call.args or not isinstance(call.args[0].value, cst.Call):
        return False
    inner = call.args[0].value
    qual = index.resolve(inner.func)
    if qual in JIT_MODULE_MAKERS:
        return _makes_module(inner, index)
    if qual is not None and (is_module_class_name(qual) or qual in index.imports.module_classes):
        return True
    if isinstance(inner.func, cst.Name) and inner.func.value in index.classes:
        return index.classes[inner.func.value].is_module
    return False


def _kept_functions(value: cst.BaseExpression, info: ClassInfo, index: ModuleIndex) -> list:
    """What calling ``value`` runs, for ``self.<attr> = value`` (either arm of ``a if c else
    b``): a same-file function by name, or the forward of a same-file autograd Function's
    ``apply`` (``Spike.apply``, ``self.Spike.apply`` of one defined in the class)."""
    if isinstance(value, cst.IfExp):
        return _kept_functions(value.body, info, index) + _kept_functions(value.orelse, info, index)
    if isinstance(value, cst.Name) and value.value in index.functions:
        return [(index.functions[value.value], value.value, None)]
    if isinstance(value, cst.Attribute):
        return _autograd_forward_of(cst.Call(func=value), index, info)
    return []


def _self_calls(fn: cst.FunctionDef) -> list[str]:
    """The methods ``fn`` calls on ``self`` (``self._reset_buffer(mode)``), by name."""
    return [a for a in (self_attr(n.func) for n in _walk(fn.body) if isinstance(n, cst.Call)) if a is not None]


def _registered(fn: cst.FunctionDef) -> set[str]:
    """The names ``fn`` registers as buffers or parameters: ``self.register_buffer("v", t)``."""
    out = set()
    for node in _walk(fn.body):
        if (
            isinstance(node, cst.Call)
            and self_attr(node.func) in ("register_buffer", "register_parameter")
            and node.args
            and isinstance(node.args[0].value, cst.SimpleString)
        ):
            name = node.args[0].value.evaluated_value
            if isinstance(name, str):
                out.add(name)
    return out


def _made_value(value: cst.BaseExpression) -> cst.Call | None:
    """The call that makes what ``self.<attr> = value`` keeps: ``value`` itself, or the one
    call of ``Norm(dim) if norm else None``."""
    if isinstance(value, cst.Call):
        return value
    if isinstance(value, cst.IfExp):
        arms = [value.body, value.orelse]
        calls = [a for a in arms if isinstance(a, cst.Call)]
        if len(calls) == 1 and any(isinstance(a, cst.Name) and a.value == "None" for a in arms):
            return calls[0]
    return None


def _module_params(init: cst.FunctionDef, index: ModuleIndex) -> dict[str, str]:
    """The constructor's parameters annotated as a module class (``backbone: nn.Module``,
    ``Optional[nn.Module]``, a same-file module class): name -> the class as resolved."""
    out: dict[str, str] = {}
    for p in (*init.params.params, *init.params.kwonly_params, *init.params.posonly_params):
        ann = p.annotation.annotation if p.annotation is not None else None
        if isinstance(ann, cst.Subscript) and index.resolve(ann.value) in ("typing.Optional", "Optional"):
            inner = ann.slice[0].slice if len(ann.slice) == 1 else None
            ann = inner.value if isinstance(inner, cst.Index) else None
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):  # `nn.Module | None`
            ann = ann.left if isinstance(ann.right, cst.Name) and ann.right.value == "None" else None
        if ann is None:
            continue
        qual = index.resolve(ann)
        if qual is not None and (is_module_class_name(qual) or qual in index.imports.module_classes):
            out[p.name.value] = qual
        elif isinstance(ann, cst.Name) and ann.value in index.classes and index.classes[ann.value].is_module:
            out[p.name.value] = ann.value
    return out


def _scan_init(init: cst.FunctionDef, info: ClassInfo, index: ModuleIndex) -> None:
    params = {p.name.value for p in (*init.params.params, *init.params.kwonly_params, *init.params.posonly_params)}
    modules = _module_params(init, index)
    for node in _walk(init.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in modules:
            for target in node.targets:  # `self.backbone = backbone`, handed a module by its annotation
                attr = self_attr(target.target)
                if attr is not None:
                    info.submodules.setdefault(attr, modules[node.value.value])
        if isinstance(node, cst.Assign) and not isinstance(node.value, cst.Call):
            kept: list | None = [] if isinstance(node.value, cst.Name) and node.value.value in params else None
            for target in node.targets:
                attr = self_attr(target.target)
                if attr is not None and kept is None:
                    kept = _kept_functions(node.value, info, index)
                if attr is not None and kept:
                    info.function_refs.setdefault(attr, []).extend(kept)
        made = _made_value(node.value) if isinstance(node, cst.Assign) else None
        if isinstance(node, cst.Assign) and made is not None:
            for target in node.targets:
                attr = self_attr(target.target)
                func = made.func
                qual = index.resolve(func)
                stored = target.target
                if qual in DISABLE_DECORATORS and isinstance(stored, cst.Attribute) and stored.attr.value == "forward":
                    # self.child.forward = torch.compiler.disable(self.child.forward): the child
                    attr = self_attr(stored.value) or attr
                if attr is None:
                    continue
                if qual is not None:
                    info.made_by[attr] = qual
                if qual in DISABLE_DECORATORS:  # self.head = torch.compiler.disable(nn.Linear(...))
                    info.submodules[attr] = qual
                elif qual in JIT_MODULE_MAKERS and _makes_module(made, index):
                    info.submodules[attr] = qual  # self.norm = torch.jit.script(LayerNorm(...))
                elif qual in ("torch.nn.Parameter", "torch.nn.Buffer") or (
                    qual is not None
                    and qual.startswith("torch.")
                    and not is_module_class_name(qual)
                    and qual.rsplit(".", 1)[-1][:1].islower()
                ):
                    info.tensor_attrs.add(attr)
                else:
                    module = _module_made(func, qual, index)
                    if module is not None:
                        info.submodules[attr] = module
        elif isinstance(node, cst.Call):
            # self.register_buffer("name", tensor)
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "register_buffer"
                and node.args
                and isinstance(node.args[0].value, cst.SimpleString)
            ):
                name = node.args[0].value.evaluated_value
                if isinstance(name, str):  # not a bytes literal
                    info.tensor_attrs.add(name)


def _module_made(func: cst.BaseExpression, qual: str | None, index: ModuleIndex) -> str | None:
    """The module class a call of ``func`` (resolved to ``qual``) makes, by its qualified name
    (a same-file class by its name), else None."""
    if qual is not None and (is_module_class_name(qual) or qual in index.imports.module_classes):
        return qual
    if isinstance(func, cst.Name) and func.value in index.classes:
        return func.value
    return None


def setting_test(test: cst.BaseExpression, names: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(the attribute, the string) of a test ``self.<attr> == "value"`` (either side); with
    ``names`` (a parameter -> the attribute ``__init__`` keeps it in), also ``param == "value"``."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    if not isinstance(test.comparisons[0].operator, cst.Equal):
        return None
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(left, cst.SimpleString):
        left, right = right, left
    value = right.evaluated_value if isinstance(right, cst.SimpleString) else None
    if not isinstance(value, str):
        return None
    attr = self_attr(left)
    if attr is None and names and isinstance(left, cst.Name):
        attr = names.get(left.value)
    return (attr, value) if attr is not None else None


def _switched(init: cst.FunctionDef, info: ClassInfo, index: ModuleIndex) -> None:
    """Fill ``info.switched`` from the ``if`` arms of ``__init__`` that test a kept setting."""
    params = param_names(init)
    kept = {}  # `self.kind = kind`: param -> attr
    for node in _walk(init.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in params:
            for target in node.targets:
                attr = self_attr(target.target)
                if attr is not None:
                    kept[node.value.value] = attr

    def arm(stmts: Sequence[cst.CSTNode], key: tuple[str, str]) -> None:
        for node in _walk(list(stmts)):
            if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)):
                continue
            qual = index.resolve(node.value.func)
            module = _module_made(node.value.func, qual, index)
            for target in node.targets:
                attr = self_attr(target.target)
                if attr is not None and module is not None:
                    info.switched.setdefault(key, {})[attr] = module

    for node in _walk(init.body):
        if isinstance(node, cst.If):
            key = setting_test(node.test, kept)
            if key is not None:
                arm(node.body.body, key)


def _walk(node) -> Iterator[cst.CSTNode]:
    """All nodes under ``node`` (a node or a list of nodes) but whitespace and punctuation,
    depth first, without a visitor."""
    stack = list(node) if isinstance(node, (list, tuple)) else [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(code_children(cur)))


class _CompileCallScanner:
    """Collects ``name = Cls(...)`` bindings and the first argument of every ``torch.compile``."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index

    def scan(self, module: cst.Module) -> None:
        for node in _walk(module.body):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
                func = node.value.func
                if isinstance(func, cst.Name) and func.value in self.index.classes:
                    for target in node.targets:
                        if isinstance(target.target, cst.Name):
                            self.index.instances[target.target.value] = func.value
                maker = self.index.resolve(func)
                if maker in JIT_MODULE_MAKERS and _makes_module(node.value, self.index):
                    for target in node.targets:
                        if isinstance(target.target, cst.Name):
                            self.index.scripted[target.target.value] = maker
            elif isinstance(node, cst.Call) and node.args:
                if self.index.resolve(node.func) in COMPILE_CALLS:
                    self.index.compile_args.append(node.args[0].value)


def find_regions(index: ModuleIndex, project: dict | None = None) -> dict[cst.FunctionDef, Region]:
    """Roots first, then everything they call in the same file, transitively (in BFS order).

    ``project``: the file's facts from :mod:`torchlint.analysis.project`: its ``roots``
    (compiled from another file), the functions ``reached`` from regions elsewhere, each
    with the root that reaches it ("XLMModel.forward in models/xlm/modeling_xlm.py"), and the
    ``loss_classes`` whose forward is no root of its own in this pass (eval, when training is
    checked too)."""
    regions: dict[cst.FunctionDef, Region] = {}

    def add_root(fn: cst.FunctionDef, qualname: str, owner: ClassInfo | None) -> None:
        if fn in regions or index.untraced(fn) or fn.name.value == "__init__":
            return
        regions[fn] = Region(node=fn, qualname=qualname, root=qualname, owner=owner)

    def add_class(name: str) -> None:
        info = index.classes.get(name)
        if info is None:
            return
        fwd = find_method(index, info, "forward")
        if fwd is not None:
            add_root(fwd[1], f"{info.name}.forward", info)

    not_roots = set((project or {}).get("loss_classes", ()))  # losses, in an eval pass
    for info in index.classes.values():
        if info.is_module and info.name not in not_roots:
            add_class(info.name)
        for mname, method in info.methods.items():
            if index.is_compile_decorated(method):
                add_root(method, f"{info.name}.{mname}", info)
    for name, fn in index.functions.items():
        if index.is_compile_decorated(fn):
            add_root(fn, name, None)
    for arg in index.compile_args:
        if isinstance(arg, cst.Name):
            if arg.value in index.functions:
                add_root(index.functions[arg.value], arg.value, None)
            elif arg.value in index.classes:
                add_class(arg.value)
            elif arg.value in index.instances:
                add_class(index.instances[arg.value])
        elif isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name):
            add_class(arg.func.value)
        elif isinstance(arg, cst.Attribute) and isinstance(arg.value, cst.Name):
            cls = index.instances.get(arg.value.value)
            held = index.classes.get(cls or "")
            if held is not None:
                found = find_method(index, held, arg.attr.value)
                if found is not None:
                    add_root(found[1], f"{found[0].name}.{arg.attr.value}", found[0])

    for qualname in (project or {}).get("roots", ()):
        found = _function_at(index, qualname)
        if found is not None:
            add_root(found[0], qualname, found[1])
    for qualname, root in (project or {}).get("reached", {}).items():
        found = _function_at(index, qualname)
        if found is not None and found[0] not in regions and not index.untraced(found[0]):
            regions[found[0]] = Region(found[0], qualname, root, found[1], is_root=False, cross_file=" in " in root)

    # roots and what the project reaches, unless only this file's regions call it: not all
    # their callers are seen here
    local = (project or {}).get("callers", {})
    entered = {node for node, region in regions.items() if region.qualname not in local}
    queue = list(regions.values())
    calls: dict[cst.FunctionDef, list[cst.FunctionDef]] = {}
    seen_at: dict[cst.FunctionDef, list[tuple[cst.Call | None, dict[str, bool] | None]]] = {}
    while queue:
        region = queue.pop(0)
        sites: list[tuple[cst.Call | None, dict[str, bool] | None]] = []
        for (callee, qualname, owner), site in zip(callees(region.node, region.owner, index, sites), sites):
            if callee is region.node or index.untraced(callee) or callee.name.value == "__init__":
                continue
            calls.setdefault(region.node, []).append(callee)
            seen_at.setdefault(callee, []).append(site)
            if callee in regions:
                continue
            new = Region(callee, qualname, region.root, owner, is_root=False)
            regions[callee] = new
            queue.append(new)
    # reached, by the project, through calls this file's walk does not resolve (a method of
    # an object made in the region, `solver.step(x)`): its callers' arguments are not seen
    # here, as for a caller in another file
    called = {callee for targets in calls.values() for callee in targets}
    callers: dict[cst.FunctionDef, set[str]] = {}
    for caller, targets in calls.items():
        for callee in targets:
            callers.setdefault(callee, set()).add(regions[caller].qualname)
    for node, region in regions.items():
        if not region.is_root and not region.cross_file and node not in called:
            region.cross_file = True
        if node not in entered and not region.cross_file and region.qualname not in local:
            seen = seen_at.get(node, [])
        elif region.qualname in local and set(local[region.qualname]) <= callers.get(node, set()):
            seen = seen_at.get(node, [])
        else:
            continue
        region.entry = _common_flags([known for _, known in seen])
        region.defaults = _left_defaults(node, region.owner is not None, [call for call, _ in seen])
    return _callers_first(regions, calls)


def _common_flags(sites: list[dict[str, bool] | None]) -> dict[str, bool]:
    """The flags of ``self`` every compiled call of a method sees alike (none where one call
    sees none)."""
    if not sites or any(not known for known in sites):
        return {}
    first = sites[0]
    return {k: v for k, v in first.items() if all(known.get(k) is v for known in sites)}  # type: ignore[union-attr]


_CONSTANTS = frozenset({"None", "True", "False"})


def _left_defaults(fn: cst.FunctionDef, method: bool, calls: list[cst.Call | None]) -> dict[str, str]:
    """The parameters of ``fn`` with a constant default (``safe_merge=False``) that every
    compiled call leaves out: ``self.merge(adapter_names=names)``. None where a call is not
    seen as written, or passes ``*args`` / ``**kwargs``."""
    params = fn.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in fn.decorators)
    if method and not static:
        positional = positional[1:]
    defaults = {
        p.name.value: p.default.value
        for p in (*params.params, *params.kwonly_params)
        if isinstance(p.default, cst.Name) and p.default.value in _CONSTANTS
    }
    if not calls or not defaults:
        return {}
    for call in calls:
        if call is None or any(arg.star for arg in call.args):
            return {}
        named = [arg.keyword.value for arg in call.args if arg.keyword is not None]
        given = len([arg for arg in call.args if arg.keyword is None])
        for name in positional[:given] + named:
            defaults.pop(name, None)
    return defaults


def _callers_first(
    regions: dict[cst.FunctionDef, Region], calls: dict[cst.FunctionDef, list[cst.FunctionDef]]
) -> dict[cst.FunctionDef, Region]:
    """The regions in an order where each comes after the same-file regions that call it
    (where calls make no cycle): the engine learns which parameters a callee is passed
    tensors at its calls (``Region.tensor_params``) while it walks the callers, so those
    must be walked first, whatever order the project listed the reached functions in."""
    done: set[cst.FunctionDef] = set()
    post: list[cst.FunctionDef] = []
    for start in regions:
        if start in done:
            continue
        done.add(start)
        stack = [(start, iter(calls.get(start, ())))]
        while stack:
            node, rest = stack[-1]
            nxt = next((c for c in rest if c not in done), None)
            if nxt is None:
                stack.pop()
                post.append(node)
            else:
                done.add(nxt)
                stack.append((nxt, iter(calls.get(nxt, ()))))
    return {node: regions[node] for node in reversed(post)}


def _function_at(index: ModuleIndex, qualname: str):
    """(node, owner) of ``func``, ``Cls.method`` or a function nested in one (``deco.wrapper``)."""
    head, _, rest = qualname.partition(".")
    if head in index.classes:
        info = index.classes[head]
        method = info.methods.get(rest)
        return (method, info) if method is not None else None
    fn = index.functions.get(head)
    for part in rest.split(".") if rest else ():
        if fn is None:
            return None
        fn = next((n for n in _walk(fn.body) if isinstance(n, cst.FunctionDef) and n.name.value == part), None)
    return (fn, None) if fn is not None else None


def find_method(index: ModuleIndex, info: ClassInfo, name: str, _seen=None):
    """The class (or same-file base) that defines method ``name``, and the method."""
    if name in info.methods:
        return info, info.methods[name]
    seen = _seen or set()
    seen.add(info.name)
    for base in info.base_names:
        if base in index.classes and base not in seen:
            found = find_method(index, index.classes[base], name, seen)
            if found is not None:
                return found
    return None


def resolve_callee(call: cst.Call, owner: ClassInfo | None, index: ModuleIndex):
    """The same-file function or method a call reaches: (node, qualname, owner) or None."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in index.functions:
        return index.functions[func.value], func.value, None
    attr = self_attr(func)
    if attr is not None and owner is not None:
        found = find_method(index, owner, attr)
        if found is not None:
            return found[1], f"{found[0].name}.{attr}", found[0]
    # super().forward(x) / Base.method(self, x)
    if isinstance(func, cst.Attribute) and owner is not None:
        base = func.value
        if isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "super":
            for b in owner.base_names:
                if b in index.classes:
                    found = find_method(index, index.classes[b], func.attr.value)
                    if found is not None:
                        return found[1], f"{found[0].name}.{func.attr.value}", found[0]
        if isinstance(base, cst.Name) and base.value in index.classes:
            found = find_method(index, index.classes[base.value], func.attr.value)
            if found is not None:
                return found[1], f"{found[0].name}.{func.attr.value}", found[0]
    return None


def callees(fn: cst.FunctionDef, owner: ClassInfo | None, index: ModuleIndex, sites: list | None = None):
    """Same-file functions called from ``fn``'s body, skipping the blocks dynamo never traces
    (`if not is_compiling():`, and `if self.training:` unless the index is for training).

    ``sites``: filled alongside, for each callee, ``(call, flags)``: the call that names it
    (None where none does: a submodule's ``forward``, ``__setattr__``) and the flags of
    ``self`` it is known to see (:func:`_guarded_calls`: ``if self.merged: self.unmerge()``),
    or None."""
    out = []
    seen: dict[int, dict[str, bool]] = {}
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.IfExp)):
            truth = index.truth(node.test)
            if truth is False:  # only the else runs
                if node.orelse is not None:
                    stack.append(node.orelse)
                continue
            if truth is True:
                stack.append(node.body)
                continue
            if sites is not None and isinstance(node, cst.If):
                seen.update(_guarded_calls(node))
        if isinstance(node, cst.IndentedBlock):
            live = index.live_statements(node)
            if sites is not None:
                seen.update(_calls_after_exits(live))
            stack.extend(reversed(live))
            continue
        if isinstance(node, cst.Call):
            found = resolve_callee(node, owner, index)
            if found is not None:
                out.append(found)
                if sites is not None:
                    sites.extend([(None, None)] * (len(out) - 1 - len(sites)))
                    sites.append((node, seen.get(id(node))))
            # Submodule calls reach same-file module classes' forward.
            attr = self_attr(node.func)
            if attr is not None and owner is not None and attr in owner.submodules:
                cls = index.classes.get(owner.submodules[attr])
                if cls is not None:
                    fwd = find_method(index, cls, "forward")
                    if fwd is not None:
                        out.append((fwd[1], f"{fwd[0].name}.forward", fwd[0]))
            if attr is not None and owner is not None:  # `self.search_fn(x)` of a function kept
                out.extend(_function_refs(index, owner, attr))
            out.extend(_torch_function_of(node, index))
            out.extend(_autograd_forward_of(node, index, owner))
        elif isinstance(node, (cst.AssignTarget, cst.AugAssign)) and owner is not None:
            # `self.last = v` runs the class's own `__setattr__`, which dynamo traces
            if self_attr(node.target) is not None:
                found = find_method(index, owner, "__setattr__")
                if found is not None:
                    out.append((found[1], f"{found[0].name}.__setattr__", found[0]))
        stack.extend(reversed(code_children(node)))
    if sites is not None:
        sites.extend([(None, None)] * (len(out) - len(sites)))
    return out


def self_flag(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """``(flag, True)`` for an ``if self.flag:`` test, ``(flag, False)`` for ``not self.flag``;
    else None (``self.training`` is decided by the mode, not here)."""
    value = True
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        value = not value
        test = test.expression
    attr = self_attr(test)
    return (attr, value) if attr is not None and attr != "training" else None


def _first_self_call(stmt: cst.CSTNode | None) -> cst.Call | None:
    """The call of ``self.method(...)`` a statement makes before anything else runs: the
    statement is the call (``self.m(a)``, ``y = self.m(a)``, ``return self.m(a)``) and its
    arguments call nothing."""
    if not isinstance(stmt, cst.SimpleStatementLine) or not stmt.body:
        return None
    small = stmt.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign, cst.Return)) else None
    if not isinstance(value, cst.Call) or self_attr(value.func) is None:
        return None
    if isinstance(small, cst.Assign) and any(not isinstance(t.target, cst.Name) for t in small.targets):
        return None
    if any(isinstance(n, cst.Call) for arg in value.args for n in _walk(arg.value)):
        return None
    return value


def _first_statement(suite: cst.BaseSuite) -> cst.CSTNode | None:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body[0] if suite.body else None
    small = cast(cst.SimpleStatementSuite, suite).body  # `if self.merged: self.unmerge()`
    return cst.SimpleStatementLine(body=list(small)) if small else None


def _guarded_calls(node: cst.If) -> dict[int, dict[str, bool]]:
    """The flags of ``self`` known at a call that opens an arm of ``if self.flag:`` (or of
    its ``else``): ``if self.merged: self.unmerge()`` calls ``unmerge`` with ``merged`` true,
    nothing having run between the test and the call."""
    tested = self_flag(node.test)
    if tested is None:
        return {}
    out = {}
    call = _first_self_call(_first_statement(node.body))
    if call is not None:
        out[id(call)] = {tested[0]: tested[1]}
    if isinstance(node.orelse, cst.Else):
        call = _first_self_call(_first_statement(node.orelse.body))
        if call is not None:
            out[id(call)] = {tested[0]: not tested[1]}
    return out


def _calls_after_exits(stmts: Sequence[cst.BaseStatement]) -> dict[int, dict[str, bool]]:
    """The flags of ``self`` known at a call right after ``if not self.flag: return``: the
    statement that follows runs only where the test failed."""
    out = {}
    for stmt, after in zip(stmts, stmts[1:]):
        if isinstance(stmt, cst.If) and stmt.orelse is None and _leaves(stmt.body):
            tested = self_flag(stmt.test)
            call = _first_self_call(after) if tested is not None else None
            if tested is not None and call is not None:
                out[id(call)] = {tested[0]: not tested[1]}
    return out


def entry_decisions(fn: cst.FunctionDef, flags: dict[str, bool]) -> dict[int, bool]:
    """The tests a method opens with that the flags it is called with decide, by node id:
    ``if not self.merged: warn(...); return`` of an ``unmerge`` every compiled caller calls
    under ``if self.merged:``. Only the ``if`` statements it opens with, up to the first whose
    live arm runs code (which may change a flag)."""
    out: dict[int, bool] = {}
    if not flags or not isinstance(fn.body, cst.IndentedBlock):
        return out
    body = list(fn.body.body)
    if fn.get_docstring() is not None:
        body = body[1:]
    for stmt in body:
        if not isinstance(stmt, cst.If):
            break
        tested = self_flag(stmt.test)
        if tested is None or tested[0] not in flags:
            break
        truth = flags[tested[0]] is tested[1]
        out[id(stmt.test)] = truth
        if truth or stmt.orelse is not None:
            break
    return out


def _function_refs(index: ModuleIndex, info: ClassInfo, attr: str, _seen: set[str] | None = None) -> list:
    """The functions ``self.<attr>`` was set to in the constructor of ``info`` or of a
    same-file base (:attr:`ClassInfo.function_refs`)."""
    if attr in info.function_refs:
        return info.function_refs[attr]
    seen = _seen or set()
    seen.add(info.name)
    for base in info.base_names:
        if base in index.classes and base not in seen:
            found = _function_refs(index, index.classes[base], attr, seen)
            if found:
                return found
    return []


def _accessor(fn: cst.FunctionDef) -> bool:
    """A property's setter or deleter (``@scale.setter``)."""
    return any(
        isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value in ("setter", "deleter")
        for d in fn.decorators
    )


def _applied_class(expr: cst.BaseExpression, index: ModuleIndex) -> str | None:
    """``Fn.apply`` of a same-file ``torch.autograd.Function`` subclass: ``Fn``."""
    if (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "apply"
        and isinstance(expr.value, cst.Name)
        and expr.value.value in index.classes
        and index.classes[expr.value.value].is_autograd_function
    ):
        return expr.value.value
    return None


def _autograd_forward_of(call: cst.Call, index: ModuleIndex, owner: ClassInfo | None = None) -> list:
    """``Fn.apply(x)`` (or a module-level ``fn = Fn.apply`` called, or ``self.Fn.apply(x)`` of
    one defined in the class) of a same-file autograd Function: dynamo traces its ``forward``."""
    info = applied_function(call, index, owner)
    if info is None:
        return []
    found = find_method(index, info, "forward")
    return [(found[1], f"{found[0].name}.forward", found[0])] if found is not None else []


def applied_function(call: cst.Call, index: ModuleIndex, owner: ClassInfo | None = None) -> ClassInfo | None:
    """The same-file ``torch.autograd.Function`` a call applies: ``Fn.apply(x)``, a
    module-level ``fn = Fn.apply`` called, or ``self.Fn.apply(x)`` of one defined in the class
    ``owner``."""
    func = call.func
    info = None
    name = _applied_class(func, index)
    if name is None and isinstance(func, cst.Name):
        name = index.applies.get(func.value)
    if name is not None:
        info = index.classes[name]
    elif owner is not None and isinstance(func, cst.Attribute) and func.attr.value == "apply":
        attr = self_attr(func.value)
        if attr is None and isinstance(func.value, cst.Attribute) and isinstance(func.value.value, cst.Name):
            attr = func.value.attr.value if func.value.value.value == owner.name else None  # Net._Double
        info = owner.nested_functions.get(attr) if attr is not None else None
    return info


def _torch_function_of(call: cst.Call, index: ModuleIndex) -> list:
    """``t.as_subclass(Tagged)`` / ``Tagged(t)`` of a same-file tensor subclass: every torch
    operation on the result runs its ``__torch_function__``, which dynamo traces."""
    func = call.func
    name = None
    if isinstance(func, cst.Attribute) and func.attr.value == "as_subclass" and call.args:
        arg = call.args[0].value
        name = arg.value if isinstance(arg, cst.Name) else None
    elif isinstance(func, cst.Name):
        name = func.value
    info = index.classes.get(name) if name else None
    if info is None:
        return []
    found = find_method(index, info, "__torch_function__")
    return [(found[1], f"{found[0].name}.__torch_function__", found[0])] if found is not None else []
