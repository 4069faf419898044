"""TL022 none-when-compiled: a parameter that defaults to ``None`` (or a name set to ``None``)
and is set only where dynamo does not trace (``if mask is None and not is_compiling(): mask =
torch.ones(...)``), then used as a value: under compile it is still ``None`` when the caller
left it out, and the attribute read, subscript or call on it raises while dynamo traces.
Dynamo finds no handler for that exception in the compiled frame ("Observed exception") and
runs the whole frame in Python.

The walk goes through the function's statements in order, dead branches included (it needs
to see the binding dynamo skips): after such a binding, and before any binding that runs
under compile, each use of the name that is not guarded by a test on it is reported. A use
that hands it to a same-file function is followed there (a few calls deep), and that
function's first unguarded use of the parameter is reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from torchlint.analysis.names import binds, none_default_params, read_names, target_names
from torchlint.analysis.regions import ClassInfo, ModuleIndex, resolve_callee
from torchlint.rules.base import Rule

_DEPTH = 3  # calls followed from the function that leaves the value None
_BLOCKS = (cst.For, cst.While, cst.With)


@dataclass
class _Flow:
    """Where one name is bound and used in a function, read in statement order."""

    name: str
    index: ModuleIndex
    #: whether a binding dynamo never runs was seen yet (the origin requires one first)
    skipped: bool = False
    #: a binding that runs under compile was seen: the name may hold anything after it
    rebound: bool = False
    uses: list[cst.CSTNode] = field(default_factory=list)
    handed: list[tuple[cst.Call, cst.Arg]] = field(default_factory=list)

    def body(self, statements: Sequence[cst.BaseStatement], dead: bool, guarded: bool) -> None:
        for stmt in statements:
            if self.rebound:
                return
            self.statement(stmt, dead, guarded)
            if not dead and not guarded and self._exits_unless_set(stmt):
                guarded = True  # `if mask is None: raise ...`: set, or never here

    def _exits_unless_set(self, stmt: cst.BaseStatement) -> bool:
        if isinstance(stmt, cst.If) and stmt.orelse is None and self.name in read_names(stmt.test):
            body = _statements(stmt.body)
            last = body[-1] if body else None
            return isinstance(last, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Return, cst.Raise, cst.Continue, cst.Break)) for s in last.body
            )
        if isinstance(stmt, cst.SimpleStatementLine):
            return any(isinstance(s, cst.Assert) and self.name in read_names(s.test) for s in stmt.body)
        return False

    def statement(self, stmt: cst.BaseStatement, dead: bool, guarded: bool) -> None:
        name = self.name
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(stmt, cst.If):
            truth = self.index.truth(stmt.test)
            self.expression(stmt.test, dead, guarded)
            inner = guarded or name in read_names(stmt.test)
            self.body(_statements(stmt.body), dead or truth is False, inner)
            if stmt.orelse is not None:
                orelse = stmt.orelse
                if isinstance(orelse, cst.If):
                    self.statement(orelse, dead or truth is True, inner)
                else:
                    self.body(_statements(orelse.body), dead or truth is True, inner)
            return
        if isinstance(stmt, (cst.Try, cst.TryStar, cst.Match)):
            # an exception there may be caught: nothing is said of its reads; a binding there
            # may run under compile
            if not dead and binds(stmt, name):
                self.rebound = True
            return
        if isinstance(stmt, _BLOCKS):
            if isinstance(stmt, cst.For):
                self.expression(stmt.iter, dead, guarded)
                self.bind(stmt.target, None, dead)
            elif isinstance(stmt, cst.While):
                self.expression(stmt.test, dead, guarded)
                guarded = guarded or name in read_names(stmt.test)
            else:
                for item in stmt.items:
                    self.expression(item.item, dead, guarded)
                    if item.asname is not None:
                        self.bind(item.asname.name, None, dead)
            self.body(_statements(stmt.body), dead, guarded)
            return
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    self.expression(small.value, dead, guarded)
                    for target in small.targets:
                        self.bind(target.target, small.value, dead)
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    if small.value is not None:
                        self.expression(small.value, dead, guarded)
                        self.bind(small.target, small.value if isinstance(small, cst.AnnAssign) else None, dead)
                elif isinstance(small, cst.Expr):
                    self.expression(small.value, dead, guarded)
                elif isinstance(small, cst.Return) and small.value is not None:
                    self.expression(small.value, dead, guarded)

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, dead: bool) -> None:
        if self.name not in target_names(target):
            return
        if dead:
            self.skipped = True
        elif not (isinstance(value, cst.Name) and value.value == "None" and isinstance(target, cst.Name)):
            self.rebound = True

    def expression(self, expr: cst.BaseExpression, dead: bool, guarded: bool) -> None:
        """The uses in ``expr`` that run under compile with the name unguarded."""
        if dead or guarded or self.rebound or not self.skipped or self.name not in read_names(expr):
            return
        if isinstance(expr, cst.BooleanOperation):
            self.expression(expr.left, dead, guarded)
            self.expression(expr.right, dead, self.name in read_names(expr.left))
            return
        if isinstance(expr, cst.IfExp):
            self.expression(expr.test, dead, guarded)
            inner = self.name in read_names(expr.test)
            self.expression(expr.body, dead, inner)
            self.expression(expr.orelse, dead, inner)
            return
        if isinstance(expr, (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
            return
        if self._used(expr):
            self.uses.append(expr)
            return
        if isinstance(expr, cst.Call):
            for arg in expr.args:
                if isinstance(arg.value, cst.Name) and arg.value.value == self.name and not arg.star:
                    self.handed.append((expr, arg))
        for child in expr.children:
            if isinstance(child, cst.BaseExpression):
                self.expression(child, dead, guarded)
            else:
                for inner_expr in _expressions_in(child):
                    self.expression(inner_expr, dead, guarded)

    def _used(self, expr: cst.BaseExpression) -> bool:
        """``name.attr``, ``name[k]``, ``name(...)``: each raises on ``None``."""
        target = (
            expr.value
            if isinstance(expr, (cst.Attribute, cst.Subscript))
            else expr.func
            if isinstance(expr, cst.Call)
            else None
        )
        return isinstance(target, cst.Name) and target.value == self.name


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """A block's statements; a one-line block (``if c: x = 1``) as one statement line."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=suite.body)]
    return cast(cst.IndentedBlock, suite).body


def _expressions_in(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The expressions right below a non-expression node (an argument, a subscript element)."""
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            yield child
        else:
            yield from _expressions_in(child)


def _none_names(fn: cst.FunctionDef) -> list[str]:
    """The parameters that default to ``None``, and the names the body sets to ``None`` at its
    top level (``mask = None``)."""
    out = none_default_params(fn)
    for stmt in _statements(fn.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (
                    isinstance(small, cst.Assign)
                    and isinstance(small.value, cst.Name)
                    and small.value.value == "None"
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value not in out
                ):
                    out.append(small.targets[0].target.value)
    return out


def _parameter(fn: cst.FunctionDef, call: cst.Call, arg: cst.Arg, method: bool) -> str | None:
    """The parameter of ``fn`` that ``arg`` of ``call`` binds."""
    if arg.keyword is not None:
        names = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
        return arg.keyword.value if arg.keyword.value in names else None
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: positional.index(arg)]):
        return None
    params = [*fn.params.posonly_params, *fn.params.params]
    at = positional.index(arg) + (1 if method else 0)
    return params[at].name.value if at < len(params) else None


class NoneWhenCompiled(Rule):
    code = "TL022"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.done: set[int] = set()

    def visit_IndentedBlock(self, block: cst.IndentedBlock) -> None:
        region = self.ctx.region  # (the walk of a region starts at its function's body)
        if region is None or region.node.body is not block:
            return
        node = region.node
        for name in _none_names(node):
            flow = _Flow(name, self.ctx.index)
            flow.body(_statements(node.body), dead=False, guarded=False)
            for use in flow.uses:
                self._report(use, f"`{name}`")
            for call, arg in flow.handed:
                self._follow(call, arg, region.owner, f"`{name}` of `{region.qualname}`", (), 1)

    def _follow(
        self,
        call: cst.Call,
        arg: cst.Arg,
        owner: ClassInfo | None,
        origin: str,
        through: tuple[str, ...],
        depth: int,
    ) -> None:
        found = resolve_callee(call, owner, self.ctx.index)
        if found is None or depth > _DEPTH:
            return
        fn, qualname, callee_owner = found
        func = call.func
        # `self.helper(x)` binds self; `Base.helper(self, x)` passes it
        bound = isinstance(func, cst.Attribute) and not (
            isinstance(func.value, cst.Name) and func.value.value in self.ctx.index.classes
        )
        param = _parameter(fn, call, arg, bound and _takes_self(fn))
        if param is None:
            return
        flow = _Flow(param, self.ctx.index, skipped=True)
        flow.body(_statements(fn.body), dead=False, guarded=False)
        through = (*through, qualname)
        for use in flow.uses[:1]:
            path = " and ".join(f"`{q}`" for q in through)
            self._report(use, f"`{param}`, {origin} handed on through {path},")
        for inner, inner_arg in flow.handed:
            self._follow(inner, inner_arg, callee_owner, origin, through, depth + 1)

    def _report(self, use: cst.CSTNode, what: str) -> None:
        if id(use) in self.done:
            return
        self.done.add(id(use))
        self.report(use, message=self.message.replace("this value", what, 1))


def _takes_self(fn: cst.FunctionDef) -> bool:
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in fn.decorators):
        return False
    params = fn.params.posonly_params or fn.params.params
    return bool(params) and params[0].name.value in ("self", "cls")
