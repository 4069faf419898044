"""Plan fixes while linting a file, apply the non-overlapping ones in one pass, repeat.

One round: parse the text, run the fixable rules over it with every report also handed to
its :class:`~torchlint.fixes.base.Fixer` (so a fix sees the scope the rule saw), keep the
plans whose findings survive suppression comments and ``per-file-ignores``, pick plans whose
edits do not overlap (in source order, like ruff), apply them with one libcst transformer,
and check that the result still parses. Rounds repeat until nothing changes (a fix can
expose another: ``if gate.item() > 0.5`` becomes ``if gate > 0.5``, which the
``torch.where`` fix then takes), at most :data:`MAX_ROUNDS` times.

The lint hot path is untouched: this runs only for ``--fix``/``--diff`` and to mark fixable
findings in a report, and only on files whose findings have a fix.
"""
from __future__ import annotations

import os
import re
import tokenize
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Type

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from torchlint.atomic import write_text_atomic
from torchlint.fixes import fixer_for
from torchlint.fixes.base import REMOVE, SAFE, Applied, FixContext, FixOutcome, Plan
from torchlint.findings import Finding, Fix
from torchlint.rules.base import Rule
from torchlint import suppression
from torchlint.static.engine import lint_module
from torchlint.files import FileProblem, decode_source, source_lines
from torchlint.static.limits import too_deep
from torchlint.analysis.names import dotted

MAX_ROUNDS = 6
_CANDIDATE = re.compile(r"torch|Module|compile")
Key = Tuple[str, int, int]  # (rule code, line, column) of a finding


# -- planning ---------------------------------------------------------------------------------
def fixable_rules(rule_classes: Sequence[Type[Rule]]) -> List[Type[Rule]]:
    """The rules that declare a fix (``fix_applicability``) and have a fixer for it."""
    return [c for c in rule_classes if c.fix_applicability and fixer_for(c.code) is not None]


def _capturing(cls: Type[Rule], sink: List[Plan], fctx: FixContext) -> Type[Rule]:
    """A subclass of ``cls`` that also asks the rule's fixer for a plan at each report."""
    fixer = fixer_for(cls.code)

    def report(self, node, message=None, suggestion=None, fix=None):
        cls.report(self, node, message, suggestion, fix)
        if fixer is not None and all(p.node is not node for p in sink):
            try:
                plan = fixer.plan(node, self, fctx)
            except Exception:  # noqa: BLE001 - a fixer's bug costs its fix, never the lint
                plan = None
            if plan is not None:
                sink.append(plan)

    return type(f"Fixing{cls.__name__}", (cls,), {"report": report})


class Planned:
    """A parsed file, the plans its findings allow, and where each plan's nodes sit."""

    def __init__(self, module: cst.Module, ctx: FixContext, plans: List[Plan],
                 keys: Dict[int, Key], spans: Dict[cst.CSTNode, CodeRange]) -> None:
        self.module = module
        self.ctx = ctx
        self.plans = plans
        self.keys = keys  # id(plan) -> the finding key it fixes
        self.spans = spans


def plan_source(
    source: str,
    path: str,
    rule_classes: Sequence[Type[Rule]],
    *,
    unsafe: bool,
    ignored: Iterable[str] = (),
) -> Optional[Planned]:
    """Plans for the fixable findings of ``source`` (``None`` when it does not parse)."""
    classes = fixable_rules(rule_classes)
    if not classes or not _CANDIDATE.search(source) or too_deep(source):
        return None  # too deep: libcst would overflow the stack (the check reports the file)
    try:
        module = cst.parse_module(source)
    except Exception:  # noqa: BLE001 - the check reports unparsable files; nothing to fix here
        return None
    ctx = FixContext(module, {c.code for c in classes})
    sink: List[Plan] = []
    lines = source_lines(source)  # numbered as Python does, so suppressions line up
    try:
        findings = lint_module(module, path, [_capturing(c, sink, ctx) for c in classes], lines)
    except RecursionError:
        return None
    if not sink:
        return Planned(module, ctx, [], {}, {})
    ignored = tuple(ignored)
    table = suppression.parse(lines)
    live: Set[Key] = {
        (f.rule, f.line, f.column) for f in findings  # type: ignore[misc]
        if not suppression.is_suppressed(f, table) and not any(f.rule.startswith(p) for p in ignored)
    }
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    plans, keys = [], {}
    for plan in sink:
        pos = positions[plan.node]
        key = (plan.code, pos.start.line, pos.start.column + 1)
        if key in live and (unsafe or plan.applicability == SAFE):
            plans.append(plan)
            keys[id(plan)] = key
    spans = {node: positions[node] for plan in plans for node in plan.edits}
    return Planned(module, ctx, plans, keys, spans)


# -- applying ---------------------------------------------------------------------------------
def _overlaps(a: CodeRange, b: CodeRange) -> bool:
    return (a.start.line, a.start.column) < (b.end.line, b.end.column) and (
        b.start.line, b.start.column) < (a.end.line, a.end.column)


def choose(planned: Planned) -> List[Plan]:
    """Plans in source order whose edits touch none of an earlier chosen plan's nodes."""
    chosen: List[Plan] = []
    taken: List[CodeRange] = []
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
        self.placeholders: Dict[int, cst.CSTNode] = {}  # by id, kept alive so ids stay unique
        self.ctx = ctx
        ctx.new_guards.clear()
        # Only the edited nodes and their ancestors need a visit; every other subtree is kept.
        self.wanted: Set[cst.CSTNode] = set(self.edits)
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
        body, pending = [], []
        for stmt in block.body:
            if self._removed(stmt):
                pending.extend(stmt.leading_lines)
                continue
            if pending:
                stmt = stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines])
                pending = []
            if body and is_guard(body[-1]) and is_guard(stmt) and not stmt.leading_lines:
                merged = body[-1].with_changes(body=body[-1].body.with_changes(
                    body=[*body[-1].body.body, *stmt.body.body]))
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
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _add_import_torch(module: cst.Module) -> cst.Module:
    """``import torch`` before the first top-level torch import, else after the last import
    (else after the docstring)."""
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        if _is_import_line(stmt):
            at = i + 1
            names = [s.module if isinstance(s, cst.ImportFrom) else s.names[0].name for s in stmt.body]
            if any(n is not None and (dotted(n) or "").split(".")[0] == "torch" for n in names):
                at = i
                line = cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name("torch"))])],
                                               leading_lines=stmt.leading_lines)
                body[i] = stmt.with_changes(leading_lines=())
                body.insert(at, line)
                return module.with_changes(body=body)
    if at == 0 and body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        at = 1
    line = cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name("torch"))])])
    body.insert(at, line)
    return module.with_changes(body=body)


def _compiles(code: str) -> Optional[bool]:
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


def apply_plans(planned: Planned, plans: Sequence[Plan]) -> Tuple[str, List[Plan]]:
    """The new text with ``plans`` applied, and the plans that made it (bad ones dropped)."""
    original = planned.module.code

    def run(subset: Sequence[Plan]) -> Optional[str]:
        try:
            code = planned.module.visit(_Apply(subset, planned.ctx)).code
        except Exception:  # noqa: BLE001 - a broken edit is dropped like one giving bad code
            return None
        return code if _parses(code, original) else None

    code = run(plans)
    if code is not None:
        return code, list(plans)
    good: List[Plan] = []  # a fix produced invalid code: keep the others, one by one
    for plan in plans:
        if run(good + [plan]) is not None:
            good.append(plan)
    return (run(good) or original) if good else original, good


def fix_source(
    source: str,
    path: str,
    rule_classes: Sequence[Type[Rule]],
    *,
    unsafe: bool,
    ignored: Iterable[str] = (),
) -> FixOutcome:
    """Apply every allowed fix to ``source``, round after round, until nothing changes."""
    outcome = FixOutcome(path=path, old=source, new=source)
    ignored = tuple(ignored)
    for _ in range(MAX_ROUNDS):
        planned = plan_source(outcome.new, path, rule_classes, unsafe=unsafe, ignored=ignored)
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


# -- files ------------------------------------------------------------------------------------
def _read(path: str) -> Tuple[str, str]:
    """The text and the encoding to write it back with (``utf-8-sig`` keeps a BOM)."""
    with open(path, "rb") as fh:
        data = fh.read()
    text = decode_source(data)
    try:
        import io

        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    return text, encoding


def fix_files(
    files: Sequence[str],
    rule_classes: Sequence[Type[Rule]],
    *,
    unsafe: bool,
    write: bool,
    cwd: str,
    ignored_for: Callable[[str], Iterable[str]] = lambda path: (),
) -> List[FixOutcome]:
    """Fix each file (paths relative to ``cwd``); write the changed ones when ``write``."""
    outcomes = []
    for path in files:
        full = os.path.join(cwd, path)
        if path.endswith(".ipynb"):
            outcome = _fix_notebook(full, path, rule_classes, unsafe=unsafe, write=write, ignored=ignored_for(path))
            if outcome is not None:
                outcomes.append(outcome)
            continue
        try:
            source, encoding = _read(full)
        except (OSError, FileProblem):
            continue  # the check reports files it cannot read
        outcome = fix_source(source, path, rule_classes, unsafe=unsafe, ignored=ignored_for(path))
        if outcome.changed and write:
            try:
                write_text_atomic(full, outcome.new, encoding=encoding)
            except (OSError, UnicodeEncodeError) as exc:
                outcome.error = f"cannot write the fixed file: {getattr(exc, 'strerror', None) or exc}"
        outcomes.append(outcome)
    return outcomes


def _fix_notebook(full: str, path: str, rule_classes, *, unsafe: bool, write: bool, ignored) -> Optional[FixOutcome]:
    """Fix a notebook's code cells (:mod:`torchlint.notebook`); only changed cells' sources are rewritten."""
    from torchlint.notebook import CellsMoved, fix_notebook

    try:
        outcome, new_raw = fix_notebook(full, path, rule_classes, unsafe=unsafe, ignored=ignored)
    except FileProblem:
        return None  # the check reports notebooks it cannot read
    except CellsMoved as exc:
        return FixOutcome(path=path, old="", new="", error=f"not fixed: {exc}")
    if new_raw is not None and write:
        try:
            write_text_atomic(full, new_raw, encoding="utf-8")
        except (OSError, UnicodeEncodeError) as exc:
            outcome.error = f"cannot write the fixed file: {getattr(exc, 'strerror', None) or exc}"
    return outcome


# -- marking findings in a report -------------------------------------------------------------
def mark_fixable(
    findings: Sequence[Finding],
    rule_classes: Sequence[Type[Rule]],
    *,
    cwd: str,
) -> None:
    """Set ``Finding.fix`` on each finding a fix can rewrite (safe and unsafe alike).

    Only files holding a finding of a rule with a fix are parsed again, once each.
    ``Fix.new_source`` is the file's text after one pass of the fixes of that applicability
    (safe ones for a safe fix; all for an unsafe one): what ``--fix`` would write, before any
    follow-up round. The findings of one file share those two texts.
    """
    codes = frozenset(c.code for c in fixable_rules(rule_classes))
    by_path: Dict[str, List[Finding]] = {}
    for f in findings:
        if f.rule in codes and f.source != "dynamic":
            by_path.setdefault(f.path, []).append(f)
    for path, file_findings in by_path.items():
        try:
            source, _ = _read(os.path.join(cwd, path))
        except (OSError, FileProblem):
            continue
        planned = plan_source(source, path, rule_classes, unsafe=True)
        if planned is None or not planned.plans:
            continue
        texts: Dict[str, Tuple[str, List[Plan]]] = {}
        safe = [p for p in planned.plans if p.applicability == SAFE]
        for applicability, allowed in ((SAFE, safe), ("unsafe", planned.plans)):
            if applicability != SAFE and len(allowed) == len(safe):
                texts[applicability] = texts[SAFE]
                continue
            sub = Planned(planned.module, planned.ctx, allowed, planned.keys, planned.spans)
            texts[applicability] = apply_plans(planned, choose(sub)) if allowed else (source, [])
        by_key = {planned.keys[id(p)]: p for p in planned.plans}
        for f in file_findings:
            plan = by_key.get((f.rule, f.line, f.column))  # type: ignore[arg-type]
            if plan is None:
                continue
            text, used = texts[SAFE if plan.applicability == SAFE else "unsafe"]
            if text != source and used:
                f.fix = Fix(applicability=plan.applicability, description=plan.description,  # type: ignore[arg-type]
                            new_source=text)


# -- what the CLI calls -----------------------------------------------------------------------
def _selected_rules(settings) -> List[Type[Rule]]:
    from torchlint.rules import all_rules
    from torchlint.static.run import select_rules

    return select_rules(settings.enabled_rules([r.code for r in all_rules()]))


def fix_paths(paths: Sequence[str], settings, cwd: str, *, unsafe: bool, write: bool) -> List[FixOutcome]:
    """``--fix`` / ``--diff``: fix every checked file under ``paths`` with the enabled rules."""
    from torchlint.files import discover

    files, _ = discover(paths, settings.exclude, cwd)  # missing paths: the check reports them
    return fix_files(files, _selected_rules(settings), unsafe=unsafe, write=write, cwd=cwd,
                     ignored_for=settings.ignored_for)


def mark_report(report, settings, cwd: str, *, unsafe: bool) -> int:
    """Mark the report's fixable findings; the number only ``--unsafe-fixes`` would fix."""
    mark_fixable(report.findings, _selected_rules(settings), cwd=cwd)
    if unsafe:
        return 0
    return sum(1 for f in report.findings if f.fix is not None and f.fix.applicability != SAFE)


def unified_diff(outcome: FixOutcome) -> str:
    """``--- a/path`` / ``+++ b/path`` hunks, as ``git diff`` prints them."""
    import difflib

    def lines(text: str) -> List[str]:
        out = text.splitlines(True)
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += "\n\\ No newline at end of file\n"
        return out

    return "".join(difflib.unified_diff(lines(outcome.old), lines(outcome.new),
                                        f"a/{outcome.path}", f"b/{outcome.path}"))
