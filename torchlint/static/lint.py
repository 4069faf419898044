"""Linting one file's text: :func:`lint_file`, the one way every caller does it.

The static pass calls it for each file it parses (in this process or in its pool), and so do
a notebook's cells, ``--stdin-filename``, the editor, each round of the fixes, the dynamic
pass asking which rule a graph break belongs to, the tests and the benchmarks. The editor's
second way, re-parsing only the statements of a buffer that changed, is
:meth:`torchlint.static.incremental.IncrementalParser.lint`, the same lint on a tree built
in part from the last version's.

A file that imports nothing a compiled region is made of is not parsed (unless the
project-wide analysis reached it or the caller names its compiled lines); one too deep for
libcst, one that does not parse, one that takes longer than
:data:`~torchlint.static.limits.FILE_TIME_LIMIT` or trips a bug in torchlint is one line of
``error``, never an exception (:mod:`torchlint.static.limits` runs the work on a big stack
under the time limit).
"""

from __future__ import annotations

import gc
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from torchlint.findings import Finding
from torchlint.static import limits
from torchlint.static.sources import is_candidate, line_count

if TYPE_CHECKING:  # pragma: no cover
    import ast

    from torchlint.rules.base import Rule
    from torchlint.static.engine import FixPlanner


@dataclass
class FileResult:
    """One file's findings; ``error``: why it was not (wholly) checked, one line per problem."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    lines: int = 0


def lint_file(
    path: str,
    source: str,
    rule_classes: Sequence[type[Rule]],
    *,
    facts: dict | None = None,
    fixes: FixPlanner | None = None,
    compiled_lines: set[int] | None = None,
) -> FileResult:
    """The findings of ``rule_classes`` in ``source``, the text of the file at ``path``.

    ``facts``: what the project-wide analysis says about the file
    (:func:`torchlint.static.static_pass.project_facts`; ``{"train": True}`` checks
    training-only code too); ``fixes``: marks fixable findings in the same walk (a
    :class:`~torchlint.static.engine.FixPlanner`); ``compiled_lines``: every function holding
    one of these lines is taken as compiled (dynamo broke there), whatever the regions say.
    Problems with the file become ``error``, never exceptions."""
    return _lint_file(path, source, rule_classes, facts=facts, fixes=fixes, compiled_lines=compiled_lines)


def _lint_file(
    path: str,
    source: str,
    rule_classes: Sequence[type[Rule]],
    *,
    facts: dict | None = None,
    fixes: FixPlanner | None = None,
    compiled_lines: set[int] | None = None,
    parser: Any | None = None,
    syntax: tuple[str | None, ast.Module | None] | None = None,
) -> FileResult:
    """:func:`lint_file`; ``parser``: the trees of the file's earlier versions
    (an :class:`~torchlint.static.incremental.IncrementalParser`, whose ``lint`` passes
    itself), ``syntax``: :func:`~torchlint.static.limits.syntax_tree` of ``source`` when the
    caller has it."""
    result = FileResult(path=path, lines=line_count(source))
    reached = bool(facts and (facts.get("roots") or facts.get("reached")))
    if not rule_classes or not (compiled_lines or reached or is_candidate(source)):
        return result
    from torchlint.analysis.tree import unvalidated

    with gc_paused(), unvalidated():  # the parser's nodes need no re-checking
        result.findings, result.error = _guarded(
            source, path, rule_classes, fixes, facts, compiled_lines, parser, syntax
        )
    return result


def _guarded(
    source: str,
    path: str,
    rule_classes: Sequence[type[Rule]],
    fixes: FixPlanner | None,
    facts: dict | None,
    compiled_lines: set[int] | None,
    parser: Any | None,
    syntax: tuple[str | None, ast.Module | None] | None,
) -> tuple[list[Finding], str | None]:
    """Parse and lint under :mod:`~torchlint.static.limits`: (findings, None), or ([], a
    one-line error) when the file is too deep, does not parse, takes longer than
    :data:`~torchlint.static.limits.FILE_TIME_LIMIT` or trips a bug in torchlint."""
    time_limit = limits.FILE_TIME_LIMIT
    from torchlint.files import source_lines
    from torchlint.static import engine

    reason, tree = syntax if syntax is not None else limits.syntax_tree(source)
    if reason:
        return [], reason

    def work() -> list[Finding]:
        if parser is None:
            return engine.lint_module(
                limits.parse(source),
                path,
                rule_classes,
                source_lines(source),
                fixes=fixes,
                source=source,
                project=facts,
                compiled_lines=compiled_lines,
            )
        return engine.lint_module(
            parser.parse(source, tree),
            path,
            rule_classes,
            source_lines(source),
            fixes=fixes,
            source=source,
            project=facts,
            compiled_lines=compiled_lines,
            spans_from=parser.spans_of,
        )

    try:
        return limits.run_limited(work, time_limit=time_limit), None
    except limits.ParseFailed as exc:
        return [], str(exc)
    except limits.TimeLimitExceeded:
        return [], f"analysis stopped after {time_limit:g} s (the file is too large or too complex); not checked"
    except RecursionError:
        return [], "code nested too deeply to analyse"
    except MemoryError:
        return [], "out of memory while analysing the file"
    except Exception as exc:  # noqa: BLE001 (a bug in torchlint: one line, the run goes on)
        if limits.SHOW_TRACEBACKS:
            traceback.print_exc()
        text = str(exc).strip().splitlines()
        detail = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
        hint = "" if limits.SHOW_TRACEBACKS else "; run with -v for the traceback"
        return [], f"internal error in torchlint while checking this file ({detail}){hint}"


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while one file is parsed and linted.

    A parse builds hundreds of thousands of nodes, and each full collection on the way
    walks all of them again (a tenth of the time); the trees hold no cycles, so they are
    freed as usual, and whatever cycles the file left are collected once it is done.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def lint_source_modes(
    source: str, path: str, rule_classes: Sequence[type[Rule]], facts: dict | None = None
) -> list[Finding]:
    """One file's findings in eval and in training, labelled as :func:`label` does (for the
    benchmarks and tests: one file, no project)."""
    from torchlint.static.modes import EVAL, TRAIN, label

    base = {k: v for k, v in (facts or {}).items() if k not in ("mode", "train")}
    return label(
        [
            (EVAL, lint_file(path, source, rule_classes, facts=base or None).findings),
            (TRAIN, lint_file(path, source, rule_classes, facts=dict(base, mode=TRAIN)).findings),
        ]
    )
