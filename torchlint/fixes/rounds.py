"""Fixing text in rounds: plan fixes while linting it, apply the non-overlapping ones in one
pass, re-parse, repeat.

One round: parse the text, run the fixable rules over it with every report also handed to
its :class:`~torchlint.fixes.base.Fixer` (so a fix sees the scope the rule saw), keep the
plans whose findings survive suppression comments and ``per-file-ignores``, pick plans whose
edits do not overlap (in source order, like ruff), apply them with one libcst transformer
(:class:`torchlint.fixes.edits.ApplyPlans`), and check that the result still parses. Rounds
repeat until nothing changes (a fix can expose another: ``if gate.item() > 0.5`` becomes
``if gate > 0.5``, which the ``torch.where`` fix then takes), at most :data:`MAX_ROUNDS`
times. Everything here is text in, text out; what one plan changes as text edits is
:mod:`torchlint.fixes.edits`'s, and reading and writing files, marking a report's findings
and diffs are :mod:`torchlint.fixes.fix_files`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange

from torchlint import suppression
from torchlint.analysis.tree import code_ranges, opening_paren, validated
from torchlint.files import source_lines
from torchlint.fixes import fixer_for
from torchlint.fixes.base import SAFE, Applied, FixContext, FixOutcome, Plan
from torchlint.fixes.edits import ApplyPlans, parses
from torchlint.rules.base import Rule
from torchlint.static.engine import FileFixes, FixPlanner
from torchlint.static.lint import lint_file

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


class _Planner(FixPlanner):
    """Hands the engine a :class:`Planning` for the file it parses, and keeps it."""

    def __init__(self, codes: set[str]) -> None:
        self.codes = codes
        self.planning: Planning | None = None

    def start(self, module: cst.Module, rule_classes: Sequence[type[Rule]]) -> Planning:
        self.planning = Planning(module, self.codes)
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
    """Plans for the fixable findings of ``source`` that ``options`` allow (``None`` when no
    finding has one, or the file cannot be checked: the check reports why)."""
    classes = options.fixable
    if not classes:
        return None
    planner = _Planner({c.code for c in classes})
    result = lint_file(path, source, classes, facts=options.facts, fixes=planner)
    planning = planner.planning
    if result.error or planning is None or not planning.plans:
        return None
    module, ctx, sink, findings = planning.module, planning.ctx, planning.plans, result.findings
    lines = source_lines(source)  # numbered as Python does, so suppressions line up
    table = suppression.parse(lines)
    live: set[Key] = {
        (f.rule, f.line, f.column)
        for f in findings
        if f.rule is not None  # a rule's finding, as every static one is
        and not suppression.is_suppressed(f, table)
        and not any(f.rule.startswith(p) for p in options.ignored)
    }
    parens = [p for p in (opening_paren(plan.node) for plan in sink) if p is not None]
    positions = code_ranges(
        module, [plan.node for plan in sink] + [node for plan in sink for node in plan.edits] + parens
    )
    plans, keys = [], {}
    for plan in sink:
        paren = opening_paren(plan.node)
        start = positions[paren if paren is not None and paren in positions else plan.node].start
        key = (plan.code, start.line, start.column + 1)  # where the finding is reported
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


def apply_plans(planned: Planned, plans: Sequence[Plan]) -> tuple[str, list[Plan]]:
    """The new text with ``plans`` applied, and the plans that made it (bad ones dropped)."""
    original = planned.module.code

    def run(subset: Sequence[Plan]) -> str | None:
        try:
            code = planned.module.visit(ApplyPlans(subset, planned.ctx)).code
        except Exception:  # noqa: BLE001 - a broken edit is dropped like one giving bad code
            return None
        return code if parses(code, original) else None

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
