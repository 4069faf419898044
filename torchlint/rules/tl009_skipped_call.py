"""TL009 skipped-call: calls dynamo will not trace (time, random, warnings, logging, I/O...)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import cast

import libcst as cst

from torchlint import knowledge, matrix
from torchlint.analysis.installed import call_key
from torchlint.analysis.names import none_default_params, self_attr
from torchlint.analysis.torchnames import JIT_MODULE_MAKERS, SPARSE_MAKERS, SPARSE_METHODS, SPARSE_OPERAND_FUNCTIONS
from torchlint.analysis.tree import code_children
from torchlint.rules.base import Rule


@lru_cache(maxsize=1)
def skipped_calls() -> dict:
    """The data file of calls dynamo does not trace (verified by the tests on the installed
    torch; which of them break on each measured torch version is in the matrix)."""
    text = resources.files("torchlint").joinpath("data/skipped_calls.json").read_text("utf-8")
    return json.loads(text)


def measured_skipped_calls() -> dict:
    """The calls the generated knowledge of the torch reported for found breaking
    (``benchmarks/knowledge.py``), less those whose break may come from the arguments of the
    example rather than the call: the builtins (whether ``print(t)``, ``repr(t)`` or ``hash(t)``
    break depends on their arguments and use, which other rules judge), and calls proven only
    with a tensor argument unless dynamo skips the function whatever it is given (or it is one of
    torch's own, which take tensors by design: ``torch.autograd.functional.jacobian(f, x)``)."""
    return {
        name: e
        for name, e in knowledge.skipped_calls().items()
        if not name.startswith("builtins.")
        and (
            e.get("trace_rule") == "SkipFunctionVariable"
            or name.startswith("torch.")  # torch's own functions take tensors: that is their use
            or not _passes_tensor(e.get("example", ""))
        )
    }


#: modules of skipped classes whose objects, made before compiling, dynamo still models
#: (``types.MappingProxyType(d).get(k)`` is traced): kept on ``self``, not flagged
_MODELLED_KEPT = frozenset({"types", "abc", "enum"})


def _sized(call: cst.Call, entry: dict) -> bool:
    """Whether a call of a numpy draw measured to break only for the Python number it returns
    (``unless_sized``) asks for an array: a ``size=`` keyword, a positional argument at the size's
    place (``randint(0, 9, (4,))``; any one for ``rand(4)``), or a ``*args`` of unknown length."""
    form = entry.get("unless_sized")
    if not form:
        return False
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if any(a.star == "*" for a in call.args):
        return True
    keyword = form.get("keyword")
    if keyword and any(a.keyword is not None and a.keyword.value == keyword for a in call.args):
        return True
    return len(positional) > form.get("position", len(positional))


#: tensor methods other rules own: `.tolist()` (TL003), `.item()` (TL001), `.backward()`
#: (TL010), the dynamic-shape and data-dependent ones (TL008, TL016's `equal`)
_OWNED_METHODS = frozenset({"tolist", "item", "equal", "backward"})


def measured_tensor_methods() -> dict:
    """Tensor methods the knowledge found dynamo cannot trace (``x.storage_offset()``,
    ``x.to_sparse()``, ``x.resize_(0)``), less those other rules own."""
    data = knowledge.current()
    owned = set(_OWNED_METHODS) | knowledge.dynamic_shape_methods(data)
    owned |= set(data.get("data_dependent_ops", {}).get("methods", {}))
    return {
        name: e
        for name, e in data.get("tensor_methods", {}).items()
        if e.get("verdict") == "breaks" and name not in owned
    }


def _passes_tensor(example: str) -> bool:
    inner = example[example.find("(") + 1 : -1]
    return any(part.strip() == "x" for part in inner.split(","))


def _is_logger_factory(qual) -> bool:
    """``logging.getLogger`` and the libraries' wrappers of it (``transformers.utils.logging.get_logger``)."""
    return qual is not None and (qual == "logging.getLogger" or qual.endswith("logging.get_logger"))


def _module_loggers(module: cst.Module) -> set:
    """Top-level ``logger = <...>.get_logger(__name__)`` bindings whose factory is imported
    relatively (``from ...utils import logging``), so that no qualified name reaches it."""
    out = set()
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                    func = small.value.func
                    name = (
                        func.attr.value
                        if isinstance(func, cst.Attribute)
                        else (func.value if isinstance(func, cst.Name) else None)
                    )
                    if name in ("get_logger", "getLogger"):
                        out |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    return out


class SkippedCall(Rule):
    code = "TL009"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        data = skipped_calls()
        self.calls = {**measured_skipped_calls(), **data["calls"]}
        self.stores = knowledge.breaking_stores()
        self.skipped_packages = knowledge.skipped_packages()
        self.decorator_makers = set(knowledge.breaking_decorators())
        self.tensor_methods = measured_tensor_methods()
        self.tensor_attributes = knowledge.breaking_tensor_attributes()
        version = matrix.active_version()  # the torch the static pass reports for, if set
        traced = matrix.traced_calls(version) if version else set()
        if traced:
            self.calls = {name: entry for name, entry in self.calls.items() if name not in traced}
        self.logger_methods = set(data["logger_methods"])
        self.deepcopy = set(data["deepcopy"])
        if version and not matrix.still_breaks(version, "logger_methods"):
            self.logger_methods = set()
        if version and not matrix.still_breaks(version, "deepcopy"):
            self.deepcopy = set()
        self.copies = set(data["copy_tensor"])
        self.containers: set = set()
        #: (region, name) -> the skipped class whose object the name holds
        self.skipped_objects: dict[tuple[int, str], str] = {}
        #: (region, name) -> the functions a local name is bound to (``odeint = odeint_adjoint
        #: if adjoint else odeint``), by their qualified names
        self.aliases: dict[tuple[int, str], list[str]] = {}
        self.numpy_unsupported = {f"numpy.{name}" for name in data["numpy_unsupported"]["names"]}
        self.loggers = {name for name, qual in ctx.imports.bound_calls.items() if _is_logger_factory(qual)}
        self.loggers |= _module_loggers(ctx.module)
        randoms = knowledge.random_generator_breaks()
        #: a generator made, or a draw given one: measured per torch version
        self.generator_made = "torch.Generator" in randoms
        self.seeded_draws = {name for name in randoms if not name.startswith(("Tensor.", "torch.Generator"))}
        self.seeded_methods = {name.removeprefix("Tensor.") for name in randoms if name.startswith("Tensor.")}
        #: region -> the local names holding a sparse tensor (or a tuple of them) there
        self.sparse: dict[int, set[str]] = {}
        #: the regions seen making one (`.to_sparse()`): their locals are worked out
        self.sparse_made: set[int] = set()
        #: the outermost expression of a statement reported for the sparse tensor it uses
        self.sparse_open: cst.CSTNode | None = None

    def leave_Assign(self, node: cst.Assign) -> None:
        # state = {"h": h, "c": c}: remember containers of tensors for a later deepcopy
        if isinstance(node.value, (cst.List, cst.Tuple, cst.Dict, cst.Set)) and self._holds_tensors(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.containers.add((id(self.ctx.region), target.target.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        # engine = SobolEngine(...): an object of a class dynamo skips, whose methods it skips too
        cls = self._skipped_made(self.resolve(node.value.func)) if isinstance(node.value, cst.Call) else None
        arms = [node.value.body, node.value.orelse] if isinstance(node.value, cst.IfExp) else [node.value]
        named = [self.resolve(a) if isinstance(a, (cst.Name, cst.Attribute)) else None for a in arms]
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                key = (id(self.ctx.region), target.target.value)
                if cls is not None:
                    self.skipped_objects[key] = cls
                else:  # bound again to something else
                    self.skipped_objects.pop(key, None)
                if all(named):
                    self.aliases[key] = cast("list[str]", named)
                else:
                    self.aliases.pop(key, None)
        # os.environ["K"] = "v": dynamo cannot trace the store (putenv is skipped)
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Subscript) and self.resolve(t.value) in self.stores:
                self.report(
                    t,
                    message=f"assigning an item of `{self.resolve(t.value)}` cannot be traced and "
                    "splits the graph; set it before compiling, outside the compiled region",
                )

    def _holds_tensors(self, arg: cst.BaseExpression) -> bool:
        if self.ctx.kind(arg) in ("tensor", "tensors", "module") or (isinstance(arg, cst.Name) and arg.value == "self"):
            return True
        if isinstance(arg, cst.Name) and (id(self.ctx.region), arg.value) in self.containers:
            return True
        if isinstance(arg, (cst.List, cst.Tuple, cst.Set)):
            return any(not isinstance(e, cst.StarredElement) and self._holds_tensors(e.value) for e in arg.elements)
        if isinstance(arg, cst.Dict):
            return any(isinstance(e, cst.DictElement) and self._holds_tensors(e.value) for e in arg.elements)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # y.grad_fn: a read dynamo cannot trace (measured; some only in an autograd graph, so
        # only in training)
        entry = self.tensor_attributes.get(node.attr.value)
        if entry is None or (entry.get("requires_grad") and not self.ctx.index.train):
            return
        if self.is_tensor(node.value):
            self.report(
                node,
                message=f"reading `.{node.attr.value}` of a tensor cannot be traced and splits the graph; "
                "read it outside the compiled region",
            )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # a function defined in a region (the walk never visits the region's own decorators):
        # each decorator is applied there, as dynamo traces it (`@functools.cache`,
        # `@functools.lru_cache(maxsize=8)`)
        for decorator in node.decorators:
            expr = decorator.decorator
            made = isinstance(expr, cst.Call)
            qual = self.resolve(expr.func if isinstance(expr, cst.Call) else expr)
            if qual in (self.decorator_makers if made else self.calls):
                self._report_applied(decorator, cast(str, qual))

    def _report_applied(self, node: cst.CSTNode, qual: str) -> None:
        self.report(
            node,
            message=f"dynamo cannot trace applying `{qual}` to a function and splits the graph; "
            "define the function outside the compiled region (at module level)",
        )

    def _given_generator(self, node: cst.Call, qual: str | None) -> bool:
        """``torch.randn(..., generator=g)``, ``t.uniform_(generator=g)``: a draw the knowledge
        found breaking when given a generator, given one (not ``generator=None``)."""
        value = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "generator"), None)
        if value is None or (isinstance(value, cst.Name) and value.value in ("None", *self._none_params())):
            return False  # (`generator=generator`, a parameter that is None unless a caller seeds)
        if qual in self.seeded_draws:
            return True
        func = node.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in self.seeded_methods
            and (qual is None or not qual.startswith("torch."))
        )

    def _none_params(self) -> tuple[str, ...]:
        """The region's parameters whose default is ``None``."""
        region = self.ctx.region
        if region is None:
            return ()
        return tuple(none_default_params(region.node))

    def _scripted_module(self, func: cst.BaseExpression) -> tuple[str, str] | None:
        """``self.norm`` kept as ``torch.jit.script(LayerNorm(...))`` in ``__init__``, or a
        module-level name bound to one: (how it is written, the maker)."""
        kept = self.kept_submodule(func)
        if kept is not None and kept[1] in JIT_MODULE_MAKERS:
            return f"self.{kept[0]}", kept[1]
        if isinstance(func, cst.Name) and func.value in self.ctx.index.scripted:
            scope = self.ctx.scope
            if scope is None or func.value not in scope.local:
                return func.value, self.ctx.index.scripted[func.value]
        return None

    # -- sparse tensors ------------------------------------------------------------------
    def _sparse_names(self) -> set[str]:
        """The region's names that hold a sparse tensor: the parameters the project's calls
        hand one, and the locals bound to one (made, or taken from those)."""
        region = self.ctx.region
        if region is None:
            return set()
        owner = region.owner
        if not (region.sparse_params or id(region) in self.sparse_made or (owner is not None and owner.sparse_attrs)):
            return set()  # (most regions see none: their body is not read for them)
        found = self.sparse.get(id(region))
        if found is None:
            found = self.sparse[id(region)] = set(region.sparse_params)
            assigns = [n for n in _own_frame(region.node.body) if isinstance(n, cst.Assign)]
            for _ in range(2):  # (a name bound from one bound further down, in a loop)
                for assign in assigns:
                    if self._sparse_value(assign.value, found):
                        for target in assign.targets:
                            t = target.target
                            for name in t.elements if isinstance(t, (cst.Tuple, cst.List)) else [t]:
                                named = name.value if isinstance(name, cst.Element) else name
                                if isinstance(named, cst.Name):
                                    found.add(named.value)
        return found

    def _sparse_attr(self, expr: cst.BaseExpression) -> bool:
        region = self.ctx.region
        owner = region.owner if region is not None else None
        attr = self_attr(expr)
        return owner is not None and attr is not None and attr in owner.sparse_attrs

    def _sparse_value(self, expr: cst.BaseExpression, names: set[str]) -> bool:
        """Whether ``expr`` is a sparse tensor (or a tuple holding one): a name holding one,
        ``self.<attr>`` set to one, an item of one, or a call making one."""
        if isinstance(expr, cst.Name):
            return expr.value in names
        if isinstance(expr, cst.Attribute):
            return self._sparse_attr(expr)
        if isinstance(expr, cst.Subscript):
            return self._sparse_value(expr.value, names)
        if isinstance(expr, (cst.Tuple, cst.List)):
            return any(isinstance(e, cst.Element) and self._sparse_value(e.value, names) for e in expr.elements)
        if isinstance(expr, cst.IfExp):
            return self._sparse_value(expr.body, names) or self._sparse_value(expr.orelse, names)
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in SPARSE_METHODS and self.resolve(func) is None:
                return True
            return self.resolve(func) in SPARSE_MAKERS
        return False

    def _sparse_use(self, expr: cst.CSTNode, names: set[str]) -> cst.BaseExpression | None:
        """The first sparse tensor ``expr`` uses (a name holding one, ``self.<attr>`` set to
        one), in source order; not one only tested (``x is None``, ``isinstance(x, tuple)``,
        ``len(x)``) nor a keyword's or an attribute's name."""
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name) and node.value in names:
                return node
            if isinstance(node, cst.Attribute):
                if self._sparse_attr(node):
                    return node
                stack.append(node.value)
                continue
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                continue
            if isinstance(node, cst.Comparison) and any(
                isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons
            ):
                continue
            if isinstance(node, cst.Call) and self.resolve(node.func) in _SPARSE_TESTS:
                continue
            if isinstance(node, cst.Arg):
                stack.append(node.value)
                continue
            stack.extend(reversed(code_children(node)))
        return None

    def _report_sparse(self, node: cst.BaseExpression) -> bool:
        """Report the outermost call or operation of a statement that uses a sparse tensor."""
        if self.sparse_open is not None:
            return False
        names = self._sparse_names()
        region = self.ctx.region
        if not names and (region is None or region.owner is None or not region.owner.sparse_attrs):
            return False
        used = self._sparse_use(node, names)
        if used is None:
            return False
        self.sparse_open = node
        what = cst.Module([]).code_for_node(used)
        self.report(
            node,
            message=f'`{what}` holds a sparse tensor, which dynamo cannot wrap ("Attempted to wrap sparse '
            'Tensor"): the graph splits where compiled code uses one; do the sparse product outside the '
            "compiled region, or use a dense or indexed form inside (`index_add_`, `scatter_add`)",
        )
        return True

    def leave_Call(self, node: cst.Call) -> None:
        if node is self.sparse_open:
            self.sparse_open = None

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._report_sparse(node)

    def leave_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if node is self.sparse_open:
            self.sparse_open = None

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.region is not None and self._sparse_value(node, set()):
            self.sparse_made.add(id(self.ctx.region))  # (what it makes is used below)
        if self._report_sparse(node):
            return
        maker = self.resolve(node.func.func) if isinstance(node.func, cst.Call) else None
        if maker in self.decorator_makers:
            # `functools.lru_cache(maxsize=8)(fn)`: the made decorator, applied
            self._report_applied(node, maker)
            return
        qual = self.resolve(node.func)
        scripted = self._scripted_module(node.func)
        if scripted is not None:
            name, maker = scripted
            self.report(
                node,
                message=f"`{name}` is a TorchScript module (made by `{maker}`): it runs in the TorchScript "
                "runtime, which dynamo cannot trace, and the graph splits around the call; call the eager "
                "module in compiled code",
                suggestion="Keep the eager module for compiled code (`torch.compile` optimises it as "
                "TorchScript would); script or trace it only where TorchScript is needed, such as an export.",
            )
        elif self._given_generator(node, qual):
            self.report(
                node,
                message="a random draw given a `torch.Generator` cannot be traced (dynamo cannot put the "
                "generator in the graph) and splits the graph; draw without `generator=` (seed once with "
                "`torch.manual_seed` outside), or draw outside the compiled region and pass the values in",
            )
        elif qual == "torch.Generator" and self.generator_made:
            self.report(
                node,
                message="making a `torch.Generator` in compiled code cannot be traced and splits the graph; "
                "make it once outside the compiled region",
            )
        elif qual in self.calls and self.calls[qual].get("unless_sized"):
            if not _sized(node, self.calls[qual]):
                self.report(
                    node,
                    message=f"`{qual}` without a size returns a Python number, which dynamo reads out of the "
                    "graph and splits it there; draw with torch (`torch.rand(())`), or ask for an array (a size)",
                )
        elif qual in self.calls:
            self.report(node, message=self.message.format(name=qual))
        elif qual in SPARSE_OPERAND_FUNCTIONS and self.sparse_open is None:
            self.report(
                node,
                message=f'`{qual}` works on a sparse tensor, which dynamo cannot wrap ("Attempted to wrap '
                'sparse Tensor") and splits the graph; do the sparse product outside the compiled region, '
                "or use a dense or indexed form inside (`index_add_`, `scatter_add`)",
            )
        elif (made := self._skipped_object(node.func)) is not None:
            self.report(
                node,
                message=f"a method of a `{made}` object: dynamo skips the class, so the call runs in "
                "Python and splits the graph; make and use it outside the compiled region",
            )
        elif qual is not None and (package := qual.partition(".")[0]) in self.skipped_packages:
            self.report(
                node,
                message=f"dynamo skips every function of the `{package}` package (its trace rules), so "
                f"`{qual}` runs in Python and splits the graph; call it outside the compiled region",
            )
        elif qual in self.numpy_unsupported:
            self.report(
                node,
                message=f"dynamo has no torch version of `{qual}` and splits the graph around "
                "it; use a torch op, or compute it outside the compiled region",
            )
        elif qual in self.deepcopy and node.args:
            if self._holds_tensors(node.args[0].value):
                self.report(
                    node,
                    message="`copy.deepcopy` of a tensor or module cannot be traced and "
                    "splits the graph; clone tensors with `t.clone()` and copy modules outside "
                    "the compiled region",
                )
        elif qual in self.copies and node.args and self._holds_tensors(node.args[0].value):
            self.report(
                node,
                message="`copy.copy` of a tensor (or of a list or dict holding tensors) cannot be "
                "traced and splits the graph; use `t.clone()`, `list(items)` / `dict(items)`, or the "
                "value itself (rebinding does not mutate it)",
            )
        elif (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in self.tensor_methods
            and self.is_tensor(node.func.value)
            # measured on a tensor in an autograd graph (`y.retain_grad()`): training code
            and (self.ctx.index.train or not self.tensor_methods[node.func.attr.value].get("requires_grad"))
        ):
            method = node.func.attr.value
            reason = self.tensor_methods[method].get("reason", "")
            self.report(
                node,
                message=f"dynamo cannot trace `.{method}()` on a tensor"
                + (f" ({reason.split(' ', 1)[-1]})" if reason else "")
                + " and splits the graph; call it outside the compiled region",
            )
        elif self._installed_break(node, qual):
            return
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in self.logger_methods:
            receiver = node.func.value
            is_logger = (isinstance(receiver, cst.Name) and receiver.value in self.loggers) or (
                isinstance(receiver, cst.Call) and _is_logger_factory(self.resolve(receiver.func))
            )
            if is_logger:
                self.report(
                    node,
                    message="logger calls cannot be traced and split the graph; log "
                    "outside the compiled region or add the method to "
                    "`torch._dynamo.config.ignore_logging_functions`",
                )

    def _skipped_object(self, func: cst.BaseExpression) -> str | None:
        """The skipped class whose object ``func``'s receiver is (``engine.draw``), or one the
        constructor keeps (``self.engine = SobolEngine(...)``, ``self.rng =
        np.random.default_rng(seed)``, then ``self.engine.draw(n)`` in ``forward``)."""
        if not isinstance(func, cst.Attribute):
            return None
        if isinstance(func.value, cst.Name):
            return self.skipped_objects.get((id(self.ctx.region), func.value.value))
        attr = self_attr(func.value)
        owner = self.ctx.region.owner if self.ctx.region is not None else None
        made = owner.made_by.get(attr) if owner is not None and attr is not None else None
        if made is None or made.partition(".")[0] in _MODELLED_KEPT:
            return None
        return self._skipped_made(made)

    def _skipped_made(self, qual: str | None) -> str | None:
        """The skipped class of the object a call of ``qual`` makes: the class itself, or what a
        breaking call is measured to make (``numpy.random.default_rng``: a ``Generator``)."""
        entry = self.calls.get(qual) if qual is not None else None
        if not entry:
            return None
        if entry.get("class") and entry.get("trace_rule") == "SkipFunctionVariable":
            return qual
        return entry.get("makes")

    def _installed_break(self, node: cst.Call, qual: str | None) -> bool:
        """A call of an installed package's function, class or kept module whose code breaks
        the graph inside (the project's ``installed`` facts,
        :mod:`torchlint.static.installed_breaks`): dynamo reports that break at the innermost
        frame of the project, this call. Reported; True if so."""
        known = self.ctx.imports.installed
        if not known:
            return False
        passed = _passed(node)
        found = _answer(known, qual, passed) if qual is not None else None
        if found is None and isinstance(node.func, cst.Name):  # a local bound to the function
            for alias in self.aliases.get((id(self.ctx.region), node.func.value), ()):
                found = _answer(known, alias, passed)
                if found is not None:
                    qual = alias
                    break
        if found is None:
            made = self._kept_object(node.func)  # `self.kernel(x)`, made as an installed module
            found = _answer(known, f"{made}()", passed) if made is not None else None
            qual = made
        if found is None or qual is None:
            return False
        path, line, rule, message = found
        where = _package_path(path, qual.split(".", 1)[0]) + (f":{line}" if line else "")
        self.report(
            node,
            message=f"`{qual}` breaks the graph inside its package ({where}, {rule}: "
            f"{message.split(';', 1)[0]}), and dynamo reports it here, at the call",
            suggestion="Call it outside the compiled region, or compile the package's function with "
            "the break removed; the break is in the package's code, not in this line.",
        )
        return True

    def _kept_object(self, func: cst.BaseExpression) -> str | None:
        """For a call of ``self.<attr>``: what ``__init__`` made the attribute with, if it did."""
        region = self.ctx.region
        owner = region.owner if region is not None else None
        attr = self_attr(func)
        return owner.made_by.get(attr) if owner is not None and attr is not None else None


#: calls that only test a value: given a sparse tensor (or a tuple of them), no break
_SPARSE_TESTS = frozenset({"builtins.isinstance", "builtins.len", "builtins.type", "builtins.id", "builtins.hasattr"})


def _own_frame(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes under ``node`` outside the functions, lambdas and classes it defines, in
    source order."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        out.append(cur)
        stack.extend(reversed(code_children(cur)))
    return out


def _passed(call: cst.Call) -> tuple[int, tuple[str, ...]] | None:
    """What ``call`` passes: how many positional arguments and the keywords, sorted (None
    where it unpacks ``*args`` or ``**kwargs``)."""
    if any(a.star for a in call.args):
        return None
    keywords = tuple(sorted(a.keyword.value for a in call.args if a.keyword is not None))
    return sum(a.keyword is None for a in call.args), keywords


def _answer(known: dict[str, list], call: str, passed: tuple[int, tuple[str, ...]] | None) -> list | None:
    """The break inside ``call`` the facts give for a call that passes ``passed``."""
    found = known.get(call_key(call, passed)) if passed is not None else None
    return found if found is not None else known.get(call)


def _package_path(path: str, top: str) -> str:
    """``path`` from its package's folder on (``torchdiffeq/_impl/misc.py``)."""
    import os

    parts = path.replace(os.sep, "/").split("/")
    return "/".join(parts[len(parts) - 1 - parts[::-1].index(top) :]) if top in parts else os.path.basename(path)
