"""Fixes on files and reports: ``--fix``/``--diff`` over the checked files, and the marking
of fixable findings during the static pass.

:func:`fix_paths` / :func:`fix_files` read each file, fix its text with
:func:`torchlint.fixes.rounds.fix_source` and write the changed ones atomically;
:func:`unified_diff` shows what changed. :class:`Marker` is handed to the static pass
(``run_static(..., fixes=Marker())``): the engine tells it of every report while it walks,
so a fixable finding gets its :class:`~torchlint.findings.Fix` from the same parse and the
same walk as the finding itself.
"""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterable, Sequence
from typing import Callable

import libcst as cst

from torchlint.analysis.tree import Span, validated
from torchlint.atomic import write_text_atomic
from torchlint.files import FileProblem, decode_source
from torchlint.findings import Edit, Fix
from torchlint.fixes.base import FixOutcome, Plan
from torchlint.fixes.edits import Change, Lines, apply_edits, change_nodes, edit_range, edits_of, parses, plan_changes
from torchlint.fixes.rounds import FixOptions, Planning, fix_source, fixable_rules
from torchlint.rules.base import Rule
from torchlint.static.engine import FileFixes, FixPlanner


# -- marking findings while the static pass walks ---------------------------------------------
class Marker(FixPlanner):
    """Gives each fixable finding its fix (safe and unsafe alike): the edits its fix alone
    makes, when they change the file and the result still compiles."""

    def start(self, module: cst.Module, rule_classes: Sequence[type[Rule]]) -> FileFixes | None:
        codes = {c.code for c in fixable_rules(rule_classes)}
        return _FileMarks(module, codes) if codes else None


class _FileMarks(Planning):
    def __init__(self, module: cst.Module, codes) -> None:
        super().__init__(module, codes)
        self.changes: list[tuple[Plan, list[Change]]] = []

    def nodes(self) -> list[cst.CSTNode]:
        out: list[cst.CSTNode] = []
        for plan in self.plans:
            with validated():
                changes = plan_changes(plan, self.ctx)
            if changes:
                self.changes.append((plan, changes))
                out.extend(change_nodes(changes))
        return out

    def fixes(self, text_spans: dict[cst.CSTNode, Span], source: str) -> list[tuple[cst.CSTNode, str, Fix]]:
        lines = Lines(source)
        made: list[tuple[Plan, tuple[Edit, ...]]] = []
        for plan, changes in self.changes:
            edits = edits_of(changes, text_spans, lines)
            if any(source[lo:hi] != e.replacement for e in edits for lo, hi in [edit_range(e, lines)]):
                made.append((plan, edits))
        good = _compiling(made, source, lines)
        return [
            (plan.node, plan.code, Fix(plan.applicability, plan.description, edits))
            for k, (plan, edits) in enumerate(made)
            if k in good
        ]


def _compiling(made: list[tuple[Plan, tuple[Edit, ...]]], source: str, lines: Lines) -> set[int]:
    """The indices of the fixes whose edits, each fix alone, leave code that compiles.

    Checked a batch at a time: fixes whose edits do not overlap are applied together and
    compiled once; only a batch that does not compile is checked fix by fix."""
    ranges = [[(*edit_range(e, lines), e.replacement) for e in edits] for _, edits in made]
    left = sorted(range(len(made)), key=lambda k: ranges[k][0][:2] if ranges[k] else (0, 0))
    good: set[int] = set()
    while left:
        batch: list[int] = []
        taken: set[tuple[int, int, str]] = set()
        rest: list[int] = []
        for k in left:
            new = [r for r in ranges[k] if r not in taken]
            if any(
                lo < t_hi and t_lo < hi or lo == hi == t_lo or t_lo == t_hi == lo
                for lo, hi, _ in new
                for t_lo, t_hi, _ in taken
            ):
                rest.append(k)
                continue
            batch.append(k)
            taken.update(new)
        edits = [e for k in batch for e in made[k][1]]
        if parses(apply_edits(source, edits), source):
            good.update(batch)
        else:
            good.update(k for k in batch if parses(apply_edits(source, made[k][1]), source))
        left = rest
    return good


# -- files ------------------------------------------------------------------------------------
def _read(path: str) -> tuple[str, str]:
    """The text and the encoding to write it back with (``utf-8-sig`` keeps a BOM)."""
    with open(path, "rb") as fh:
        data = fh.read()
    text = decode_source(data)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    return text, encoding


def fix_files(
    files: Sequence[str],
    options: FixOptions,
    *,
    write: bool,
    cwd: str,
    ignored_for: Callable[[str], Iterable[str]] = lambda path: (),
    facts: dict[str, dict | None] | None = None,
    bare: Iterable[str] = (),
) -> list[FixOutcome]:
    """Fix each file (paths relative to ``cwd``) as ``options`` allow, with each file's
    ignored codes (``ignored_for(path)``) and facts; write the changed ones when ``write``.
    ``facts``: path -> the file's project facts (:func:`torchlint.static.static_pass.project_facts`);
    ``bare``: the paths of files that hold no compiled region (nothing to fix in them)."""
    outcomes = []
    facts = facts or {}
    bare = set(bare)
    for path in files:
        full = os.path.join(cwd, path)
        if path in bare:
            continue
        if path.endswith(".ipynb"):
            outcome = _fix_notebook(full, path, options.for_file(ignored_for(path)), write=write)
            if outcome is not None:
                outcomes.append(outcome)
            continue
        try:
            source, encoding = _read(full)
        except (OSError, FileProblem):
            continue  # the check reports files it cannot read
        outcome = fix_source(source, path, options.for_file(ignored_for(path), facts.get(path)))
        if outcome.changed and write:
            try:
                write_text_atomic(full, outcome.new, encoding=encoding)
            except (OSError, UnicodeEncodeError) as exc:
                outcome.error = f"cannot write the fixed file: {getattr(exc, 'strerror', None) or exc}"
        outcomes.append(outcome)
    return outcomes


def _fix_notebook(full: str, path: str, options: FixOptions, *, write: bool) -> FixOutcome | None:
    """Fix a notebook's code cells (:mod:`torchlint.static.notebook`); only changed cells' sources are rewritten."""
    from torchlint.static.notebook import CellsMoved, fix_notebook

    try:
        outcome, new_raw = fix_notebook(full, lambda text: fix_source(text, path, options))
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


def _only(facts: dict, functions: set[str]) -> dict:
    """``facts`` with the regions cut down to ``functions`` (those a given file reaches)."""
    out = dict(facts)
    out["roots"] = [r for r in facts.get("roots") or () if r in functions]
    out["reached"] = {q: via for q, via in (facts.get("reached") or {}).items() if q in functions}
    return out


def fix_paths(paths: Sequence[str], settings, cwd: str, *, unsafe: bool, write: bool) -> list[FixOutcome]:
    """``--fix`` / ``--diff``: fix every checked file under ``paths`` with the enabled rules,
    seeing the project as the check does (its facts: regions reached from other files,
    bases and names across files), unless ``settings.project`` is off."""
    from torchlint.files import discover
    from torchlint.rules import enabled_rules

    files, _ = discover(paths, settings.exclude, cwd)  # missing paths: the check reports them
    from torchlint.static.static_pass import project_facts, read_for_project, trained_if_a_script_trains, with_modes

    full = [os.path.join(cwd, f) for f in files]
    sources = read_for_project(full)
    settings = trained_if_a_script_trains(settings, sources)
    found: list[dict | None] = [None] * len(files)
    empty: set = set()
    reach: dict[str, tuple[dict, set[str]]] = {}
    if settings.project:
        found, empty = project_facts(full, sources, settings, reach=reach)
    # files not given whose functions a given file's regions reach (a base class, a helper):
    # the check reports findings in those functions, so they are fixed there, and only there
    extra = sorted(reach)
    files = [*files, *(os.path.relpath(p, cwd) for p in extra)]
    found = [*found, *(_only(*reach[p]) for p in extra)]
    sources = [*sources, *read_for_project(extra)]
    facts = dict(zip(files, with_modes(found, sources, settings)))  # what the check's facts hold
    bare = [f for f, p in zip(files, full) if os.path.abspath(p) in empty]
    return fix_files(
        files,
        FixOptions(enabled_rules(settings), unsafe=unsafe),
        write=write,
        cwd=cwd,
        ignored_for=settings.ignored_for,
        facts=facts,
        bare=bare,
    )


def unified_diff(outcome: FixOutcome) -> str:
    """``--- a/path`` / ``+++ b/path`` hunks, as ``git diff`` prints them."""
    import difflib

    def lines(text: str) -> list[str]:
        out = text.splitlines(True)
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += "\n\\ No newline at end of file\n"
        return out

    return "".join(
        difflib.unified_diff(lines(outcome.old), lines(outcome.new), f"a/{outcome.path}", f"b/{outcome.path}")
    )


def fixed_count(outcomes: Sequence[FixOutcome]) -> str:
    """``"3 findings in 2 files"``: what the fixes of ``outcomes`` changed."""
    n = sum(len(o.applied) for o in outcomes)
    return f"{n} finding{'s' if n != 1 else ''} in {len(outcomes)} file{'s' if len(outcomes) != 1 else ''}"


def fix_lines(outcomes: Sequence[FixOutcome], *, verbose: bool) -> list[str]:
    """With ``verbose``, one line per fix applied (``path:line:col: CODE safe fix: ...``)."""
    if not verbose:
        return []
    return [
        f"{o.path}:{a.line}:{a.column}: {a.code} {a.applicability} fix: {a.description}"
        for o in outcomes
        if o.changed
        for a in o.applied
    ]
