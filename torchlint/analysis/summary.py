"""The light per-file summary the project-wide analysis works from (read with ``ast``).

One pass over a file's top level and its functions' bodies, keeping only what other files may
use: imports (as written, relative ones with their level), module-level aliases and bindings
(``disable = torch.compiler.disable``, ``logger = get_logger(__name__)``, ``model = Net()``),
classes with their bases and methods (no line numbers: an edit that only moves code leaves the
summary, and so every other file's check, unchanged), functions with their decorators, return annotation,
calls (each with the ``if not <guard>():`` it sits under), ``self.<attr>`` reads, what they
return, and their nested functions (a decorator's wrapper), and the targets of every
``torch.compile(...)``-like call. Dotted names are kept as written; the project resolves
them (:mod:`torchlint.analysis.project`). A summary is plain data (JSON-able), cached per file.

Nothing here imports libcst or the user's code.
"""

from __future__ import annotations

import ast
import gc
import re
import warnings
from collections import deque
from collections.abc import Iterator
from typing import Any, cast

from torchlint.analysis.sites import (
    MADE_PREFIX,
    UNLISTED_HEADS,
    UNLISTED_MODULES,
    Env,
    _atoms_join,
    common_methods,
    signature,
    site,
)
from torchlint.analysis.torchnames import LABEL_PARAMS, SPARSE_MAKERS, SPARSE_METHODS

#: bump when the summary's shape or meaning changes (it is part of cache keys)
VERSION = 39

Summary = dict[str, Any]


def dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and parts:
        parts.append("super()")
        return ".".join(reversed(parts))
    return None


def _callee(node: ast.AST) -> str | None:
    return dotted(node.func) if isinstance(node, ast.Call) else dotted(node)


def _arms(values: list[ast.AST]) -> Iterator[ast.AST]:
    """Each value ``self.<attr>`` may be set to: through the arms of ``given if given is not
    None else Cls(...)`` and of ``given or Cls(...)``."""
    todo = list(values)
    while todo:
        v = todo.pop(0)
        if isinstance(v, ast.IfExp):
            todo.extend((v.body, v.orelse))
        elif isinstance(v, ast.BoolOp):
            todo.extend(v.values)
        else:
            yield v


def _makers_of(values: list[ast.AST], made: dict[str, list[str]]) -> list[str]:
    """The callees that make what ``self.<attr>`` is set to (``Cls(...)``, in any arm), also
    through a local made by one (``if head is None: head = Head(...)``, then ``self.head =
    head``; ``made``: the locals made in the method)."""
    callees: list[str | None] = []
    for v in _arms(values):
        if isinstance(v, ast.Call):
            callees.append(_callee(v))
        elif isinstance(v, ast.Name):
            callees.extend(c for c in made.get(v.id, ()) if not c.endswith("[]"))
    return list(dict.fromkeys(c for c in callees if c))


def _own_methods(values: list[ast.AST]) -> list[str]:
    """The methods of ``self`` that ``self.<attr>`` is set to, for its calls: ``self.loss_method
    = self.mat_based_loss if mat_based else self.pair_based_loss``."""
    return list(dict.fromkeys(a for a in (_self_attr(v) for v in _arms(values)) if a is not None))


def _function_refs(values: list[ast.AST], params: set[str], local: set[str]) -> list[str]:
    """The functions ``self.<attr>`` is set to, by name, for its calls: ``self.search_fn =
    native_search`` (a module's function or an imported one), ``self.spike_fn = Spike.apply``
    (an autograd Function's). Not a parameter or a local (what the caller hands is the
    project's to say), nor an attribute of ``self``."""
    out = []
    for v in _arms(values):
        name = dotted(v) if isinstance(v, (ast.Name, ast.Attribute)) else None
        if name is None or name in ("None", "True", "False"):
            continue
        head = name.split(".", 1)[0]
        if head in params or head in local or head in ("self", "cls"):
            continue
        out.append(name)
    return list(dict.fromkeys(out))


def _annotation_kind(ann: ast.AST | None) -> str | None:
    if ann is None:
        return None
    try:
        text = ast.unparse(ann)
    except Exception:  # noqa: BLE001 - an odd annotation is no annotation
        return None
    low = text.lower()
    if isinstance(ann, ast.Subscript) and low.startswith(("tuple[", "typing.tuple[")):
        # `Tuple[Tensor, Tensor]`: tensors, each (not `Tuple[Tensor, int]`, nor `Tuple[Tensor, ...]`)
        parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if parts and all(_annotation_kind(p) == "tensor" for p in parts):
            return "tensors"
        return None
    if isinstance(ann, ast.Subscript) and low.startswith(("dict[", "typing.dict[")):
        # `Dict[str, Tensor]`: a dict of tensors (each value one)
        parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else []
        return "tensor-dict" if len(parts) == 2 and _annotation_kind(parts[1]) == "tensor" else None
    if "tensor" not in low or any(w in low for w in ("tuple", "list", "dict", "union", "|", "callable", "iterator")):
        return None
    return "tensor"


#: the guard of calls made only in training mode (under ``if self.training:``)
TRAINING_ONLY = "<training>"


def none_test(test: ast.AST) -> tuple[str, bool] | None:
    """``(name, True)`` for ``name is None``, ``(name, False)`` for ``name is not None``."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
    ):
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None


def _training_only(test: ast.AST) -> bool | None:
    """True when the test holds only in training (``self.training``, ``x and self.training``,
    ``labels is not None``), False when only in eval (``not self.training``), else None."""
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return True
    tested = none_test(test)
    if tested is not None and tested[0] in LABEL_PARAMS:
        return not tested[1]  # a loss is computed only when labels are given
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _training_only(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        if any(_training_only(v) is True for v in test.values):
            return True
    return None


def _accessor(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A property's setter or deleter (``@scale.setter``)."""
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in fn.decorator_list)


def _leaves(body: list[ast.stmt]) -> bool:
    """Whether a block always ends in ``return``, ``raise``, ``continue`` or ``break``."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _guard_of(test: ast.AST) -> tuple | None:
    """(dotted, negated) for ``f()`` / ``not f()`` tests, (:data:`TRAINING_ONLY`, negated) for
    training-only tests, else None."""
    training = _training_only(test)
    if training is not None:
        return TRAINING_ONLY, training  # "negated": the body is what the guard holds back
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated = not negated
        test = test.operand
    if isinstance(test, ast.Call) and not test.args:
        name = dotted(test.func)
        if name is not None:
            return name, negated
    return None


def _boolean_arms(test: ast.AST) -> tuple[str | None, str | None] | None:
    """The guards of an ``if``'s body and ``else`` for an ``and`` / ``or`` of guard calls.
    ``a and not f() and g()``: the body runs only where each holds (``f&!g``), the ``else``
    anywhere; ``f() or g()`` (guard calls only, none negated): the ``else`` runs only where
    all are false (``f&g``), the body anywhere. None for any other test."""
    if not isinstance(test, ast.BoolOp):
        return None
    guards = [_guard_of(value) for value in test.values]
    if isinstance(test.op, ast.And):
        parts = [g[0] if g[1] else f"!{g[0]}" for g in guards if g is not None and g[0] != TRAINING_ONLY]
        return ("&".join(parts), None) if parts else None
    names = [g[0] for g in guards if g is not None and not g[1] and g[0] != TRAINING_ONLY]
    return (None, "&".join(names)) if len(names) == len(guards) else None


def _both(outer: str | None, inner: str) -> str:
    """The guard of code under ``inner`` inside code under ``outer``: ``a&!b`` (each must let
    it run; see :meth:`torchlint.analysis.project.Project`'s ``_runs``)."""
    return inner if outer is None or outer == inner else f"{outer}&{inner}"


def _param_names(fn: ast.AST) -> frozenset[str]:
    args = getattr(fn, "args", None)
    if args is None:  # a module's or a class's body
        return frozenset()
    named = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    return frozenset(a.arg for a in named) - {"self", "cls"}


def _calls_any(fn: ast.AST, names: frozenset[str]) -> bool:
    """Whether ``fn``'s body calls one of ``names`` (``func(*args)``, ``func.__call__(...)``)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            target = node.func
            if isinstance(target, ast.Attribute) and target.attr == "__call__":
                target = target.value
            if isinstance(target, ast.Name) and target.id in names:
                return True
    return False


def _called_names(fn: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


class _FunctionScan:
    """Calls, self reads, returns and nested defs of one function body."""

    def __init__(self, fn: ast.AST) -> None:
        self.calls: list[list[str | None]] = []
        self.attrs: list[str] = []
        self.returns: list[str | None] = []  # returned call's dotted; "const" / None otherwise
        self.returned: list[ast.AST | None] = []  # the returned values (not of nested functions)
        self.yields = False  # a generator (or one nested in it): its `return` is not what a call gives
        self.nested: list[str] = []
        # nested functions that call a parameter of a function around them (`wrapper` calling
        # `func(*args)`): what a decorator puts in place of the function it decorates
        self.wrappers: list[str] = []
        self.local_imports: dict[str, str] = {}
        #: `name = Cls(...)` / `name = TABLE[key](...)` in this body: local -> the callees as
        #: written (`TABLE[]` for a call of a subscript), for the methods later called on it
        self.made: dict[str, list[str]] = {}
        #: `name = f` / `name = f if cond else g` in this body: local -> the names, for its calls
        self.named: dict[str, list[str]] = {}
        #: `name.method(...)` on a local made here by a class (`name = Cls(...)`, `TABLE[]`), or
        #: `Cls(...).method(...)`: [method, makers, line, column, end line, end column, guard]
        self.on_made: list[list[Any]] = []
        #: `q = self.q`, `q = self.layers[0]`, `for q in self.layers:`: local -> the attributes of
        #: `self` it holds (``layers[]`` for an item of a container the module keeps)
        self.held: dict[str, list[str]] = {}
        #: what `self.<attr>.append(x)`, `.extend([...])`, `self.<attr>[k] = x` put in a container
        self.items: dict[str, list[ast.AST]] = {}
        #: the first `super().__init__(...)` call: [line, column, end line, end column] (lines
        #: from the `def`), where dynamo stops in a module's constructor it compiles on its own
        self.super_init: list[int] | None = None
        self._def_line: int = getattr(fn, "lineno", 0)
        self._seen_calls: set[tuple[str | None, ...]] = set()
        self._seen_attrs: set[str] = set()
        #: `obj.attr` read (a property runs) and `obj[k]` (its `__getitem__`) on a local a class
        #: made here, a parameter or `self.obj`: [obj as written, attr, guard], each once
        self.reads_on: list[list[str | None]] = []
        self._seen_reads: set[tuple[str, str, str | None]] = set()
        # for what callers pass (:mod:`torchlint.analysis.sites`): every call, in order; the
        # names read other than as a call's callee; how often `self.<attr>` is read, and how
        # often as a call's callee, an attribute's base or a target; `self.<attr> = value`
        self.sites: list[tuple[str, ast.Call]] = []
        self.loads: set[str] = set()
        self.self_reads: dict[str, int] = {}
        self.self_plain: dict[str, int] = {}
        self.fields: dict[str, list[ast.AST]] = {}
        self.assigned_to: dict[int, str] = {}
        #: attributes set on some other object than ``self`` (``net.lif.reset_delay = False``)
        self.other_stores: set[str] = set()
        self._outer_params: frozenset[str] = _param_names(fn)
        self._nested_calls: dict[str, set[str]] = {}
        self._block(fn.body, None, "")  # type: ignore[attr-defined]

    def run_per_call(self) -> list[str]:
        """The wrappers and the nested functions they call (by name, transitively): what runs
        at each call of the decorated function (``dynamic_rope_update``'s wrapper calls its
        sibling ``longrope_frequency_update``)."""
        by_name = {path.rsplit(".", 1)[-1]: path for path in self.nested}
        out = list(self.wrappers)
        stack = list(self.wrappers)
        while stack:
            for name in sorted(self._nested_calls.get(stack.pop(), ())):
                path = by_name.get(name)
                if path is not None and path not in out:
                    out.append(path)
                    stack.append(path)
        return out

    def _block(self, stmts: list[ast.stmt], guard: str | None, prefix: str) -> None:
        for stmt in stmts:
            self._stmt(stmt, guard, prefix)
            # `if not self.training: return x`: the statements after it run only in training
            if isinstance(stmt, ast.If) and _training_only(stmt.test) is False and _leaves(stmt.body):
                guard = TRAINING_ONLY
            elif isinstance(stmt, ast.If) and _leaves(stmt.body):
                # `if is_compiling(): return fast(x)`: what follows runs as the `else` would
                g = _guard_of(stmt.test)
                arms = _boolean_arms(stmt.test) if g is None else None
                if arms is not None and arms[1] is not None:
                    guard = _both(guard, arms[1])
                elif g is not None and g[0] != TRAINING_ONLY:
                    guard = _both(guard, f"!{g[0]}" if g[1] else g[0])

    def _stmt(self, node: ast.AST, guard: str | None, prefix: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            path = f"{prefix}{node.name}"
            self.nested.append(path)
            if _calls_any(node, self._outer_params):
                self.wrappers.append(path)
            self._nested_calls[path] = _called_names(node)
            outer = self._outer_params
            self._outer_params = outer | _param_names(node)
            for d in node.decorator_list:
                self._expr(d, guard)
            self._block(node.body, guard, path + ".")
            self._outer_params = outer
            return
        if isinstance(node, ast.ClassDef):
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and isinstance(node.value, ast.Call):
                made = _maker(node.value.func)
                if made is not None and made not in self.made.setdefault(targets[0].id, []):
                    self.made[targets[0].id].append(made)
            elif len(targets) == 1 and isinstance(targets[0], ast.Name):
                for call in _arms([node.value]):  # made in an arm: `t = Standardize(m) if flag else None`
                    made = _maker(call.func) if isinstance(call, ast.Call) else None
                    if made is not None and made not in self.made.setdefault(targets[0].id, []):
                        self.made[targets[0].id].append(made)
                arms = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
                names = [dotted(a) for a in arms]
                if all(n is not None and n.split(".")[0] != "self" for n in names):
                    self.named.setdefault(targets[0].id, []).extend(cast("list[str]", names))
                else:
                    self._hold(targets[0].id, [_self_held(a) for a in arms])
            elif (
                len(targets) == 1
                and isinstance(targets[0], ast.Tuple)
                and isinstance(node.value, ast.Tuple)
                and len(targets[0].elts) == len(node.value.elts)
            ):
                for t, v in zip(targets[0].elts, node.value.elts):  # `q, k = self.q, self.k`
                    if isinstance(t, ast.Name):
                        self._hold(t.id, [_self_held(v)])
            for target in targets:
                attr = _self_attr(target)
                if attr is not None:
                    self.fields.setdefault(attr, []).append(node.value)
                    if isinstance(node.value, ast.Call) and len(targets) == 1:
                        self.assigned_to[id(node.value)] = attr
                elif isinstance(target, ast.Subscript):  # `self.heads[name] = Head()`
                    attr = _self_attr(target.value)
                    if attr is not None:
                        self.items.setdefault(attr, []).append(node.value)
        if isinstance(node, (ast.For, ast.AsyncFor)):
            for local, attrs in _loop_held(node.target, node.iter):
                self._hold(local, attrs)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func  # `self.layers.append(Block())`, `.extend([...])`
            if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "add_module", "insert"):
                attr = _self_attr(func.value)
                if attr is not None and node.value.args:
                    item = node.value.args[-1]
                    self.items.setdefault(attr, []).extend(_elements(item) if func.attr == "extend" else [item])
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self.local_imports[a.asname] = a.name
                else:
                    self.local_imports.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            return
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                if a.name != "*":
                    self.local_imports[a.asname or a.name] = f"{node.module}.{a.name}"
            return
        if isinstance(node, ast.If):
            g = _guard_of(node.test)
            self._expr(node.test, guard)
            sides = _boolean_arms(node.test) if g is None else None
            if sides is not None:
                # `if WITH_SEGMM and not is_compiling():` (the body only in eager), `if
                # torch.jit.is_scripting() or is_compiling():` (the `else` only in eager)
                for block, arm in ((node.body, sides[0]), (node.orelse, sides[1])):
                    self._block(block, guard if arm is None else _both(guard, arm), prefix)
                return
            if g is not None:
                name, negated = g
                # `if not g(): <eager>` / `if g(): ... else: <eager>`: eager-only under guard g;
                # the other arm runs only where g() is true: "!g" (`if torch.jit.is_tracing():`,
                # never under dynamo) unless a guard around it says more
                held = guard if name == TRAINING_ONLY else _both(guard, f"!{name}")
                self._block(node.body, _both(guard, name) if negated else held, prefix)
                self._block(node.orelse, held if negated else _both(guard, name), prefix)
                return
        if isinstance(node, ast.Return) and not prefix:
            self.returned.append(node.value)
            value = _returned_call(node.value)
            if value is None or isinstance(value, ast.Constant):
                self.returns.append("const")
            elif isinstance(value, ast.Call):
                self.returns.append(_callee(value) or None)
            else:
                self.returns.append(None)
        for child in _children(node):
            if isinstance(child, ast.stmt):
                self._stmt(child, guard, prefix)
            else:
                self._expr(child, guard)

    def _hold(self, local: str, attrs: list[str | None]) -> None:
        """Note that ``local`` holds what each of ``attrs`` of ``self`` holds (None: something
        else, which leaves the local as it was)."""
        if attrs and all(attrs):
            known = self.held.setdefault(local, [])
            known.extend(a for a in cast("list[str]", attrs) if a not in known)

    def _note_made_call(self, call: ast.Call, func: ast.Attribute, guard: str | None) -> None:
        """``name.method(...)`` on a local a class made here, or ``Cls(...).method(...)``."""
        value = func.value
        makers: list[str] | None = None
        if isinstance(value, ast.Name):
            makers = self.made.get(value.id)
        elif isinstance(value, ast.Call):
            maker = _maker(value.func)
            makers = [maker] if maker is not None else None
        picked: list[str] = []
        for m in makers or ():
            if _a_class(m) or (m.startswith("self.") and m.count(".") == 1):
                picked.append(m)  # (`self.struct(x).sum()`: a class the class names)
            elif "." not in m and not m.endswith("[]"):
                # `solver_fn = methods.select(...); solver = solver_fn(...)`: an instance of a
                # class the factory returns, written `methods.select()`
                picked.extend(f"{f}()" for f in self.made.get(m, ()) if not _a_class(f) and not f.endswith("[]"))
        makers = picked
        if makers:
            self.on_made.append([func.attr, makers, *self._span(call), guard])

    def _span(self, call: ast.Call) -> list[int]:
        """Where ``call`` is, its lines counted from the ``def`` (a memoized part holds them
        wherever the function moves)."""
        first, end = call.lineno - self._def_line, (call.end_lineno or call.lineno) - self._def_line
        return [first, call.col_offset, end, cast(int, call.end_col_offset)]

    def _read_on(self, obj: str, attr: str, guard: str | None) -> None:
        """Note ``obj.attr`` read when ``obj`` is a local made here or holding what ``self``
        keeps, a parameter or ``self.X`` (the project runs a property or ``__getitem__`` of the
        classes it holds)."""
        known = obj in self.made or obj in self.held or obj in self._outer_params
        if not (known or obj.startswith("self.")) or obj == "self":
            return
        key = (obj, attr, guard)
        if key not in self._seen_reads:
            self._seen_reads.add(key)
            self.reads_on.append([obj, attr, guard])

    def _read_on_made(self, call: ast.Call, attr: str, guard: str | None) -> None:
        """Note ``Cls(...).attr`` read (a property of an instance made and read at once), as a
        read on the local ``Cls()`` that the class made."""
        maker = _maker(call.func)
        if maker is None or not _a_class(maker):
            return
        local = f"{maker}()"
        self.made.setdefault(local, [maker])
        self._read_on(local, attr, guard)

    def _expr(self, node: ast.AST, guard: str | None) -> None:
        # Depth first, last child first (the order the calls are listed in), over the fields
        # that can hold code (:func:`_code_fields`): a summary is made of every project file,
        # so this loop is most of its cost.
        stack = [node]
        pop, push, extend = stack.pop, stack.append, stack.extend
        seen_calls, seen_attrs, specs = self._seen_calls, self._seen_attrs, _SPECS
        Call, Attribute, keyword = ast.Call, ast.Attribute, ast.keyword
        loads, reads, plain, sites = self.loads, self.self_reads, self.self_plain, self.sites
        while stack:
            cur = pop()
            t = type(cur)
            if t is _Name:  # leaves (most nodes): nothing below them
                if type(cur.ctx) is _Load:  # type: ignore[attr-defined]
                    loads.add(cur.id)  # type: ignore[attr-defined]
                continue
            if t is _Constant:
                continue
            if t is Attribute:  # (its only field that holds code: the value)
                value = cur.value  # type: ignore[attr-defined]
                if type(value) is _Name and value.id != "self" and type(cur.ctx) is _Load:  # type: ignore[attr-defined]
                    self._read_on(value.id, cur.attr, guard)  # type: ignore[attr-defined]
                elif type(cur.ctx) is not _Load and not (type(value) is _Name and value.id == "self"):  # type: ignore[attr-defined]
                    self.other_stores.add(cur.attr)  # type: ignore[attr-defined]
                elif type(value) is Attribute and type(value.value) is _Name and value.value.id == "self":
                    self._read_on(f"self.{value.attr}", cur.attr, guard)  # type: ignore[attr-defined]
                elif type(value) is Call and type(cur.ctx) is _Load:  # type: ignore[attr-defined]
                    self._read_on_made(value, cur.attr, guard)  # type: ignore[attr-defined]
                if type(value) is _Name and value.id == "self":
                    attr = cur.attr  # type: ignore[attr-defined]
                    reads[attr] = reads.get(attr, 0) + 1
                    if type(cur.ctx) is not _Load:  # type: ignore[attr-defined]
                        plain[attr] = plain.get(attr, 0) + 1
                    if attr not in seen_attrs:
                        seen_attrs.add(attr)
                        self.attrs.append(attr)
                elif type(value) is Attribute and type(value.value) is _Name and value.value.id == "self":
                    plain[value.attr] = plain.get(value.attr, 0) + 1
                push(value)
                continue
            if t is Call:
                func = cur.func  # type: ignore[attr-defined]
                name = dotted(func)
                if name is None and type(func) is ast.Subscript:
                    name = _table_call(func)  # `INIT_METHODS[self.init](...)`: `INIT_METHODS[]`
                    if name is not None and (name, guard) not in seen_calls:
                        seen_calls.add((name, guard))
                        self.calls.append([name, guard])
                    name = None
                elif name is None and type(func) is Attribute and type(func.value) is ast.Subscript:
                    attr = _self_attr(func.value.value)  # `self.layers[0].step(x)`: an item's method
                    held = f"self.{attr}[].{func.attr}" if attr is not None else None
                    if held is not None and (held, guard) not in seen_calls:
                        seen_calls.add((held, guard))
                        self.calls.append([held, guard])
                if name is not None:
                    sites.append((name, cur))  # type: ignore[arg-type]
                    if (name, guard) not in seen_calls:
                        seen_calls.add((name, guard))
                        self.calls.append([name, guard])
                if type(func) is Attribute:
                    value = func.value
                    if type(value) is _Name and value.id == "self":
                        plain[func.attr] = plain.get(func.attr, 0) + 1
                    else:
                        self._note_made_call(cur, func, guard)  # type: ignore[arg-type]
                        if self.super_init is None and func.attr == "__init__" and _is_super(value):
                            self.super_init = self._span(cur)  # type: ignore[arg-type]
                if type(func) is not _Name:
                    push(func)
                elif func.id in self.made:  # `fn = Compose(...); fn(x)`: its `__call__`
                    self._read_on(func.id, "__call__", guard)
                elif func.id in _DUNDER_BUILTINS and len(cur.args) == 1 and type(cur.args[0]) is _Name:  # type: ignore[attr-defined]
                    self._read_on(cur.args[0].id, _DUNDER_BUILTINS[func.id], guard)  # type: ignore[attr-defined]
                extend(cur.args)  # type: ignore[attr-defined]
                extend(cur.keywords)  # type: ignore[attr-defined]
                continue
            if t is keyword:
                push(cur.value)  # type: ignore[attr-defined]
                continue
            if t is ast.Subscript and type(cur.ctx) is _Load:  # type: ignore[attr-defined]
                value = cur.value  # type: ignore[attr-defined]
                if type(value) is _Name:
                    self._read_on(value.id, "__getitem__", guard)
                elif type(value) is Attribute and type(value.value) is _Name and value.value.id == "self":
                    self._read_on(f"self.{value.attr}", "__getitem__", guard)
            if t is _Yield or t is _YieldFrom:
                self.yields = True
            spec = specs.get(t)
            if spec is None:
                spec = specs[t] = _field_spec(cur)
            # (what is not a node -- None in a list, a number -- is pushed and passed over)
            for name, is_list in spec:
                value = getattr(cur, name)
                if is_list:
                    extend(value)
                elif value is not None:
                    push(value)


_Name, _Constant, _Load = ast.Name, ast.Constant, ast.Load
#: builtins that run a method of their argument: `len(s)` runs `s.__len__()`
_DUNDER_BUILTINS = {"len": "__len__", "iter": "__iter__", "next": "__next__", "bool": "__bool__"}
_Yield, _YieldFrom = ast.Yield, ast.YieldFrom
#: node type -> (field, whether it is a list) for the fields that may hold code, in order
_SPECS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _field_spec(node: object) -> tuple[tuple[str, bool], ...]:
    """The fields of ``node``'s type that may hold code, each with whether it holds a list
    (a field of an ``ast`` node type is always a list or never one)."""
    t = type(node)
    return tuple((f, type(getattr(node, f, None)) is list) for f in _code_fields(t) if hasattr(node, f))


#: node type -> the fields that may hold code (contexts and operators never hold a call)
_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_CODE = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "level", "is_async"})


def _code_fields(t: type) -> tuple[str, ...]:
    return tuple(f for f in getattr(t, "_fields", ()) if f not in _NOT_CODE)


def _children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` less the nodes that never hold code."""
    t = type(node)
    fields = _FIELDS.get(t)
    if fields is None:
        fields = _FIELDS[t] = _code_fields(t)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


def _maker(func: ast.AST) -> str | None:
    """What a call that makes a local value calls: ``Cls`` / ``mod.Cls``, or ``TABLE[]`` for
    ``TABLE[key](...)`` (a class picked from a module-level table)."""
    if isinstance(func, ast.Subscript):
        table = dotted(func.value)
        return f"{table}[]" if table is not None and "." not in table else None
    return dotted(func)


#: calls that build a tensor from Python values (its value known while tracing)
_FROM_NUMBERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})


def _a_class(maker: str) -> bool:
    """Whether a callee as written makes an instance of a class: ``Solver``, ``dist.Normal``,
    ``SOLVERS[]`` (a table of classes), by the naming convention."""
    last = maker.rsplit(".", 1)[-1]
    return last[:1].isupper()


#: decorators that make a function an operator (``@torch.library.custom_op("ns::op", ...)``)
_OP_MAKERS = frozenset({"custom_op", "triton_op"})
#: decorators that register an operator's fake (meta) kernel: with the operator's name
#: (``@torch.library.register_fake("ns::op")``) or on the operator (``@op.register_fake``)
_FAKE_MAKERS = frozenset({"register_fake", "impl_abstract", "register_meta"})
#: what a fake kernel calls to allocate a size only the data gives (``ctx.new_dynamic_size()``,
#: the older ``create_unbacked_symint``), or an operator whose own output size is such
_DATA_SIZES = frozenset({"new_dynamic_size", "create_unbacked_symint", "nonzero", "masked_select", "unique"})


def _op_facts(fn: ast.AST) -> dict[str, Any]:
    """``op``: the operator a ``@custom_op("ns::op")`` function is; ``dyn_fake``: the operator
    whose fake kernel this function is (``"ns::op"``, or ``"=name"`` for ``@name.register_fake``)
    when that kernel allocates a size computed from the data, so that the operator's output
    shape depends on its inputs' values (dynamo cannot trace past it)."""
    out: dict[str, Any] = {}
    for dec in getattr(fn, "decorator_list", ()):
        name = _callee(dec) or ""
        last = name.rsplit(".", 1)[-1]
        first = dec.args[0] if isinstance(dec, ast.Call) and dec.args else None
        op = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if last in _OP_MAKERS and op and "::" in op:
            out["op"] = op
        elif last in _FAKE_MAKERS or (last == "impl" and _meta_key(dec)):
            if op is None and not isinstance(dec, ast.Call) and "." in name:
                op = "=" + name.rsplit(".", 1)[0]  # `@keep.register_fake`: the operator `keep`
            elif op is None and isinstance(first, ast.Name):
                op = "=" + first.id  # `@torch.library.register_fake(keep)`
            if op and _sizes_from_data(fn):
                out["dyn_fake"] = op
    return out


def _meta_key(dec: ast.AST) -> bool:
    """``@torch.library.impl("ns::op", "Meta")``: a meta kernel, which fake tensors run."""
    if not isinstance(dec, ast.Call):
        return False
    keys = list(dec.args[1:2]) + [k.value for k in dec.keywords if k.arg in ("types", "dispatch_key")]
    return any(isinstance(k, ast.Constant) and str(k.value).lower() == "meta" for k in keys)


def _sizes_from_data(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _DATA_SIZES:
                return True
    return False


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_OWN_FRAME = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _loops(fn: ast.AST) -> tuple[list[list[int]], list[str]]:
    """The loops of the function's own frame: each body's lines ``[first, last]`` (counted from
    the ``def``; a ``while`` from its test, which runs on every turn) and the callees called in
    them as ``calls`` lists them. Dynamo gives up a frame that breaks inside a loop (torch 2.13,
    "graph break in loop"): the whole function then runs in Python. Nested functions are
    frames of their own."""
    start = getattr(fn, "lineno", 0)
    spans: list[list[int]] = []
    names: list[str] = []
    todo: list[ast.AST] = list(getattr(fn, "body", ()))
    while todo:
        node = todo.pop()
        if isinstance(node, _OWN_FRAME):
            continue
        if isinstance(node, _LOOPS) and node.body:
            first = node.test.lineno if isinstance(node, ast.While) else node.body[0].lineno
            last = max(getattr(n, "end_lineno", None) or n.lineno for n in node.body)
            spans.append([first - start, last - start])
            inside: list[ast.AST] = [node.test, *node.body] if isinstance(node, ast.While) else list(node.body)
            while inside:
                cur = inside.pop()
                if isinstance(cur, _OWN_FRAME):
                    continue
                if isinstance(cur, ast.Call):
                    name = dotted(cur.func)
                    if name is None and isinstance(cur.func, ast.Subscript):
                        name = _table_call(cur.func)
                    if name is not None and name not in names:
                        names.append(name)
                inside.extend(ast.iter_child_nodes(cur))
        todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt))
    return sorted(spans), names


def _function(fn: ast.AST) -> dict[str, Any]:
    scan = _FunctionScan(fn)
    decorators = [d for d in (_callee(x) for x in fn.decorator_list) if d]  # type: ignore[attr-defined]
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]  # type: ignore[attr-defined]
    # Calls on the function's own parameters (`q.item()`, `fn(*args)`) reach nothing in another
    # file: left out, an edit that adds one leaves the summary, and the project, as they were.
    args = fn.args  # type: ignore[attr-defined]
    own = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {
        a.arg for a in (args.vararg, args.kwarg) if a is not None
    }
    own -= {"self", "cls"}
    calls = [c for c in scan.calls if (c[0] or "").split(".", 1)[0] not in own]
    out: dict[str, Any] = {"decorators": decorators, "calls": calls}
    # ... except a method that no tensor or container has, or a call of the parameter itself
    # (`term.vf(t, y)`, `step(y)`): the project follows those into what the callers pass
    common = common_methods()
    strategies = _class_defaulted(fn)
    on_params = [
        c
        for c in scan.calls
        if (c[0] or "").split(".", 1)[0] in own
        and (c[0] or "").count(".") <= 1
        and ((c[0] or "").rpartition(".")[2] not in common or (c[0] or "").split(".", 1)[0] in strategies)
    ]
    if on_params:
        out["pcalls"] = on_params
    if decorators:
        out.update(_op_facts(fn))
    called_on = {(c[0] or "").split(".", 1)[0] for c in calls if (c[0] or "").count(".") == 1}
    # what a tensor or a container has (`q.shape`, `q.item`) runs nothing of the project's: left
    # out, so such an edit leaves the summary as it was; but a local made here by a class is
    # an object of it (a distribution's `d.partition`, `d.argmax` properties)
    classed = {local for local, makers in scan.made.items() if any(_a_class(m) for m in makers)}
    reads_on = [r for r in scan.reads_on if r[1] not in common or r[0] in classed]
    called_on.update(cast(str, r[0]) for r in reads_on)
    made = {local: callees for local, callees in scan.made.items() if local in called_on and local not in own}
    if made:
        out["made"] = made
    bare = {c[0] for c in calls if c[0] and "." not in c[0]}  # `fn(x)`, `fn = self.fast if f else self.slow`
    held = {local: attrs for local, attrs in scan.held.items() if local in called_on | bare and local not in own}
    if held:
        out["held"] = held
    called = {(c[0] or "").split(".", 1)[0] for c in calls}
    named = {local: names for local, names in scan.named.items() if local in called and local not in own}
    if named:
        out["named"] = named
    if scan.attrs:
        out["attrs"] = scan.attrs
    if reads_on:
        out["reads_on"] = reads_on
    kind = _annotation_kind(fn.returns)  # type: ignore[attr-defined]
    if kind:
        out["returns"] = kind
    picked = [dotted(v) if v is not None else None for v in scan.returned]
    if picked and all(n is not None and _a_class(n) for n in picked) and len(set(picked)) <= 16:
        out["returns_classes"] = sorted(set(cast("list[str]", picked)))  # `return Euler` per method
    returned = [r for r in scan.returns if r not in ("const",)]
    if returned and all(r is not None for r in returned) and len(set(returned)) == 1:
        name = cast(str, returned[0])
        head, _, rest = name.partition(".")
        if head in scan.local_imports:
            name = scan.local_imports[head] + (f".{rest}" if rest else "")
            out["returns_abs"] = True  # imported inside the function: an absolute name
        out["returns_call"] = name
        if params:
            out["params"] = params[:2]
    elif returned and all(r is not None for r in returned) and not params and len(set(returned)) <= 4:
        # `if PT23: return torch.compiler.is_compiling()` / `return torch._dynamo.is_compiling()`:
        # a version switch between calls that all say the same thing
        out["returns_calls"] = sorted(set(cast("list[str]", returned)))
    if scan.on_made:
        out["on_made"] = scan.on_made
    if scan.super_init is not None:
        out["super_init"] = scan.super_init
    loops, in_loops = _loops(fn)
    if loops:
        out["loops"] = loops
        if in_loops:
            out["loop_calls"] = in_loops
    if scan.nested:
        out["nested"] = scan.nested
    if scan.wrappers:
        out["wrappers"] = scan.run_per_call()
    out.update(_callers_view(fn, scan, own))
    out.update(_sparse_facts(fn))
    return out


def _own_frame(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of the function's own frame (not of the functions and classes it defines)."""
    todo: list[ast.AST] = list(getattr(fn, "body", ()))
    while todo:
        node = todo.pop()
        if isinstance(node, _OWN_FRAME):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


_SPARSE_MAKER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in SPARSE_MAKERS)


def _makes_sparse(call: ast.Call) -> bool:
    """``torch.sparse_coo_tensor(...)`` and the like, or ``x.to_sparse()``."""
    if isinstance(call.func, ast.Attribute) and call.func.attr in SPARSE_METHODS:
        return True
    return (dotted(call.func) or "").rsplit(".", 1)[-1] in _SPARSE_MAKER_NAMES


def _sparse_facts(fn: ast.AST) -> dict[str, Any]:
    """What the function makes sparse (a sparse tensor, or a tuple or list holding one): whether
    it returns one (``sparse_ret``), and the attributes of ``self`` it sets to one
    (``sparse_fields``: ``self.adj = adj.to_sparse()``, a registered buffer too). Made here by
    ``torch.sparse_coo_tensor(...)`` and the like or by ``.to_sparse()``, directly or through a
    local; the project follows what other functions return (:mod:`torchlint.analysis.sparse`)."""
    stmts = sorted(
        (n for n in _own_frame(fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.Return, ast.Call))),
        key=lambda n: (n.lineno, n.col_offset),
    )
    if not any(isinstance(n, ast.Call) and _makes_sparse(n) for n in stmts):
        return {}
    local: set[str] = set()

    def made(v: ast.AST | None) -> bool:
        if isinstance(v, ast.Call):
            return _makes_sparse(v)
        if isinstance(v, ast.Name):
            return v.id in local
        if isinstance(v, (ast.Tuple, ast.List)):
            return any(made(e) for e in v.elts)
        if isinstance(v, ast.IfExp):
            return made(v.body) or made(v.orelse)
        return isinstance(v, ast.Subscript) and made(v.value)

    fields: list[str] = []
    ret = False
    for node in stmts:
        if isinstance(node, ast.Return):
            ret = ret or made(node.value)
            continue
        if isinstance(node, ast.Call):  # self.register_buffer("adj", adj.to_sparse())
            if _self_attr(node.func) == "register_buffer" and len(node.args) > 1 and made(node.args[1]):
                name = node.args[0]
                if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value not in fields:
                    fields.append(name.value)
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not made(node.value):
            continue
        for target in targets:
            for t in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                if isinstance(t, ast.Name):
                    local.add(t.id)
                attr = _self_attr(t)
                if attr is not None and attr not in fields:
                    fields.append(attr)
    out: dict[str, Any] = {}
    if ret:
        out["sparse_ret"] = True
    if fields:
        out["sparse_fields"] = fields
    return out


def _class_defaulted(fn: ast.AST) -> set[str]:
    """The parameters whose default names a class (``semiring=MaxSemiring``): a strategy the
    function calls methods of (``semiring.sum(x)``), whatever their names (a tensor's, too)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set()
    return set(signature(fn).get("class_defaults", ()))


def _sole_maker(env: Env, scan: _FunctionScan, name: str) -> str | None:
    """The class every value of local ``name`` is an instance of, when each is a call of it
    (``solver = Solver(func, y0)``; ``SOLVERS[]`` for one of the classes a table holds,
    ``SOLVERS[method](...)``), else None."""
    makers = scan.made.get(name)
    if not makers or len(makers) != 1 or not _a_class(makers[0]):
        return None
    values = env.values.get(name, [])
    if not values or not all(isinstance(v, ast.Call) and _maker(v.func) == makers[0] for v in values):
        return None
    return makers[0]


def _callers_view(fn: ast.AST, scan: _FunctionScan, own: set[str] | None) -> dict[str, Any]:
    """What the project needs to tell a parameter's kind from its callers
    (:mod:`torchlint.analysis.callsites`): the calls made here with their arguments' kinds, the
    names read other than as a callee, the ``self`` attributes used other than as a callee,
    what ``self.<attr>`` is set to, and (``own``: for a function) the signature."""
    out: dict[str, Any] = {}
    params = set(own) if own is not None else set()
    args = getattr(fn, "args", None)
    typed: dict[str, Any] = {}
    if args is not None:
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.arg in params and _annotation_kind(a.annotation) == "tensor":
                typed[a.arg] = "t"  # `ts: Tensor`: what the caller passes on is a tensor
    env = Env(fn, params, typed)
    skip = params | {"self", "cls"} if own is not None else set()
    records, others = [], set()
    common = common_methods()
    strategies = _class_defaulted(fn) if own is not None else set()
    for name, call in scan.sites:
        head, _, rest = name.partition(".")
        maker = _sole_maker(env, scan, head) if rest and "." not in rest and head not in params else None
        if maker is not None:  # `solver = Solver(...); solver.integrate(t)`: Solver's method
            records.append(site(env, call, f"{MADE_PREFIX}{maker}.{rest}", None))
            continue
        factories = scan.made.get(head, ()) if not rest and head not in params else ()
        if factories and not any(_a_class(m) or m.endswith("[]") for m in factories):
            # `solver_fn = methods.select(...); solver_fn(sde=sde, bm=bm)`: a constructor of each
            # class the factory returns, written `methods.select()`
            records.extend(site(env, call, f"{m}()", None) for m in factories)
            continue
        if not rest and head in scan.named and head not in params:
            # `solve = sdeint_adjoint if adjoint else sdeint; solve(sde, y0, ts)`: a call of each
            records.extend(site(env, call, target, None) for target in scan.named[head])
            continue
        if (
            own is not None
            and head in params
            and "." not in rest
            and (not rest or rest not in common or head in strategies)
        ):
            # `term.vf(t, y)`: a method of what the callers pass, resolved by the project
            records.append(site(env, call, name, None))
            continue
        if head in params or (rest and head in env.values):
            # a method of a value held here: which one is not known (unless a tensor's or a
            # container's: those are left out)
            method = name.rsplit(".", 1)[-1]
            if rest and method not in common:
                others.add(method)
            continue
        if head in ("self", "cls") and rest.count(".") == 1:
            # `self.stepper.step(x)`: a method of an object kept, a site the project resolves
            # to the classes it is made or handed as (or, failing that, a call not followed)
            records.append(site(env, call, name, None))
            continue
        if head in ("self", "cls") and "." in rest:
            method = name.rsplit(".", 1)[-1]  # `self.a.b.helper(x)`: through other values
            if method not in common:
                others.add(method)
            continue
        if (head in UNLISTED_MODULES if rest else head in UNLISTED_HEADS) and head not in env.values:
            continue
        records.append(site(env, call, name, scan.assigned_to.get(id(call))))
    if records:
        out["sites"] = records
    if others:
        out["ocalls"] = sorted(others)
    loads = sorted(n for n in scan.loads if n not in skip and n not in env.values)
    decorators = getattr(fn, "decorator_list", ())
    loads = sorted(set(loads) | {d.split(".")[0] for d in (_callee(x) for x in decorators) if d})
    if loads:
        out["loads"] = loads
    escaping = sorted(a for a, n in scan.self_reads.items() if n > scan.self_plain.get(a, 0))
    if escaping:
        out["esc"] = escaping
    if scan.other_stores:
        out["ostores"] = sorted(scan.other_stores)
    if scan.fields:
        out["fields"] = {a: _atoms_join([env.kind(v) for v in values]) for a, values in scan.fields.items()}
    made = {a: _makers_of(values, scan.made) for a, values in scan.fields.items()}
    # the items of a container the module keeps (`self.blocks = nn.ModuleList([Block() ...])`,
    # `self.blocks.append(Block())`): made by what each is, as `blocks[]`
    items = {f"{a}[]": [e for v in values for e in _elements(v)] for a, values in scan.fields.items()}
    for a, values in scan.items.items():
        items.setdefault(f"{a}[]", []).extend(values)
    made.update({a: _makers_of(v, scan.made) for a, v in items.items() if v})
    if any(made.values()):
        out["sets"] = {a: c for a, c in made.items() if c}
    if scan.fields:
        bound = {a: _own_methods(values) for a, values in scan.fields.items()}
        if any(bound.values()):
            out["binds"] = {a: m for a, m in bound.items() if m}
        stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        refs = {a: _function_refs(values, set(_param_names(fn)), stored) for a, values in scan.fields.items()}
        if any(refs.values()):
            out["refs"] = {a: r for a, r in refs.items() if r}
    if own is not None and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        out.update(signature(fn))
    # a tensor at every return (`return norm(x).abs()`, `return torch.cat(parts)`): a tensor
    # where it is called, as with a `-> Tensor` annotation; not one built from Python numbers
    # (`torch.tensor(min(q.size(-2), n))`), whose value dynamo knows while tracing
    if (
        getattr(fn, "returns", None) is None
        and scan.returned
        and not scan.yields
        and all(v is not None and env.kind(v) == "t" and _callee(v) not in _FROM_NUMBERS for v in scan.returned)
    ):
        out["returns"] = "tensor"
    elif (
        getattr(fn, "returns", None) is None
        and scan.returned
        and not scan.yields
        and all(isinstance(v, ast.Tuple) and v.elts and all(env.kind(e) == "t" for e in v.elts) for v in scan.returned)
    ):
        out["returns"] = "tensors"  # `return a1_idx, p_idx` of tensors: each one unpacked is one
    elif scan.returned and not any(v is not None and _callee(v) in _FROM_NUMBERS for v in scan.returned):
        # what it returns when that rests on other functions' returns (`return err < 1` with
        # `err = misc.ratio(...)`) or is a Python value: the project resolves it (a generator's
        # `return` is not what a call gives)
        ret = _atoms_join([env.kind(v) if v is not None else "n" for v in scan.returned])
        if ret not in ("", "?") and not scan.yields:
            out["ret"] = ret
    return out


def _imports(node: ast.AST, out: list[list[Any]]) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                out.append([a.asname, a.name, None, 0])
            else:
                out.append([a.name.split(".")[0], a.name, None, 0])
    elif isinstance(node, ast.ImportFrom):
        for a in node.names:
            out.append([a.asname or a.name if a.name != "*" else "*", node.module or "", a.name, node.level or 0])


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` (breadth first) over the nodes that may hold code."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(_children(node))
        yield node


#: one run of top-level statements' part of a summary: (imports, aliases, bound, classes, functions)
_Part = tuple[
    list[list[Any]], dict[str, str], dict[str, str], dict[str, Any], dict[str, Any], list[Any], dict[str, list[str]]
]
_LINE_END = re.compile(r"\r\n|\r|\n")


def summarize(source: str, tree: ast.Module | None = None, memo: dict[str, _Part] | None = None) -> Summary | None:
    """The summary of one file's text, or None when Python cannot parse it.

    ``tree``: the text's ``ast`` tree, when the caller has it. ``memo``: the parts of the
    summary of an earlier version of the file, by the text of the top-level statements they
    come from; they are reused where that text is unchanged, and the memo is left holding this
    version's (an editor's buffer, summarised at every change, re-reads one statement).

    No cyclic garbage collection meanwhile: the tree holds no cycles (it is freed as usual),
    and collections triggered by its many nodes would each walk all of them again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _summarize(source, tree, memo)
    finally:
        if was_enabled:
            gc.enable()


#: a TorchScript-style signature comment: ``# type: (List[Tensor]) -> Dict[str, Tensor]``
_TYPE_COMMENT = re.compile(r"#\s*type:\s*\(.*\)\s*->\s*(.+?)\s*$")


def _commented_returns(source: str, tree: ast.Module) -> None:
    """Give a function with no return annotation the one its signature comment states, as
    its annotation (``# type: (List[Tensor]) -> Dict[str, Tensor]`` on the line after the
    ``def``), so that what it returns is read the same either way."""
    if "type:" not in source:
        return
    lines = source.splitlines()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.returns is not None or not fn.body:
            continue
        for text in lines[fn.lineno - 1 : fn.body[0].lineno - 1]:
            found = _TYPE_COMMENT.search(text)
            if found is None:
                continue
            try:
                fn.returns = ast.parse(found.group(1), mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                pass
            break


def _summarize(source: str, tree: ast.Module | None, memo: dict[str, _Part] | None) -> Summary | None:
    if tree is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    _commented_returns(source, tree)
    imports: list[list[Any]] = []
    aliases: dict[str, str] = {}
    bound: dict[str, str] = {}
    classes: dict[str, Any] = {}
    functions: dict[str, Any] = {}
    top: list[Any] = []  # what the code outside functions calls and reads
    compiled: list[list[str | None]] = []
    instances: dict[str, str] = {}  # `name = Cls(...)` anywhere (for torch.compile(name))
    tables: dict[str, list[str]] = {}  # `NAME = {key: Cls, ...}`: the names it holds
    if memo is None:
        _top(tree.body, imports, aliases, bound, classes, functions, top, tables)
    else:
        fresh: dict[str, _Part] = {}
        for text, stmts in _statement_runs(source, tree.body):
            part = memo.get(text) or fresh.get(text)
            if part is None:
                part = ([], {}, {}, {}, {}, [], {})
                _top(stmts, *part)
            fresh[text] = part
            imports.extend(part[0])
            aliases.update(part[1])
            bound.update(part[2])
            classes.update(part[3])
            functions.update(part[4])
            top.extend(part[5])
            tables.update(part[6])
        memo.clear()
        memo.update(fresh)
    return _finish(source, tree, imports, aliases, bound, classes, functions, compiled, instances, top, tables)


def _statement_runs(source: str, body: list[ast.stmt]) -> list[tuple[str, list[ast.stmt]]]:
    """(text of their lines, statements) for the top-level statements, those sharing a line together."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(source)]
    runs: list[tuple[int, int, list[ast.stmt]]] = []
    for stmt in body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        if runs and first <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], last), runs[-1][2] + [stmt])
        else:
            runs.append((first, last, [stmt]))
    out = []
    for first, last, stmts in runs:
        lo = starts[first - 1] if first - 1 < len(starts) else len(source)
        hi = starts[last] if last < len(starts) else len(source)
        out.append((source[lo:hi], stmts))
    return out


def _merge_top(parts: list[dict[str, Any]]) -> dict[str, Any]:
    sites = [s for p in parts for s in p.get("sites", ())]
    bound = {n for p in parts for n in p.get("binds", ())}
    loads = sorted({n for p in parts for n in p.get("loads", ())} - bound)
    others = sorted({n for p in parts for n in p.get("ocalls", ())})
    stores = sorted({n for p in parts for n in p.get("ostores", ())})
    out: dict[str, Any] = {}
    for key, value in (("sites", sites), ("loads", loads), ("ocalls", others), ("ostores", stores)):
        if value:
            out[key] = value
    return out


#: what ``self.<attr> = <call>(...)`` stores a tensor for, by the callee's last name
_TENSOR_STORES = frozenset({"Parameter", "Buffer"})
#: lower-case ``torch.*`` calls that do not make tensors
_NOT_TENSORS = frozenset({"device", "dtype", "finfo", "iinfo", "get_default_dtype", "compile"})


def _class_body_names(cls: ast.ClassDef) -> dict[str, str]:
    """``attr -> name`` for the class body's ``attr = Name`` (``struct = LinearChain``): what
    ``self.attr`` reads where no instance sets it (a class its methods make, ``self.struct(x)``)."""
    out: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = dotted(stmt.value)
            if name is not None:
                out[stmt.targets[0].id] = name
    return out


def _init_tensors(cls: ast.ClassDef) -> list[str]:
    """The attributes the class makes tensors: ``self.register_buffer("name", ...)`` and
    ``register_parameter`` in any of its methods (what is registered is a tensor), and
    ``self.name = nn.Parameter(...)`` / ``nn.Buffer(...)`` / ``torch.zeros(...)`` in
    ``__init__`` or a method of the class it calls (``self._reset_buffer(mode)``). Another
    file's ``self.child.name`` is then a tensor too, and a subclass's ``self.name``."""
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    out: set[str] = set()
    for fn in methods.values():
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("register_buffer", "register_parameter")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out.add(node.args[0].value)
    todo, built = ["__init__"], set[str]()
    while todo:  # `__init__` and the methods it calls on `self`, a few calls deep
        name = todo.pop()
        if name in built or name not in methods or len(built) > 8:
            continue
        built.add(name)
        for node in ast.walk(methods[name]):
            callee = dotted(node.func) if isinstance(node, ast.Call) else None
            if callee is not None and callee.startswith("self.") and callee.count(".") == 1:
                todo.append(callee[5:])
        out.update(_made_tensors(methods[name]))
    return sorted(out)


def _made_tensors(fn: ast.FunctionDef) -> set[str]:
    """The attributes ``self.name = nn.Parameter(...)`` / ``nn.Buffer(...)`` /
    ``torch.zeros(...)`` in ``fn`` makes tensors."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = dotted(node.value.func) or ""
            last = callee.rsplit(".", 1)[-1]
            made = callee.startswith("torch.") and last[:1].islower() and last not in _NOT_TENSORS
            if not (last in _TENSOR_STORES or made):
                continue
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    out.add(target.attr)
    return out


def _top(body, imports, aliases, bound, classes, functions, top_code=None, tables=None) -> None:
    """What the top-level statements ``body`` add to a summary's imports, aliases, bindings,
    classes and functions (and to ``top_code``: what the code outside functions calls and
    reads, as :func:`_callers_view` says; to ``tables``: the names a module-level dict, list or
    tuple of names holds, as ``SOLVERS = {"rk4": RK4, ...}``)."""
    loose: list[ast.stmt] = []  # statements outside functions (class bodies' too)

    def code(stmts) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(stmt, ast.ClassDef):
                loose.extend(ast.Expr(value=d) for d in stmt.decorator_list)
                code(stmt.body)
            elif isinstance(stmt, ast.If):
                loose.append(ast.Expr(value=stmt.test))
                code(stmt.body)
                code(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                code(stmt.body)
                for h in stmt.handlers:
                    code(h.body)
                code(stmt.orelse)
                code(stmt.finalbody)
            elif not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                loose.append(stmt)

    def top(body) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                _imports(stmt, imports)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                rec = _function(stmt)
                # fake kernels are often all named `_`: each is kept under its operator's name
                fake = rec.get("dyn_fake")
                functions[f"<fake {fake}>" if fake and stmt.name == "_" else stmt.name] = rec
            elif isinstance(stmt, ast.ClassDef):
                methods = {}
                for item in stmt.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not (
                        item.name in methods and _accessor(item)
                    ):
                        methods[item.name] = _function(item)  # (a property's getter is what is read)
                bases = [b for b in (dotted(x) for x in stmt.bases) if b]
                record: dict[str, Any] = {"bases": bases, "methods": methods}
                named = _class_body_names(stmt)
                if named:
                    record["names"] = named
                made = _init_tensors(stmt)
                if made:
                    record["tensors"] = made
                classes[stmt.name] = record
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        name = dotted(stmt.value) or _looked_up(stmt.value)
                        held = _table(stmt.value)
                        if name is not None:
                            aliases[t.id] = name
                        elif held and tables is not None:
                            tables[t.id] = held
                        elif isinstance(stmt.value, ast.Call):
                            callee = dotted(stmt.value.func)
                            if callee is not None:
                                bound[t.id] = callee
            elif isinstance(stmt, ast.If):
                top(stmt.body)
                top(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                top(stmt.body)
                for h in stmt.handlers:
                    top(h.body)
                top(stmt.orelse)

    top(body)
    if top_code is not None:
        code(body)
        if loose:
            module = ast.Module(body=loose, type_ignores=[])
            view = _callers_view(module, _FunctionScan(module), None)
            # the names this code binds: another run of top-level statements (summarised on
            # its own where the summary is rebuilt from parts) reads them as values of the module
            binds = sorted(Env(module, set()).values)
            if binds:
                view["binds"] = binds
            if view:
                top_code.append(view)


#: where a ``compile(...)`` / ``optimize(...)`` call may be: the name as a whole word, then
#: up to the call's parenthesis only what may stand between them in code (spaces and line
#: breaks, backslash continuations, comments, the closing parenthesis of ``(torch.compile)``).
#: Loose on purpose: a mention in a string or a comment only costs a walk of its statement.
_COMPILE_CALL = re.compile(r"\b(?:compile|optimize)(?:\s|\\|#[^\n]*|\))*\(")


def _may_compile(source: str, tree: ast.Module) -> bool:
    """Whether a call named ``compile`` or ``optimize`` with an argument may be in the file:
    the top-level statements around each textual candidate (:data:`_COMPILE_CALL`) are
    walked for one; most files have no candidate at all, and are not walked."""
    if "\r" in source:  # (lines as Python counts them differ from "\n"s: the whole walk)
        return True
    starts = []  # the candidates' offsets (the words found with str.find, then matched there)
    for word in ("compile", "optimize"):
        at = source.find(word)
        while at >= 0:
            if _COMPILE_CALL.match(source, at) is not None:
                starts.append(at)
            at = source.find(word, at + len(word))
    if not starts:
        return False
    lines: list[int] = []
    line, at = 1, 0
    for start in sorted(starts):  # (in text order: the lines counted once)
        line += source.count("\n", at, start)
        at = start
        if not lines or lines[-1] != line:
            lines.append(line)
    import bisect

    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        at = bisect.bisect_left(lines, first)
        if at == len(lines) or lines[at] > last:
            continue
        for node in _walk(stmt):
            if type(node) is ast.Call and node.args:
                func = dotted(node.func)
                if func is not None and func.split(".")[-1] in ("compile", "optimize"):
                    return True
    return False


def _returned_call(value: ast.AST | None) -> ast.AST | None:
    """What a ``return`` gives, through ``bool(f())`` and ``f() if f is not None else False``
    (a wrapper that returns what ``f`` says, or a constant)."""
    while True:
        if isinstance(value, ast.IfExp) and isinstance(value.orelse, ast.Constant):
            value = value.body
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "bool"
            and len(value.args) == 1
            and isinstance(value.args[0], ast.Call)
        ):
            value = value.args[0]
        else:
            return value


def _looked_up(value: ast.AST) -> str | None:
    """The dotted name ``getattr(torch.compiler, "is_compiling", None)`` looks up (the first of
    ``a or b``): a module-level alias, kept as ``torch.compiler.is_compiling``."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return _looked_up(value.values[0])
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "getattr"
        and len(value.args) >= 2
        and isinstance(value.args[1], ast.Constant)
        and isinstance(value.args[1].value, str)
    ):
        base = dotted(value.args[0])
        return f"{base}.{value.args[1].value}" if base is not None else None
    return None


def _table(value: ast.AST) -> list[str] | None:
    """The names a dict (its values), list or tuple literal holds, when it holds only names
    (or ``partial(fn, ...)`` of them)."""
    items = (
        value.values if isinstance(value, ast.Dict) else value.elts if isinstance(value, (ast.List, ast.Tuple)) else []
    )
    held: list[str] = []
    for v in items:
        if isinstance(v, ast.Call) and (dotted(v.func) or "").rsplit(".", 1)[-1] == "partial" and v.args:
            v = v.args[0]
        name = dotted(v)
        if name is None:
            return None
        held.append(name)
    return held or None


def _table_call(func: ast.Subscript) -> str | None:
    """``TABLE[]`` for a call of ``TABLE[key]``, ``TABLE`` a plain name (a table of tables,
    ``TABLE[a][b]``, picks along two settings: not followed)."""
    node = func.value
    return f"{node.id}[]" if isinstance(node, ast.Name) and node.id != "self" else None


def _self_attr(node: ast.AST) -> str | None:
    """``X`` of ``self.X``, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _self_held(node: ast.AST) -> str | None:
    """What ``node`` reads of ``self``: ``X`` for ``self.X``, ``X[]`` for an item ``self.X[k]``."""
    if isinstance(node, ast.Subscript):
        attr = _self_attr(node.value)
        return f"{attr}[]" if attr is not None else None
    return _self_attr(node)


def _loop_held(target: ast.AST, it: ast.AST) -> list[tuple[str, list[str | None]]]:
    """For ``for target in it``: (local, the attributes of ``self`` it holds) -- an item of
    ``self.X`` in ``for q in self.X`` (also through ``enumerate`` and ``zip``), or each of
    ``for q in (self.a, self.b)``."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args and not it.keywords:
        if it.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            return _loop_held(target.elts[1], it.args[0])
        if it.func.id == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(it.args):
            return [pair for t, a in zip(target.elts, it.args) for pair in _loop_held(t, a)]
        if it.func.id == "reversed" and len(it.args) == 1:
            return _loop_held(target, it.args[0])
    if not isinstance(target, ast.Name):
        return []
    if isinstance(it, (ast.Tuple, ast.List)):
        return [(target.id, [_self_held(e) for e in it.elts])]
    attr = _self_attr(it)
    if attr is None and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "values":
        attr = _self_attr(it.func.value)  # `for q in self.heads.values():`
    return [(target.id, [f"{attr}[]"])] if attr is not None else []


#: containers of modules whose items a module keeps (``self.X = nn.ModuleList([...])``)
_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict", "list", "tuple", "dict"})


def _elements(value: ast.AST) -> list[ast.AST]:
    """The items a container expression holds: a list or tuple's elements, a comprehension's
    element, a dict's values, or the arguments of ``nn.ModuleList([...])``, ``nn.Sequential(a,
    b)``, ``nn.ModuleDict({...})``."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return [e for v in value.elts for e in (_elements(v.value) if isinstance(v, ast.Starred) else [v])]
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return [value.elt]
    if isinstance(value, ast.DictComp):
        return [value.value]
    if isinstance(value, ast.Dict):
        return list(value.values)
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if name is not None and name.rsplit(".", 1)[-1] in _CONTAINERS:
            if name.rsplit(".", 1)[-1] == "Sequential" and not (
                len(value.args) == 1 and isinstance(value.args[0], (ast.Dict, ast.Call))
            ):
                return [e for a in value.args for e in (_elements(a.value) if isinstance(a, ast.Starred) else [a])]
            return [e for a in value.args[:1] for e in _elements(a)]
    return []


def _is_super(node: ast.AST) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _def_lines(tree: ast.Module, classes: dict[str, Any], functions: dict[str, Any]) -> dict[str, int]:
    """The ``def`` line of each function and method with ``on_made`` calls or loops (whose
    lines count from it): made here, not in the memoized parts, since it moves when the code
    above does."""
    wanted = {name for name, rec in functions.items() if rec.get("on_made") or rec.get("loops")}
    wanted |= {
        f"{cname}.{mname}"
        for cname, cls in classes.items()
        for mname, rec in cls.get("methods", {}).items()
        if rec.get("on_made") or rec.get("super_init") or rec.get("loops")
    }
    if not wanted:
        return {}
    out: dict[str, int] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in wanted:
            out[stmt.name] = stmt.lineno
        elif isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                qual = f"{stmt.name}.{getattr(item, 'name', '')}"
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and qual in wanted:
                    out[qual] = item.lineno
    return out


def _finish(source, tree, imports, aliases, bound, classes, functions, compiled, instances, top, tables) -> Summary:
    # torch.compile(...)-like calls anywhere: their first argument, as written
    for node in _walk(tree) if _may_compile(source, tree) else ():
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            callee = dotted(node.value.func)
            if callee is not None:
                instances.setdefault(node.targets[0].id, callee)
        if isinstance(node, ast.Call) and node.args:
            func = dotted(node.func)
            if func is None or func.split(".")[-1] not in ("compile", "optimize"):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Call):
                target = dotted(arg.func)
                if target:
                    compiled.append([func, "call", target])
            else:
                target = dotted(arg)
                if target:
                    compiled.append([func, "name", target])
    if compiled:
        wanted = {t.split(".")[0] for _, _, t in compiled}
        instances = {k: v for k, v in instances.items() if k in wanted}
    else:
        instances = {}
    out: Summary = {"v": VERSION, "imports": imports}
    lines = _def_lines(tree, classes, functions)
    for key, value in (
        ("lines", lines),
        ("aliases", aliases),
        ("bound", bound),
        ("classes", classes),
        ("functions", functions),
        ("compiled", compiled),
        ("instances", instances),
        ("tables", tables),
        ("top", _merge_top(top)),
    ):
        if value:
            out[key] = value
    return out
