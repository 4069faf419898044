"""Output formats. Each module renders a :class:`~torchlint.findings.Report` to a text stream.

Add a format by adding a module with ``render(report, stream, *, options)`` and naming it
in :data:`FORMATS`. ``progress`` is the progress bar on stderr.

May import: ``findings``, ``pages``, :mod:`torchlint.rules` (the catalog's names and
summaries, for SARIF), ``files`` (the HTML page reads the source lines it shows) and
``atomic`` (a report written to a file). Never a pass (static, dynamic) or the fixes: a report holds all
an output needs (the code a finding shows is ``Finding.source_line``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from torchlint.findings import Finding, Report

FORMATS = {
    "text": "torchlint.output.text",
    "json": "torchlint.output.json",
    "sarif": "torchlint.output.sarif",
    "github": "torchlint.output.github",
    "html": "torchlint.output.html",
}


@dataclass
class RenderOptions:
    statistics: bool = False
    color: bool = False
    quiet: bool = False
    verbose: bool = False
    #: number of findings an --unsafe-fixes run would additionally fix
    unsafe_fixable: int = 0
    #: --unsafe-fixes was given: unsafe fixes count as fixable
    unsafe_fixes: bool = False


def render(report: Report, fmt: str, stream: TextIO, options: RenderOptions) -> None:
    module = importlib.import_module(FORMATS[fmt])
    module.render(report, stream, options=options)


def write_report(report: Report, fmt: str, path: str, options: RenderOptions) -> None:
    """Render the report to ``path`` atomically (a reader never sees half a report).
    Raises OSError when it cannot be written."""
    import io

    from torchlint.atomic import write_text_atomic

    buf = io.StringIO()
    render(report, fmt, buf, options)
    write_text_atomic(path, buf.getvalue())


#: rule-code prefix of the rules about the comments themselves (TL900 unused-suppression)
SUPPRESSION_PREFIX = "TL9"


def kind_of(finding: Finding) -> str:
    """``break`` (a graph break, potential or confirmed), ``performance`` (a TL1xx warning or a
    CUDA-graph finding) or ``suppression`` (TL9xx: about suppression comments)."""
    if (finding.rule or "").startswith(SUPPRESSION_PREFIX):
        return "suppression"
    return "performance" if finding.severity == "warning" else "break"


def display_code(finding: Finding) -> str:
    """The code a finding is shown under: its rule, else dynamo's GB code, else ``dynamo``."""
    return finding.rule or finding.gb_code or "dynamo"


def location(finding: Finding) -> str:
    """``path:line:column``; in a notebook ``nb.ipynb:cell 3:2:5`` (line and column in the cell)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.column}"


#: the short label of a finding that holds in one module mode alone (``Finding.mode``)
MODE_WORDS = {"train": "training only", "eval": "eval only"}


def mode_words(finding: Finding) -> str | None:
    """ "training only" / "eval only" for a finding that holds in that mode alone, else None."""
    return MODE_WORDS.get(finding.mode) if finding.mode else None


def message_with_fix(finding: Finding) -> str:
    """One self-contained annotation text: the message, then the fix unless it already says it.
    A notebook finding starts with its cell and line (``cell 3, line 2: ...``): annotations
    point at the notebook file, whose own lines are JSON."""
    message = finding.message.strip()
    if finding.cell is not None:
        message = f"cell {finding.cell}, line {finding.line}: {message}"
    fix = (finding.suggestion or "").strip()
    if fix and fix not in message:
        message = f"{message}{'' if message.endswith('.') else '.'} Fix: {fix}"
    return message


# --------------------------------------------------------------------------- one vocabulary
# The counts of the dynamic pass are said in these words by every format and door (`check`,
# `run`, the pytest plugin, `assert_graph_breaks`), so the same number reads the same.


def _n(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def breaks_words(sites: int, hits: int) -> str:
    """``3 graph-break sites, 7 breaks hit``."""
    return f"{_n(sites, 'graph-break site')}, {_n(max(hits, sites), 'break')} hit"


def how_it_ran(target: Any) -> str:
    """``eval, default mode`` / ``training, mode reduce-overhead`` ("" when not known)."""
    parts = []
    if getattr(target, "run_mode", None):
        parts.append(target.run_mode)
    mode = getattr(target, "compile_mode", None)
    if mode:
        parts.append("default compile mode" if mode == "default" else f'mode="{mode}"')
    return ", ".join(parts)


def target_words(target: Any, seconds: bool = False) -> str:
    """A target's line: ``3 graph-break sites, 7 breaks hit, 4 graphs, 4 recompiles (eval,
    default compile mode, 1.5 s)``."""
    text = (
        f"{breaks_words(target.graph_breaks, target.graph_break_hits)}, {_n(target.graphs, 'graph')}, "
        f"{_n(target.recompiles, 'recompile')}"
    )
    how = [how_it_ran(target)] if how_it_ran(target) else []
    if seconds:
        how.append(f"{target.seconds:.1f} s")
    return text + (f" ({', '.join(how)})" if how else "")


def summary_words(report: Report) -> str:
    """``3 graph-break sites, 7 breaks hit in 1 target``: the run's totals. A target that
    failed is never counted as clean: ``..., 1 target failed``, or only ``1 target failed``."""
    ran = [t for t in report.targets if not t.error]
    failed = len(report.targets) - len(ran)
    hits = sum(max(t.graph_break_hits, t.graph_breaks) for t in ran)
    parts = [f"{breaks_words(report.graph_breaks or 0, hits)} in {_n(len(ran), 'target')}"] if ran or not failed else []
    if failed:
        parts.append(f"{_n(failed, 'target')} failed")
    return ", ".join(parts)


def cause_words(cause: Mapping[str, Any], findings: Sequence[Finding] = ()) -> str:
    """One recompile cause: ``dimension 0 of `x` changed from 8 to 4: 7 recompiles in 4 frames``;
    when it guards on a value handed over at a graph break, that break and the rule that flags
    it (from ``findings``): ``...; handed over at the graph break at model.py:41 (TL001)``."""
    text = f"{cause['cause']}: {_n(cause['recompiles'], 'recompile')} in {_n(len(cause.get('frames') or []), 'frame')}"
    places = []
    for place in cause.get("breaks") or []:
        rules = sorted(
            {f.rule for f in findings if f.rule and f.path == place["path"] and f.line <= place["line"] <= f.end_line}
        )
        places.append(f"{place['path']}:{place['line']}" + (f" ({', '.join(rules)})" if rules else ""))
    if places:
        text += f"; handed over at the graph break{'s' if len(places) > 1 else ''} at {', '.join(places)}"
    return text


def frames_words(cause: Mapping[str, Any]) -> str:
    """The frames a cause recompiled: ``forward` (model.py:8), `scale` (utils.py:4) ×2``."""
    parts = []
    for f in cause.get("frames") or []:
        where = f" ({f['path']}:{f['line']})" if f.get("path") and f.get("line") else ""
        parts.append(f"`{f['function']}`{where}" + (f" ×{f['recompiles']}" if f.get("recompiles", 1) > 1 else ""))
    return ", ".join(parts)


# what a break costs, in words (the figures are measured by torchlint.dynamic.costs)


def cost_words(finding: Any) -> str:
    """``1.1 ms per call (83% of `forward`)``."""
    ms = float(finding.cost_ms or 0.0)
    amount = f"{ms:.3g} ms" if ms >= 0.01 else f"{ms * 1000:.3g} µs"
    share = f" ({100 * float(finding.cost_share or 0.0):.0f}% of `{finding.cost_frame}`)" if finding.cost_frame else ""
    return f"{amount} per call{share}"


def ranked(findings: Iterable[Any]) -> list[Any]:
    """The findings that carry a measured cost, most expensive first."""
    return sorted((f for f in findings if f.cost_ms is not None), key=lambda f: (-f.cost_ms, f.sort_key))


def fix_first(findings: Iterable[Any]) -> str | None:
    """``fix this first: scorer.py:14, 1.1 ms per call (83% of `forward`)``, or None when
    nothing was timed."""
    order = ranked(findings)
    if not order:
        return None
    top = order[0]
    return f"fix this first: {top.path}:{top.line}, {cost_words(top)}"


def measured_words(finding: Any) -> str:
    """Everything measured about one finding, in words."""
    parts = []
    if finding.cost_ms is not None:
        timed = f" over {finding.cost_calls} timed calls" if finding.cost_calls else ""
        parts.append(cost_words(finding) + timed)
    if finding.occurrence_ms is not None:
        parts.append(f"{finding.occurrence_ms:.4g} ms each time")
    if finding.per_1000_calls is not None:
        parts.append(f"{finding.per_1000_calls:.4g} times per 1000 calls")
    return "; ".join(parts)
