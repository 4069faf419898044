"""Resolve dotted names through a file's own imports, without libcst's metadata providers.

``import torch as T`` makes ``T.nn.Linear`` resolve to ``torch.nn.Linear``;
``from torch.nn import functional as F`` makes ``F.relu`` resolve to
``torch.nn.functional.relu``. A name that is neither imported nor defined in the file
resolves to ``builtins.<name>`` when it is a Python builtin. Anything else is ``None``:
the caller cannot tell, and stays quiet.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

import libcst as cst

_BUILTINS = frozenset(dir(builtins))

# Submodules that `import torch` makes reachable but that users often import directly.
_CANONICAL = {
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "torch._dynamo.graph_break": "torch._dynamo.graph_break",
}


def self_attr(expr: cst.CSTNode) -> str | None:
    """``name`` of ``self.name``, else None."""
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        return expr.attr.value
    return None


def param_names(fn: cst.FunctionDef) -> set[str]:
    """The names of ``fn``'s positional and keyword parameters (not ``*args`` / ``**kwargs``)."""
    params = fn.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def target_names(target: cst.CSTNode) -> list[str]:
    """The names an assignment or loop target binds (``a``, ``a, (b, *c)``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def read_names(expr: cst.CSTNode, *, every_identifier: bool = False) -> set[str]:
    """Names read in ``expr`` (not attribute names nor keyword names); with
    ``every_identifier``, every identifier spelled in it, those too (what a new name must avoid)."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Name):
            out.add(cur.value)
        elif not every_identifier and isinstance(cur, (cst.Attribute, cst.Arg)):
            stack.append(cur.value)
        else:
            stack.extend(cur.children)
    return out


def binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` binds the variable ``name`` anywhere in it (an assignment, a loop or
    comprehension target, ``:=``, an ``as`` name)."""
    from torchlint.analysis.tree import walk

    for n in walk(node):
        if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            if name in target_names(n.target):
                return True
        elif isinstance(n, cst.AsName) and name in target_names(n.name):
            return True
    return False


def none_default_params(fn: cst.FunctionDef) -> list[str]:
    """The names of ``fn``'s parameters that default to ``None`` (``mask=None``)."""
    params = fn.params
    return [
        p.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        if isinstance(p.default, cst.Name) and p.default.value == "None"
    ]


def untouched_param(fn: cst.FunctionDef, name: str) -> bool:
    """Whether ``name`` is a parameter of ``fn`` that its body never binds again: inside the
    function it is what the caller passed, as it came."""
    return name in param_names(fn) and not binds(fn.body, name)


def int_literal(expr: cst.BaseExpression, value: int | None = None) -> bool:
    """An int literal (``0``, ``-1``), ``value`` itself when given."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return int_literal(expr.expression, None if value is None else -value)
    return isinstance(expr, cst.Integer) and (value is None or expr.evaluated_value == value)


def dotted(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of Names and Attributes, else ``None``."""
    parts = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportTable:
    """What each bound name in a file stands for.

    ``aliases`` maps a local name to the dotted path it was imported as; ``defined`` holds
    names the file binds itself (functions, classes, assignments), which shadow builtins.
    """

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.defined: set[str] = set()
        # module-level `name = some.call(...)`: name -> the call's qualified name
        self.bound_calls: dict[str, str] = {}
        # What the rest of the project says (see torchlint.analysis.project): qualified names of
        # nn.Module classes, this file's own classes that are modules through other files' bases,
        # and names whose calls (`name`) or values (`=name`) are tensors.
        self.module_classes: set[str] = set()
        self.module_local: set[str] = set()
        #: qualified names of the project's ``torch.autograd.Function`` classes this file imports
        self.autograd_functions: set[str] = set()
        self.returns: dict[str, str] = {}
        # project module classes (qualified) -> the attributes their `__init__` makes tensors
        self.class_tensors: dict[str, frozenset[str]] = {}
        #: ``"Cls.attr"`` -> the tensors of every object ``Cls``'s constructor is handed and
        #: keeps in ``self.attr`` (``self.arn.permutation``)
        self.handed_tensors: dict[str, frozenset[str]] = {}
        #: ``"Cls.attr"`` -> what calling it gives, where each such object is a module
        #: (``self.arn(x)``: ``"tensor"``, or ``"tensor-dict"``)
        self.handed_modules: dict[str, str] = {}
        # how the file calls the project's operators whose output size depends on the data
        self.dynamic_ops: set[str] = set()
        #: the calls of installed packages that break inside them (``q``, ``q()`` for calling an
        #: instance of ``q``) -> [path, line, rule, message] of that break
        self.installed: dict[str, list] = {}
        #: numpy functions that dynamo does not fold on a Python number, by the number's kind
        #: (``{"numpy.ceil": {"int"}}``): measured per torch version, handed in by the engine
        self.numpy_breaks_on: dict[str, frozenset[str]] = {}
        #: numpy functions that give an int of an int (`np.prod(n)`; `np.sqrt(n)` gives a float)
        self.numpy_keeps_int: frozenset[str] = frozenset()

    # -- building -------------------------------------------------------------------
    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                head = full.split(".", 1)[0]
                self.aliases[head] = head

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            # Relative imports name the user's own modules: bound, but unknown to us.
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                local = alias.evaluated_alias or alias.evaluated_name
                self.defined.add(local.split(".")[0])
            return
        module = _module_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            if module == "torch":
                # `from torch import *` — treat torch's public names as reachable bare.
                self.aliases["*torch"] = "torch"
            return
        for alias in node.names:
            name = alias.evaluated_name
            local = alias.evaluated_alias or name
            self.aliases[local] = f"{module}.{name}"

    def apply_project(self, facts: dict) -> None:
        """Take in the project's facts about this file's names (relative imports resolved,
        re-exports and wrappers of torch names, loggers, module classes, tensor results)."""
        for local, qual in facts.get("aliases", {}).items():
            self.aliases[local] = qual
            self.defined.discard(local)
        for name in facts.get("loggers", ()):
            self.bound_calls[name] = "logging.getLogger"
        self.module_classes.update(facts.get("module_classes", ()))
        self.module_local.update(facts.get("module_local", ()))
        self.autograd_functions.update(facts.get("autograd_functions", ()))
        self.returns.update(facts.get("returns", {}))
        for qual, attrs in facts.get("class_tensors", {}).items():
            self.class_tensors[qual] = frozenset(attrs)
        for held, fact in facts.get("handed", {}).items():
            self.handed_tensors[held] = frozenset(fact.get("tensors", ()))
            if fact.get("module"):
                self.handed_modules[held] = fact["module"]
        self.dynamic_ops.update(facts.get("dynamic_ops", ()))
        self.installed.update(facts.get("installed", {}))

    def add_definitions(self, names: Iterable[str]) -> None:
        self.defined.update(names)

    @classmethod
    def from_module(cls, module: cst.Module) -> ImportTable:
        """Read the imports at the top level of a module (and inside its top-level ifs/trys)."""
        table = cls()
        table._scan(module.body)
        return table

    def _scan(self, body) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        self.add_import(small)
                    elif isinstance(small, cst.ImportFrom):
                        self.add_import_from(small)
                    elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                        targets = small.targets if isinstance(small, cst.Assign) else [small]
                        for t in targets:
                            target = t.target
                            if isinstance(target, cst.Name):
                                self.defined.add(target.value)
                                value = small.value
                                if isinstance(value, cst.Call):
                                    qual = self.resolve(value.func)
                                    if qual is not None:
                                        self.bound_calls[target.value] = qual
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.defined.add(stmt.name.value)
            elif isinstance(stmt, cst.If):
                self._scan(stmt.body.body)
                if stmt.orelse is not None:
                    orelse = stmt.orelse
                    self._scan(orelse.body.body if isinstance(orelse, cst.Else) else [orelse])
            elif isinstance(stmt, cst.Try):
                self._scan(stmt.body.body)
                for handler in stmt.handlers:
                    self._scan(handler.body.body)

    # -- querying ---------------------------------------------------------------------
    def resolve(self, expr: cst.BaseExpression, local: set[str] | None = None) -> str | None:
        """The qualified name ``expr`` refers to, or ``None`` when it cannot be told.

        ``local`` holds names bound in the enclosing function, which shadow everything.
        """
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if local is not None and head in local:
            return None
        target = self.aliases.get(head)
        if target is not None:
            full = f"{target}.{rest}" if rest else target
            return _CANONICAL.get(full, full)
        if head in self.defined:
            return None
        if head in _BUILTINS:
            return f"builtins.{name}"
        if "*torch" in self.aliases:
            return f"torch.{name}"
        return None
