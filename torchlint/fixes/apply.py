"""Fixing text: plan fixes while linting it, apply the non-overlapping ones in one pass, repeat.

One round: parse the text, run the fixable rules over it with every report also handed to
its :class:`~torchlint.fixes.base.Fixer` (so a fix sees the scope the rule saw), keep the
plans whose findings survive suppression comments and ``per-file-ignores``, pick plans whose
edits do not overlap (in source order, like ruff), apply them with one libcst transformer,
and check that the result still parses. Rounds repeat until nothing changes (a fix can
expose another: ``if gate.item() > 0.5`` becomes ``if gate > 0.5``, which the
``torch.where`` fix then takes), at most :data:`MAX_ROUNDS` times.

Also here: what one plan alone changes, as text edits (:class:`~torchlint.findings.Edit`)
(:func:`plan_changes`, :func:`edits_of`), and :func:`apply_edits`. Everything here is text
in, text out; reading and writing files, marking a report's findings and diffs are
:mod:`torchlint.fixes.fix_files`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple, cast

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange

from torchlint import suppression
from torchlint.analysis.names import dotted
from torchlint.analysis.tree import Span, children, code_ranges, validated
from torchlint.files import source_lines
from torchlint.findings import Edit
from torchlint.fixes import fixer_for
from torchlint.fixes.base import REMOVE, SAFE, Applied, FixContext, FixOutcome, Plan
from torchlint.rules.base import Rule
from torchlint.static.engine import FileFixes, FixPlanner, lint_module
from torchlint.static.limits import parse, too_deep
from torchlint.static.sources import is_candidate

MAX_ROUNDS = 6
Key = tuple[str, int, int]  # (rule code, line, column) of a finding


# -- planning ---------------------------------------------------------------------------------
def fixable_rules(rule_classes: Sequence[type[Rule]]) -> list[type[Rule]]:
    """The rules that declare a fix (``fix_applicability``) and have a fixer for it."""
    return [c for c in rule_classes if c.fix_applicability and fixer_for(c.code) is not None]


class Planning(FileFixes):
    """The plans of one file, asked of each report's fixer while the rules walk it (so a
    fix sees the scope the rule saw): one plan per reported node."""

    def __init__(self, module: cst.Module, codes: set[str]) -> None:
        self.module = module
        self.codes = codes
        self._ctx: FixContext | None = None
        self.plans: list[Plan] = []
        self._planned: set[int] = set()  # ids of the nodes with a plan

    @property
    def ctx(self) -> FixContext:
        """Made on first use: most files have no fixable finding."""
        if self._ctx is None:
            self._ctx = FixContext(self.module, set(self.codes))
        return self._ctx

    def report(self, rule: Rule, node: cst.CSTNode) -> None:
        if rule.code not in self.codes or id(node) in self._planned:
            return
        fixer = fixer_for(rule.code)
        if fixer is None:
            return
        region = getattr(rule.ctx, "region", None)
        if region is not None:
            self.ctx.focus(region.node)
        try:
            with validated():  # the nodes a fixer builds are checked as libcst checks them
                plan = fixer.plan(node, rule, self.ctx)
        except Exception:  # noqa: BLE001 - a fixer's bug costs its fix, never the lint
            plan = None
        if plan is not None:
            self._planned.add(id(node))
            self.plans.append(plan)


class _Given(FixPlanner):
    def __init__(self, planning: Planning) -> None:
        self.planning = planning

    def start(self, module, rule_classes) -> Planning:
        return self.planning


class Planned:
    """A parsed file, the plans its findings allow, and where each plan's nodes sit."""

    def __init__(
        self,
        module: cst.Module,
        ctx: FixContext,
        plans: list[Plan],
        keys: dict[int, Key],
        spans: dict[cst.CSTNode, CodeRange],
    ) -> None:
        self.module = module
        self.ctx = ctx
        self.plans = plans
        self.keys = keys  # id(plan) -> the finding key it fixes
        self.spans = spans


@dataclass(frozen=True)
class FixOptions:
    """What fixing one text may do, the one home of the fix settings that planning, every
    round of :func:`fix_source` and the callers pass along: the enabled rules (those with a
    fixer are fixed), ``unsafe`` (also the fixes that change behaviour or need review), the
    codes or prefixes ignored for the file (``per-file-ignores``: their findings are not
    fixed) and the file's facts from the project-wide analysis, as the check uses them
    (:func:`torchlint.static.static_pass.project_facts`), so a finding that exists only through
    another file (a helper called from a forward elsewhere) is fixed too."""

    rule_classes: Sequence[type[Rule]]  # kept as a tuple
    unsafe: bool
    ignored: Sequence[str] = ()  # kept as a tuple
    facts: dict | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule_classes", tuple(self.rule_classes))
        object.__setattr__(self, "ignored", tuple(self.ignored))

    @cached_property
    def fixable(self) -> list[type[Rule]]:
        """The rules of :attr:`rule_classes` that can be fixed (:func:`fixable_rules`)."""
        return fixable_rules(self.rule_classes)

    def for_file(self, ignored: Iterable[str] = (), facts: dict | None = None) -> FixOptions:
        """These options for one file: its ignored codes and its project facts."""
        return replace(self, ignored=tuple(ignored), facts=facts)


def plan_source(source: str, path: str, options: FixOptions) -> Planned | None:
    """Plans for the fixable findings of ``source`` (``None`` when it does not parse) that
    ``options`` allow."""
    classes, facts = options.fixable, options.facts
    reached = bool(facts and (facts.get("roots") or facts.get("reached")))
    if not classes or not (reached or is_candidate(source)) or too_deep(source):
        return None  # too deep: libcst would overflow the stack (the check reports the file)
    try:
        module = parse(source)
    except Exception:  # noqa: BLE001 - the check reports unparsable files; nothing to fix here
        return None
    planning = Planning(module, {c.code for c in classes})
    ctx, sink = planning.ctx, planning.plans
    lines = source_lines(source)  # numbered as Python does, so suppressions line up
    try:
        findings = lint_module(module, path, classes, lines, fixes=_Given(planning), source=source, project=facts)
    except RecursionError:
        return None
    if not sink:
        return Planned(module, ctx, [], {}, {})
    table = suppression.parse(lines)
    live: set[Key] = {
        (f.rule, f.line, f.column)
        for f in findings
        if f.rule is not None  # a rule's finding, as every static one is
        and not suppression.is_suppressed(f, table)
        and not any(f.rule.startswith(p) for p in options.ignored)
    }
    positions = code_ranges(module, [plan.node for plan in sink] + [node for plan in sink for node in plan.edits])
    plans, keys = [], {}
    for plan in sink:
        pos = positions[plan.node]
        key = (plan.code, pos.start.line, pos.start.column + 1)
        if key in live and (options.unsafe or plan.applicability == SAFE):
            plans.append(plan)
            keys[id(plan)] = key
    spans = {node: positions[node] for plan in plans for node in plan.edits}
    return Planned(module, ctx, plans, keys, spans)


# -- applying ---------------------------------------------------------------------------------
def _overlaps(a: CodeRange, b: CodeRange) -> bool:
    return (a.start.line, a.start.column) < (b.end.line, b.end.column) and (b.start.line, b.start.column) < (
        a.end.line,
        a.end.column,
    )


def choose(planned: Planned) -> list[Plan]:
    """Plans in source order whose edits touch none of an earlier chosen plan's nodes."""
    chosen: list[Plan] = []
    taken: list[CodeRange] = []
    for plan in sorted(planned.plans, key=lambda p: planned.keys[id(p)][1:]):
        spans = [planned.spans[n] for n in plan.edits]
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue  # left for the next round
        chosen.append(plan)
        taken.extend(spans)
    return chosen


class _Apply(cst.CSTTransformer):
    """Replace planned nodes; drop removed statements but keep their comment lines."""

    def __init__(self, plans: Sequence[Plan], ctx: FixContext) -> None:
        super().__init__()
        self.edits = {node: fn for plan in plans for node, fn in plan.edits.items()}
        self.import_torch = any(p.needs_torch for p in plans) and "torch" not in ctx.imports.aliases.values()
        self.placeholders: dict[int, cst.CSTNode] = {}  # by id, kept alive so ids stay unique
        self.ctx = ctx
        ctx.new_guards.clear()
        # Only the edited nodes and their ancestors need a visit; every other subtree is kept.
        self.wanted: set[cst.CSTNode] = set(self.edits)
        for node in self.edits:
            self.wanted.update(ctx.ancestors(node))

    def on_visit(self, node) -> bool:
        return node in self.wanted

    def on_leave(self, original_node, updated_node):
        fn = self.edits.get(original_node)
        if fn is not None:
            result = fn(updated_node)
            if result is REMOVE:
                placeholder = cst.SimpleStatementLine([cst.Pass()], leading_lines=original_node.leading_lines)
                self.placeholders[id(placeholder)] = placeholder
                return placeholder
            return result
        if isinstance(updated_node, cst.IndentedBlock):
            return self._tidy(updated_node, keep_one=True)
        if isinstance(updated_node, cst.Module):
            module = self._tidy(updated_node, keep_one=False)
            return _add_import_torch(module) if self.import_torch else module
        return updated_node

    def _removed(self, stmt: cst.CSTNode) -> bool:
        return self.placeholders.get(id(stmt)) is stmt

    def _tidy(self, block, keep_one: bool):
        """Drop removed statements (their comment lines move down); merge adjacent new guards."""
        is_guard = self.ctx.is_new_guard
        if not any(self._removed(s) or is_guard(s) for s in block.body):
            return block
        body: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for stmt in block.body:
            if self._removed(stmt):
                pending.extend(stmt.leading_lines)
                continue
            if pending:
                stmt = stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines])
                pending = []
            last = body[-1] if body else None
            if (
                isinstance(last, cst.If)  # a new guard is an `if`
                and is_guard(last)
                and isinstance(stmt, cst.If)
                and is_guard(stmt)
                and not stmt.leading_lines
            ):
                merged = last.with_changes(body=last.body.with_changes(body=[*last.body.body, *stmt.body.body]))
                self.ctx.new_guards[id(merged)] = merged
                body[-1] = merged
                continue
            body.append(stmt)
        if not body and keep_one:
            body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=pending))
        elif pending:
            return block.with_changes(body=body, footer=[*pending, *block.footer])
        return block.with_changes(body=body)


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _add_import_torch(module: cst.Module) -> cst.Module:
    """``import torch`` before the first top-level torch import, else after the last import
    (else after the docstring)."""
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        if _is_import_line(stmt):
            at = i + 1
            small = cast(cst.SimpleStatementLine, stmt).body  # imports only: _is_import_line
            names = [s.module if isinstance(s, cst.ImportFrom) else cast(cst.Import, s).names[0].name for s in small]
            if any(n is not None and (dotted(n) or "").split(".")[0] == "torch" for n in names):
                at = i
                line = cst.SimpleStatementLine(
                    [cst.Import([cst.ImportAlias(cst.Name("torch"))])], leading_lines=stmt.leading_lines
                )
                body[i] = stmt.with_changes(leading_lines=())
                body.insert(at, line)
                return module.with_changes(body=body)
    if (
        at == 0
        and body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        at = 1
    line = cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name("torch"))])])
    body.insert(at, line)
    return module.with_changes(body=body)


def _compiles(code: str) -> bool | None:
    """Whether Python compiles ``code`` (``None``: it cannot tell, e.g. too deeply nested)."""
    try:
        compile(code, "<torchlint-fix>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    except (ValueError, RecursionError, MemoryError):
        return None
    return True


def _parses(code: str, original: str) -> bool:
    """Python compiles ``code``; when it cannot tell, or did not compile the original either
    (newer syntax than this Python's), libcst must parse it."""
    verdict = _compiles(code)
    if verdict is True:
        return True
    if verdict is False and _compiles(original) is not False:
        return False
    try:
        cst.parse_module(code)
    except Exception:  # noqa: BLE001
        return False
    return True


def apply_plans(planned: Planned, plans: Sequence[Plan]) -> tuple[str, list[Plan]]:
    """The new text with ``plans`` applied, and the plans that made it (bad ones dropped)."""
    original = planned.module.code

    def run(subset: Sequence[Plan]) -> str | None:
        try:
            code = planned.module.visit(_Apply(subset, planned.ctx)).code
        except Exception:  # noqa: BLE001 - a broken edit is dropped like one giving bad code
            return None
        return code if _parses(code, original) else None

    code = run(plans)
    if code is not None:
        return code, list(plans)
    good: list[Plan] = []  # a fix produced invalid code: keep the others, one by one
    for plan in plans:
        if run(good + [plan]) is not None:
            good.append(plan)
    return (run(good) or original) if good else original, good


def fix_source(source: str, path: str, options: FixOptions) -> FixOutcome:
    """Apply every fix ``options`` allow to ``source``, round after round, until nothing
    changes (the fixes rename nothing, so the project facts of the text before the first
    round hold for every round)."""
    outcome = FixOutcome(path=path, old=source, new=source)
    for _ in range(MAX_ROUNDS):
        planned = plan_source(outcome.new, path, options)
        if planned is None or not planned.plans:
            break
        code, used = apply_plans(planned, choose(planned))
        if code == outcome.new:
            break
        for plan in used:
            _, line, column = planned.keys[id(plan)]
            outcome.applied.append(Applied(plan.code, line, column, plan.applicability, plan.description))
        outcome.new = code
    return outcome


# -- one plan as text edits --------------------------------------------------------------
class Change(NamedTuple):
    """Part of what one plan does: the old statements ``first``..``last`` (their whole text)
    become ``text``; with no old statements, ``text`` goes before (or after) ``anchor``."""

    first: cst.CSTNode | None
    last: cst.CSTNode | None
    anchor: cst.CSTNode | None
    before: bool
    text: str


def plan_changes(plan: Plan, ctx: FixContext) -> list[Change] | None:
    """What applying ``plan`` alone changes in ``ctx.module``, statement by statement
    (``None`` when the plan cannot be applied). Only the changed statements are generated."""
    module = ctx.module
    try:
        new = module.visit(_Apply([plan], ctx))
    except Exception:  # noqa: BLE001 - a broken edit costs its fix, never the lint
        return None
    out: list[Change] = []
    if new is not module and not _diff_block(module, new, [], module, out):
        out = [Change(module, module, None, True, new.code)]
    return out


def _same(a: Sequence[cst.CSTNode], b: Sequence[cst.CSTNode]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _diff_block(old, new, indent: list[str], module: cst.Module, out: list[Change]) -> bool:
    """Append the changes from block (or module) ``old`` to ``new``; False when they are
    not inside its statements (its header or footer changed): the caller replaces it."""
    if not _same(old.footer, new.footer) or not _same(
        old.header if isinstance(old, cst.Module) else (old.header,),
        new.header if isinstance(new, cst.Module) else (new.header,),
    ):
        return False
    if isinstance(old, cst.Module):
        if (old.default_indent, old.default_newline, old.has_trailing_newline, old.encoding) != (
            new.default_indent,
            new.default_newline,
            new.has_trailing_newline,
            new.encoding,
        ):
            return False
    elif old.indent != new.indent:
        return False
    ob, nb = old.body, new.body
    i = 0
    while i < len(ob) and i < len(nb) and ob[i] is nb[i]:
        i += 1
    j = 0
    while j < min(len(ob), len(nb)) - i and ob[len(ob) - 1 - j] is nb[len(nb) - 1 - j]:
        j += 1
    om, nm = ob[i : len(ob) - j], nb[i : len(nb) - j]
    if not om and not nm:
        return True
    if len(om) == 1 and len(nm) == 1 and _only_body_differs(om[0], nm[0]):
        inner: list[Change] = []
        block = om[0].body
        if _diff_block(
            block, nm[0].body, [*indent, module.default_indent if block.indent is None else block.indent], module, inner
        ):
            out.extend(inner)
            return True
    text = _render(nm, indent, module)
    if om:
        out.append(Change(om[0], om[-1], None, True, text))
    elif i < len(ob):
        out.append(Change(None, None, ob[i], True, text))
    elif ob:
        out.append(Change(None, None, ob[-1], False, text))
    else:
        return False
    return True


def _only_body_differs(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Compound statements of one kind whose indented bodies are all that differs."""
    old_body, new_body = getattr(old, "body", None), getattr(new, "body", None)
    if (
        type(old) is not type(new)
        or not isinstance(old_body, cst.IndentedBlock)
        or not isinstance(new_body, cst.IndentedBlock)
    ):
        return False
    ko, kn = children(old), children(new)
    return len(ko) == len(kn) and all(a is b or (a is old_body and b is new_body) for a, b in zip(ko, kn))


def _render(nodes: Sequence[cst.CSTNode], indent: list[str], module: cst.Module) -> str:
    """The code of statements ``nodes`` as they read inside blocks indented by ``indent``."""
    state = CodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline, indent_tokens=list(indent)
    )
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


def change_nodes(changes: Iterable[Change]) -> list[cst.CSTNode]:
    """The old nodes whose whole text range :func:`edits_of` needs."""
    return [n for c in changes for n in (c.first, c.last, c.anchor) if n is not None]


_NEWLINE = re.compile(r"\r\n?|\n")


class Lines:
    """Where each line of a text starts, numbered as the parser numbers them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        """The offset of 1-based ``line``, 0-based ``column`` (past the end: the text's end)."""
        if line - 1 >= len(self.starts):
            return len(self.text)
        return min(self.starts[line - 1] + column, len(self.text))

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and 1-based column of ``offset``."""
        import bisect

        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def edits_of(changes: Sequence[Change], spans: dict[cst.CSTNode, Span], lines: Lines) -> tuple[Edit, ...]:
    """``changes`` as text edits of ``lines.text`` (``spans``: the whole text range of each
    node of :func:`change_nodes`)."""
    out = []
    for change in changes:
        first, last, anchor = change.first, change.last, change.anchor
        if first is not None and last is not None:
            start, end = spans[first][0], spans[last][1]
        else:
            assert anchor is not None, "a change replaces statements or has an anchor"
            at = spans[anchor][0 if change.before else 1]
            start = end = at
        lo, hi = lines.offset(*start), lines.offset(*end)
        text = change.text
        if end[0] - 1 >= len(lines.starts) and text.endswith(("\n", "\r")):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]  # the file ends without a newline
        out.append(Edit(*lines.position(lo), *lines.position(hi), text))
    return tuple(sorted(out, key=lambda e: (e.line, e.column, e.end_line, e.end_column)))


def edit_range(edit: Edit, lines: Lines) -> tuple[int, int]:
    return lines.offset(edit.line, edit.column - 1), lines.offset(edit.end_line, edit.end_column - 1)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` made (they must not overlap; an edit given twice is made once)."""
    lines = Lines(text)
    ranges = sorted({(*edit_range(e, lines), e.replacement) for e in edits})
    out, at = [], 0
    for lo, hi, replacement in ranges:
        if lo < at:
            raise ValueError("overlapping edits")
        out.append(text[at:lo])
        out.append(replacement)
        at = hi
    out.append(text[at:])
    return "".join(out)
