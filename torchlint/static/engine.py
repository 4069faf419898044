"""Find a parsed file's compiled regions and run every enabled rule over them in one walk.

The walk covers compiled regions only (see :mod:`torchlint.analysis.regions`), and in them the
branches dynamo traces: code under ``if not torch.compiler.is_compiling():`` is skipped, and so
is code under ``if self.training:`` unless the file's facts say the pass checks training
(``--train``; eval mode is assumed otherwise, as the dynamic pass runs targets), and code under
``if x.dtype == torch.float16:`` unless they say half precision (``--half``; else float32). While
walking, the engine keeps the tensor-ness of local names up to date (:mod:`torchlint.analysis.tensors`) so rules can ask
``ctx.is_tensor(expr)``. The walk reads children straight from the nodes
(:mod:`torchlint.analysis.tree`), and positions are computed for reported nodes only.

When asked, the fixes plan their edits in the same walk (a :class:`FixPlanner`, handed in
by the caller, hears of each report while the rule's scope is current): the file is parsed
and walked once whether or not its findings are marked fixable. This module imports the
rules' base and the analysis, never the fixes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Callable, Union, cast

import libcst as cst

from torchlint import knowledge
from torchlint.analysis.names import ImportTable, none_default_params, param_names, untouched_param
from torchlint.analysis.regions import Region, build_index, entry_decisions, find_regions, setting_test
from torchlint.analysis.tensors import (
    RECORD,
    TENSOR,
    TENSOR_DICT,
    TENSOR_DICTS,
    TENSORS,
    TensorScope,
    annotation_kind,
    not_tensors_when,
)
from torchlint.analysis.tree import TRIVIA_TYPES, Span, opening_paren, positions, spans_of, traverse, walk
from torchlint.files import line_at, source_lines
from torchlint.findings import Finding, Fix
from torchlint.rules.base import FileContext, Rule
from torchlint.rules.tl009_skipped_call import skipped_calls

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_Comprehension = Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]


class FileFixes:
    """One file's fix planning, as the engine drives it (made by :meth:`FixPlanner.start`)."""

    def report(self, rule: Rule, node: cst.CSTNode) -> None:
        """A rule reported ``node``; the scope is the one the rule saw."""

    def nodes(self) -> Iterable[cst.CSTNode]:
        """The nodes whose whole text range :meth:`fixes` needs."""
        return ()

    def fixes(self, text_spans: dict[cst.CSTNode, Span], source: str) -> list[tuple[cst.CSTNode, str, Fix]]:
        """(reported node, rule code, fix) of each report a fix can rewrite."""
        return []


class FixPlanner:
    """Marks fixable findings while the engine walks (see :class:`torchlint.fixes.fix_files.Marker`)."""

    def start(self, module: cst.Module, rule_classes: Sequence[type[Rule]]) -> FileFixes | None:
        return None


def _ends_in_raise(body: cst.BaseSuite) -> bool:
    stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = stmts[-1] if stmts else None
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return bool(last.body) and isinstance(last.body[-1], cst.Raise)
    return False


#: what a warning says when it is about a deprecated use: the caller's to change
_DEPRECATED = re.compile(r"deprecat", re.IGNORECASE)
_DEPRECATION_CATEGORIES = frozenset(
    {"builtins.DeprecationWarning", "builtins.FutureWarning", "builtins.PendingDeprecationWarning"}
)


def _text_of(expr: cst.BaseExpression) -> str:
    """The literal text of a message: strings, f-strings' literal parts, ``+`` and implicit
    concatenation of them; what is not literal reads as nothing."""
    if isinstance(expr, cst.SimpleString):
        return expr.raw_value
    if isinstance(expr, cst.ConcatenatedString):
        return _text_of(expr.left) + _text_of(expr.right)
    if isinstance(expr, cst.FormattedString):
        return "".join(p.value for p in expr.parts if isinstance(p, cst.FormattedStringText))
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _text_of(expr.left) + _text_of(expr.right)
    return ""


def deprecation_warning(call: cst.Call, imports: ImportTable) -> bool:
    """``warnings.warn("x is deprecated", FutureWarning)``, ``logger.warning("Passing `scale`
    is deprecated")``: a warning about a deprecated use. Under a test of the function's
    parameters it runs only when a caller passes what is deprecated: like an error path, it is
    the caller's to change, and no compiled run that follows the library's current use reaches
    it. (A helper that warns whatever it is handed, `deprecate(...)`, is called by the
    library's own code: its warning is checked.)"""
    func = call.func
    # a logger's methods, as TL009 lists them (`warn` is also `warnings.warn`'s name)
    if not (isinstance(func, cst.Attribute) and func.attr.value in skipped_calls()["logger_methods"]):
        return False
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    category = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "category"]
    if imports.resolve(func) == "warnings.warn" and positional[1:2] + category:
        if imports.resolve((positional[1:2] + category)[0]) in _DEPRECATION_CATEGORIES:
            return True
    messages = positional[1:2] if func.attr.value == "log" else positional[:1]  # `log(level, msg)`
    return bool(messages) and bool(_DEPRECATED.search(_text_of(messages[0])))


def _constant_params(fn: cst.FunctionDef, unpassed: dict[str, str] | None) -> dict[str, str]:
    """The parameters of ``fn`` no call passes (``unpassed``: name -> its constant default)
    that the function never binds again, nor a function or lambda inside it takes: each holds
    its default wherever it is read."""
    if not unpassed:
        return {}
    inner = {node.name.value for node in walk(fn.body) if isinstance(node, cst.Param)}
    return {name: value for name, value in unpassed.items() if name not in inner and untouched_param(fn, name)}


class _Walker(cst.CSTVisitor):
    """One walk over a region's body, dispatching each node to the rules that want it."""

    def __init__(self, ctx: FileContext, rules: Sequence[Rule]) -> None:
        super().__init__()
        self.ctx = ctx
        self.visit_handlers: dict[type, list[Callable]] = defaultdict(list)
        self.leave_handlers: dict[type, list[Callable]] = defaultdict(list)
        for rule in rules:
            for attr in dir(rule):
                if attr.startswith("visit_") or attr.startswith("leave_"):
                    node_type = getattr(cst, attr[6:], None)
                    if isinstance(node_type, type):
                        table = self.visit_handlers if attr[0] == "v" else self.leave_handlers
                        table[node_type].append(getattr(rule, attr))
        # Whitespace and punctuation subtrees are passed over unless a rule asks for them.
        wanted = set(self.visit_handlers) | set(self.leave_handlers)
        self.skip_trivia = not (wanted & TRIVIA_TYPES)
        #: for each `if` the walk is in: whether its test reads a parameter of the region
        self.param_tests: list[bool] = []
        self._params: tuple[int, set[str]] = (0, set())

    def walk(self, node: cst.CSTNode) -> None:
        """Visit ``node`` and its subtree, as ``node.visit(self)`` would, without rebuilding it."""
        traverse(node, self.on_visit, self.on_leave, self.skip_trivia)

    # The engine's own bookkeeping happens around the rules' handlers. The node's type is
    # compared with `is` (the walk's hot path), so each branch names the type it found with a
    # cast, which costs nothing at run time.
    def _reads_param(self, test: cst.BaseExpression) -> bool:
        region = self.ctx.region
        if region is None:
            return False
        if self._params[0] != id(region.node):
            self._params = (id(region.node), param_names(region.node) - {"self", "cls"})
        params = self._params[1]
        return bool(params) and any(isinstance(n, cst.Name) and n.value in params for n in walk(test))

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        t = type(node)
        if t is cst.If:
            self.param_tests.append(self._reads_param(cast(cst.If, node).test))
        if t is cst.If or t is cst.IfExp:
            branch = cast(Union[cst.If, cst.IfExp], node)
            truth = ctx.index.truth(branch.test)
            if truth is not None:
                # `if not is_compiling():` runs only in eager, `if self.training:` only in
                # training: dynamo traces the operands of the test that run and the live branch.
                for handler in self.visit_handlers.get(t, ()):
                    handler(node)
                for operand in ctx.index.operands(branch.test):
                    self.walk(operand)
                live_branch = branch.body if truth else branch.orelse
                if live_branch is not None:
                    self.walk(live_branch)
                return False
            if t is cst.If and ctx.scope is not None:
                self._both_arms(cast(cst.If, node))
                return False
            if t is cst.IfExp and ctx.scope is not None and not_tensors_when(branch.test, ctx.scope):
                self._narrowed_ifexp(cast(cst.IfExp, node))
                return False
        if t is cst.Raise:
            # an error path: what builds the exception (`raise ValueError(f"{x.max().item()}")`)
            # runs only when the code fails, never on a compiled run that goes on
            return False
        if t is cst.Call and any(self.param_tests) and deprecation_warning(cast(cst.Call, node), ctx.imports):
            return False  # the warning a caller gets for a deprecated argument: the same
        if t is cst.ExceptHandler and _ends_in_raise(cast(cst.ExceptHandler, node).body):
            return False  # a handler that reports and re-raises: the same
        if t is cst.BooleanOperation:
            boolean = cast(cst.BooleanOperation, node)
            if ctx.index.truth(boolean.left) is isinstance(boolean.operator, cst.Or):
                # `a and not is_compiling() and b`: the left side decides, `b` never runs
                for handler in self.visit_handlers.get(t, ()):
                    handler(node)
                self.walk(boolean.left)
                return False
        if t is cst.IndentedBlock:
            block = cast(cst.IndentedBlock, node)
            live = ctx.index.live_statements(block)
            if len(live) < len(block.body):  # an early exit known to be taken: the rest never runs
                for handler in self.visit_handlers.get(t, ()):
                    handler(node)
                for stmt in live:
                    self.walk(stmt)
                return False
        if t is cst.FunctionDef or t is cst.Lambda:
            if t is cst.FunctionDef and ctx.index.is_disabled(cast(cst.FunctionDef, node)):
                return False
            scope = ctx.scope = TensorScope(ctx.imports, ctx.scope.owner if ctx.scope else None, parent=ctx.scope)
            # a lambda's parameters are read as a function's (TensorScope types it FunctionDef)
            scope.bind_params(cast(cst.FunctionDef, node), set(), all_tensors=False)
        elif t in _COMPREHENSIONS:
            scope = ctx.scope = TensorScope(ctx.imports, ctx.scope.owner if ctx.scope else None, parent=ctx.scope)
            comp: cst.CompFor | None = cast(_Comprehension, node).for_in
            while comp is not None:
                scope.bind_loop(comp.target, comp.iter)
                comp = comp.inner_for_in
        elif t is cst.For:
            loop = cast(cst.For, node)
            scope = self._scope()
            scope.bind_loop(loop.target, loop.iter)
        elif t is cst.Call:
            self._record_call_site(cast(cst.Call, node))
        for handler in self.visit_handlers.get(t, ()):
            handler(node)
        return True

    def _narrowed_ifexp(self, branch: cst.IfExp) -> None:
        """``slice(-n, None) if isinstance(n, int) else n``: in the body the names the test
        proves no tensor are none."""
        for handler in self.visit_handlers.get(cst.IfExp, ()):
            handler(branch)
        scope = self._scope()
        self.walk(branch.test)
        before = (dict(scope.kinds), set(scope.local), set(scope.guessed))
        for name in not_tensors_when(branch.test, scope):
            scope.bind(name, None)
        self.walk(branch.body)
        scope.kinds, scope.local, scope.guessed = before
        self.walk(branch.orelse)

    def _switched(self, test: cst.BaseExpression) -> dict[str, str]:
        """The submodules ``if self.kind == "lstm":`` decides for its body (see
        :attr:`ClassInfo.switched`)."""
        region = self.ctx.region
        owner = region.owner if region is not None else None
        if owner is None or not owner.switched:
            return {}
        key = setting_test(test)
        return owner.switched.get(key, {}) if key is not None else {}

    def _both_arms(self, branch: cst.If) -> None:
        """Walk an ``if`` whose test is not known: each arm from the kinds before it, then a
        name either arm binds may be a tensor when one arm makes it one (``if c: y = x.sum()
        else: y = 0``: y is a tensor when c holds)."""
        for handler in self.visit_handlers.get(cst.If, ()):
            handler(branch)
        scope = self._scope()
        self.walk(branch.test)
        narrowed = not_tensors_when(branch.test, scope)
        test = branch.test
        # `if not isinstance(size, (list, tuple)): ...`: no tensor in the other arm
        otherwise = (
            not_tensors_when(test.expression, scope)
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
            else []
        )
        for name in narrowed + otherwise:
            if name not in scope.kinds:  # bound around this scope: what it is here, first
                was_guessed = scope.is_guessed(name)
                scope.kinds[name] = scope.lookup(name)
                if was_guessed:
                    scope.guessed.add(name)
        before = (dict(scope.kinds), set(scope.local), set(scope.guessed))
        for name in narrowed:
            scope.bind(name, None)  # `if isinstance(alpha, float): float(alpha)`
        switched = self._switched(test)
        if switched:
            self.ctx.switched.append(switched)
        try:
            self.walk(branch.body)
        finally:
            if switched:
                self.ctx.switched.pop()
        arms = [(dict(scope.kinds), set(scope.guessed))]
        # the other arm (no `else`: the kinds from before the `if`)
        scope.kinds, scope.local, scope.guessed = dict(before[0]), set(before[1]) | set(arms[0][0]), set(before[2])
        for name in otherwise:
            scope.bind(name, None)
        if branch.orelse is not None:
            self.walk(branch.orelse)
        arms.append((dict(scope.kinds), set(scope.guessed)))
        guessed = arms[0][1] | arms[1][1]
        value: str | None
        for name in set(arms[0][0]) | set(arms[1][0]):
            a = arms[0][0].get(name, before[0].get(name))
            b = arms[1][0].get(name, before[0].get(name))
            if a != b and TENSOR in (a, b):
                value = TENSOR  # a tensor in one arm: it may be one after the `if`
                if (a == TENSOR and name not in arms[0][1]) or (b == TENSOR and name not in arms[1][1]):
                    guessed.discard(name)
            else:
                value = b if name in arms[1][0] else a
            scope.kinds[name] = value
            scope.local.add(name)
        scope.guessed = guessed

    def _scope(self) -> TensorScope:
        scope = self.ctx.scope
        assert scope is not None, "the walk runs inside a region, which has a scope"
        return scope

    def on_leave(self, original_node: cst.CSTNode) -> None:
        t = type(original_node)
        if t is cst.If:
            self.param_tests.pop()
        for handler in self.leave_handlers.get(t, ()):
            handler(original_node)
        if t is cst.Assign:
            assign = cast(cst.Assign, original_node)
            scope = self._scope()
            for target in assign.targets:
                scope.bind_assigned(target.target, assign.value)
                if isinstance(target.target, cst.Name):
                    scope.bind_number(target.target.value, assign.value)
        elif t is cst.AnnAssign:
            annotated = cast(cst.AnnAssign, original_node)
            if annotated.value is not None:
                scope = self._scope()
                kind = scope.kind(annotated.value)
                if kind is None:  # `out: Dict[str, Tensor] = {}`: what the annotation says
                    said = annotation_kind(cst.Module([]).code_for_node(annotated.annotation.annotation))
                    kind = said if said in (TENSOR_DICT, TENSOR_DICTS, TENSORS) else None
                scope.bind_target(annotated.target, kind)
        elif t is cst.AugAssign:
            augmented = cast(cst.AugAssign, original_node)
            scope = self._scope()
            if isinstance(augmented.target, cst.Name) and scope.is_tensor(augmented.value):
                scope.bind(augmented.target.value, "tensor")
        elif t is cst.NamedExpr:
            named = cast(cst.NamedExpr, original_node)
            scope = self._scope()
            scope.bind_target(named.target, scope.kind(named.value))
        elif t in (cst.FunctionDef, cst.Lambda) or t in _COMPREHENSIONS:
            self.ctx.scope = self._scope().parent

    def _passed_on(self, value: cst.BaseExpression) -> bool:
        """Whether a call's argument is one of the calling region's parameters as it came to
        it, unless a caller of that region handed it a computed tensor."""
        caller = self.ctx.region
        if caller is None or not isinstance(value, cst.Name) or not untouched_param(caller.node, value.value):
            return False
        return caller.is_root or value.value not in caller.computed_params

    def _optional_guess(self, value: cst.BaseExpression) -> bool:
        """Whether a call's argument is an optional parameter of the calling region
        (``length=None``) still taken for a tensor by assumption only: handed on, it stays a
        guess (a root's positional inputs are the model's tensors, and count as passed)."""
        caller, scope = self.ctx.region, self.ctx.scope
        if caller is None or scope is None or not isinstance(value, cst.Name) or not scope.is_guessed(value.value):
            return False
        return value.value in none_default_params(caller.node)

    def _record_call_site(self, call: cst.Call) -> None:
        """Remember which parameters of a same-file callee receive tensors here."""
        callee = self.ctx.callee(call)
        if callee is None:
            return
        region = self.ctx.regions.get(callee)
        if region is None:
            return
        params = [p.name.value for p in list(callee.params.posonly_params) + list(callee.params.params)]
        if region.owner is not None and params and params[0] in ("self", "cls"):
            params = params[1:]
        for i, arg in enumerate(call.args):
            if arg.star:
                break
            name = arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
            if name is not None and self._optional_guess(arg.value):
                region.guessed_params.add(name)
            elif name is not None and self.ctx.is_tensor(arg.value):
                region.tensor_params.add(name)
                if not self._passed_on(arg.value):
                    region.computed_params.add(name)
            elif name is not None:
                kind = self.ctx.kind(arg.value)
                if kind is not None and kind.startswith(RECORD):
                    region.record_params[name] = kind


def lint_module(
    module: cst.Module,
    path: str,
    rule_classes: Sequence[type[Rule]],
    lines: list[str] | None = None,
    *,
    fixes: FixPlanner | None = None,
    source: str | None = None,
    project: dict | None = None,
    compiled_lines: set[int] | None = None,
    spans_from: Callable | None = None,
) -> list[Finding]:
    """Findings of the given rules in one parsed module (``source``: its text, when at hand;
    ``project``: the file's facts from the project-wide analysis,
    :meth:`torchlint.analysis.project.Project.facts`, with ``train`` / ``half`` when the pass
    checks training-only / half-precision-only code, ``mode: "train"`` when it checks the
    module in training mode alone). The walk under :func:`torchlint.static.lint.lint_file`,
    through which every caller lints a file.

    With ``fixes``, a finding a fix can rewrite carries its :class:`~torchlint.findings.Fix`.
    ``compiled_lines``: every function holding one of these lines is taken as compiled too
    (dynamo broke there). ``spans_from``: computes the reported nodes' ranges in place of
    :func:`~torchlint.analysis.tree.spans_of` (same signature; the incremental parser's keeps
    them for unchanged statements)."""
    imports = ImportTable.from_module(module)
    if project:
        imports.apply_project(project)
    imports.numpy_breaks_on, imports.numpy_keeps_int = knowledge.numpy_on_numbers()
    facts = project or {}
    index = build_index(
        module,
        imports,
        train=bool(facts.get("train")),
        half=bool(facts.get("half")),
        training=facts.get("mode") == "train",
    )
    regions = find_regions(index, project)
    if compiled_lines:
        owners = {id(m): info for info in index.classes.values() for m in info.methods.values()}
        functions = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
        for node, ((start, _), (end, _)) in positions(module, functions).items():
            fn = cast(cst.FunctionDef, node)
            if fn not in regions and any(start <= line <= end for line in compiled_lines):
                regions[fn] = Region(node=fn, qualname=fn.name.value, root=fn.name.value, owner=owners.get(id(fn)))
    if not regions or not rule_classes:
        return []
    planning = fixes.start(module, rule_classes) if fixes is not None else None
    ctx = FileContext(path, module, index, regions, planning.report if planning is not None else None)
    rules = [cls(ctx) for cls in rule_classes]
    walker = _Walker(ctx, rules)
    for cname, attrs in facts.get("passed_tensors", {}).items():
        if cname in index.classes:
            index.classes[cname].passed_tensors = set(attrs)
    sparse = facts.get("sparse", {})
    for cname, attrs in sparse.get("attrs", {}).items():
        if cname in index.classes:
            index.classes[cname].sparse_attrs = set(attrs)
    for node, region in list(regions.items()):
        region.sparse_params = set(sparse.get("params", {}).get(region.qualname, ()))
        ctx.region = region
        ctx.scope = TensorScope(imports, region.owner)
        all_tensors = region.is_root or region.cross_file
        called_with = facts.get("params", {}).get(region.qualname)
        region.computed_params.update(facts.get("computed", {}).get(region.qualname, ()))
        unpassed = {**region.defaults, **facts.get("unpassed", {}).get(region.qualname, {})}
        index.constants = _constant_params(node, unpassed)
        if region.owner is not None:  # `self.reset_delay`, as every construction leaves it
            kept = facts.get("kept", {}).get(region.owner.name, {})
            index.constants.update({f"self.{attr}": value for attr, value in kept.items()})
        index.decided = entry_decisions(node, region.entry)
        ctx.scope.bind_params(
            node,
            region.tensor_params,
            all_tensors=all_tensors,
            called_with=called_with,
            records=region.record_params,
            guessed_params=region.guessed_params,
        )
        walker.walk(node.body)
    ctx.region = ctx.scope = None
    index.constants = {}
    index.decided = {}
    if not ctx.reports:
        return []
    whole: Iterable[cst.CSTNode] = ()
    if planning is not None:
        try:
            whole = list(planning.nodes())
        except Exception:  # noqa: BLE001 - the marks are a hint: never lose the findings over them
            planning = None
    reported = [item[1] for item in ctx.reports]
    # a node's own parentheses are outside its position: `if (\n a.any()\n or b\n):` is
    # reported from the `(`, the line dynamo names
    opening = {node: paren for node in reported if (paren := opening_paren(node)) is not None}
    spans, text_spans = (spans_from or spans_of)(module, reported + list(opening.values()), whole)
    for node, paren in opening.items():
        if node in spans and paren in spans:
            spans[node] = (spans[paren][0], spans[node][1])
    fix_at: dict[tuple[str, int, int], Fix] = {}
    if planning is not None:
        try:
            for fixed, code, fix in planning.fixes(text_spans, module.code if source is None else source):
                (line, column), _ = spans[fixed]
                fix_at[(code, line, column)] = fix
        except Exception:  # noqa: BLE001 - as above
            fix_at = {}
    if lines is None:
        lines = source_lines(module.code if source is None else source)
    findings = []
    seen = set()
    reports, ctx.reports = ctx.reports, []  # they hold the rules, which hold ctx: no cycle outlives the walk
    for rule, node, message, suggestion, region in reports:
        (line, column), (end_line, end_column) = spans[node]
        key = (rule.code, line, column)
        if key in seen:
            continue
        seen.add(key)
        if not region.is_root:
            message = f"{message} (called from {region.root})"
        findings.append(
            Finding(
                rule=rule.code,
                name=rule.name,
                path=path,
                line=line,
                column=column + 1,
                end_line=end_line,
                end_column=end_column + 1,
                message=message,
                suggestion=suggestion,
                source="static",
                gb_code=None,
                region=region.qualname,
                severity=rule.severity,
                fix=fix_at.get(key),
                source_line=line_at(lines, line),
            )
        )
    return findings
