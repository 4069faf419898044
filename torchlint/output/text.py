"""``--format text`` (default): findings with their source line, suggestions, a summary.

model.py:42:13: TL001 tensor-item `.item()` copies a tensor ... [potential graph break]
   42 |         s = y.sum().item()
      |             ^^^^^^^^^^^^^^
      = fix: Keep the value as a 0-d tensor ...
"""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from torchlint.findings import RECOMPILE_LIMIT, Finding, Report
from torchlint.output import (
    cause_words,
    cost_words,
    fix_first,
    frames_words,
    kind_of,
    location,
    measured_words,
    mode_words,
    ranked,
    summary_words,
    target_words,
)

_STATUS = {
    "static": ("potential graph break", "yellow"),
    "both": ("confirmed by dynamo", "red"),
    "dynamic": ("found by dynamo, no rule predicted it", "magenta"),
}


def _status(f: Finding, report: Report) -> str:
    kind = kind_of(f)
    if kind == "suppression":
        return "[cyan]not a graph break[/]"
    if kind == "performance":
        return "[cyan]performance warning, not a graph break[/]"
    label, color = _STATUS[f.source]
    if f.name == RECOMPILE_LIMIT:  # not a break a rule could predict: say which break led to it
        rules = sorted(
            {g.rule for g in report.findings if g.rule and g.path == f.path and g.line <= f.line <= g.end_line}
        )
        label = "found by dynamo, recompile limit" + (f", at the graph break {', '.join(rules)} flags" if rules else "")
    if f.source == "dynamic" and f.rule:  # the rule flags the line, but its region was not followed
        label = f"found by dynamo, {f.rule} flags this line"
    if f.source == "static" and report.dynamic_ran and f.target is None:
        # "not confirmed" only where a target ran the line without breaking; else not reached
        label = (
            "potential graph break, not confirmed by dynamo (ran without breaking)"
            if report.traced(f)
            else "potential graph break, not reached by dynamo"
        )
    return f"[{color}]{label}[/]"


def _fixable(f: Finding, options) -> bool:
    """Marked `[*]`: a safe fix, or any fix when --unsafe-fixes is on."""
    return f.fix is not None and (f.fix.applicability == "safe" or getattr(options, "unsafe_fixes", False))


def _code_frame(console: Console, f: Finding) -> None:
    if f.source_line is None:
        return
    line = f.source_line.expandtabs(4).rstrip("\n")
    number = str(f.line)
    pad = " " * len(number)
    console.print(f"  [dim]{number} |[/] {escape(line)}", highlight=False)
    start = max(f.column - 1, 0)
    end = f.end_column - 1 if f.end_line == f.line else len(line)
    width = max(end - start, 1)
    console.print(f"  [dim]{pad} |[/] {' ' * start}[red]{'^' * width}[/]", highlight=False)


def render(report: Report, stream: TextIO, *, options) -> None:
    console = Console(
        file=stream,
        force_terminal=options.color,
        no_color=not options.color,
        highlight=False,
        soft_wrap=True,
        emoji=False,
    )
    if options.statistics:  # the table alone (as ruff's --statistics), then what failed
        _statistics(console, report, options)
        _errors(console, report)
        _gate(console, report)
        return
    if not options.quiet:
        _costs(console, report)
        for f in report.findings:
            code = f.rule or f.gb_code or "dynamo"
            fix = " [green]\\[*][/]" if _fixable(f, options) else ""
            only = mode_words(f)
            console.print(
                f"[bold]{escape(location(f))}:[/] [bold red]{code}[/]{fix} "
                f"{escape(f.name)} {escape(f.message)} ({_status(f, report)}" + (f", [cyan]{only}[/])" if only else ")")
            )
            _code_frame(console, f)
            if f.source == "dynamic":
                if f.reason:
                    console.print(f"  [dim]{' ' * len(str(f.line))} =[/] dynamo: {escape(f.reason)}")
                if f.explanation:
                    console.print(f"  [dim]{' ' * len(str(f.line))} =[/] why: {escape(f.explanation)}")
            if f.suggestion:
                console.print(f"  [dim]{' ' * len(str(f.line))} =[/] [green]fix:[/] {escape(f.suggestion)}")
            if f.cost_ms is not None or f.occurrence_ms is not None:
                console.print(f"  [dim]{' ' * len(str(f.line))} =[/] [bold]cost:[/] {escape(measured_words(f))}")
            if f.target:
                console.print(f"  [dim]{' ' * len(str(f.line))} =[/] target: {escape(f.target)}")
            console.print()
    _errors(console, report)
    for t in report.targets:
        if t.error:
            console.print(f"[bold]{escape(t.target)}[/]: [red]failed[/]: {escape(t.error)}")
        if not t.error or t.program is not None:  # a watched program that failed: what it recorded
            console.print(
                f"[bold]{escape(t.target)}[/]: {escape(target_words(t, seconds=t.cudagraph_skips is None))}"
                + (
                    f", {t.cudagraph_skips} CUDA-graph skip{'s' if t.cudagraph_skips != 1 else ''} ({t.seconds:.1f} s)"
                    if t.cudagraph_skips is not None
                    else ""
                )
            )
        if t.recompile_causes:
            for cause in t.recompile_causes:
                console.print(f"  recompiled: {escape(cause_words(cause, report.findings))}")
                console.print(f"    frames: {escape(frames_words(cause))}")
                if cause.get("fix"):
                    console.print(f"    [green]fix:[/] {escape(cause['fix'])}")
        else:
            for r in t.recompile_reasons:
                where = f" at {r.path}:{r.line}" if r.path and r.line else ""
                console.print(f"  recompiled{where}: {escape(r.reason)}")
        for r in t.recompile_limit_hits:
            where = f" at {r.path}:{r.line}" if r.path and r.line else ""
            console.print(f"  [bold red]RECOMPILE LIMIT{where}[/]: {escape(r.reason)}")
        for line in t.details:
            console.print(f"  {escape(line)}", style="yellow" if line.startswith("warning:") else None)
    _summary(console, report, options)
    _gate(console, report)


def _costs(console: Console, report: Report) -> None:
    """The measured findings, most expensive first: what to fix first."""
    order = ranked(report.findings)
    if not order:
        return
    console.print(f"[bold red]{escape(fix_first(order) or '')}[/]")
    for f in order[1:5]:
        console.print(f"  then: {escape(f.path)}:{f.line}, {escape(cost_words(f))}")
    if len(order) > 5:
        console.print(f"  and {len(order) - 5} more measured")
    console.print()


def _errors(console: Console, report: Report) -> None:
    for e in report.errors:
        console.print(f"[bold]{escape(e.path)}:[/] [bold red]error:[/] {escape(e.message)}")
    if report.errors:
        console.print()


def _gate(console: Console, report: Report) -> None:
    for line in report.gate_notes:
        console.print(f"[green]{escape(line)}[/]")
    for line in report.gate_failures:
        console.print(f"[bold red]{escape(line)}[/]")


def _statistics(console: Console, report: Report, options) -> None:
    """One line per code: count, code, `[*]` when some are fixable, name; most frequent first."""
    counts = Counter((f.rule or f.gb_code or "dynamo", f.name) for f in report.findings)
    fixable = {(f.rule or f.gb_code or "dynamo", f.name) for f in report.findings if _fixable(f, options)}
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[green]\\[*][/] " if (code, name) in fixable else "    "
        console.print(f"{n:5d}  {code:7s} {mark}{escape(name)}")


def _files(report: Report) -> str:
    """Files with findings: ``6 of 13 files`` (of the files checked), or ``6 files`` when every
    file checked has one."""
    k, n = report.files_with_findings, report.files
    if k < n:
        return f"{k} of {n} files"
    return f"{k} file{'s' if k != 1 else ''}"


def _summary(console: Console, report: Report, options) -> None:
    counts = Counter((f.rule or f.gb_code or "dynamo", f.name) for f in report.findings)
    n = len(report.findings)
    if report.dynamic_ran:
        by = Counter(f.source for f in report.findings)
        ran = sum(1 for f in report.findings if f.source == "static" and report.traced(f))
        flagged = sum(1 for f in report.findings if f.source == "dynamic" and f.rule)
        console.print(
            f"Found {n} finding{'s' if n != 1 else ''} in {_files(report)}: "
            f"{by['both']} confirmed by dynamo, {ran} not confirmed (ran without breaking), "
            f"{by['static'] - ran} not reached by dynamo, {flagged} found by dynamo on a line a rule "
            f"flags, {by['dynamic'] - flagged} found only by dynamo; {escape(summary_words(report))}."
        )
    elif n:
        per_rule = ", ".join(f"{code} × {k}" for (code, _), k in sorted(counts.items()))
        kinds = Counter(kind_of(f) for f in report.findings)
        parts = [
            f"{k} {words}{'s' if k != 1 else ''}"
            for k, words in (
                (kinds["break"], "potential graph break"),
                (kinds["performance"], "performance warning"),
                (kinds["suppression"], "unused suppression"),
            )
            if k
        ]
        found = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        console.print(f"Found {found} in {_files(report)} ({per_rule}).")
    elif report.errors:  # not "all clear": the errors below were not checked
        console.print("No findings in what could be checked.")
    else:
        console.print(f"All clear: no findings in {report.files} file{'s' if report.files != 1 else ''}.")
    fixable = sum(1 for f in report.findings if _fixable(f, options))
    if fixable:
        flags = "--fix --unsafe-fixes" if getattr(options, "unsafe_fixes", False) else "--fix"
        console.print(f"[green]\\[*][/] {fixable} fixable with `{flags}`.")
    if options.unsafe_fixable:
        console.print(f"{options.unsafe_fixable} more fixable with `--fix --unsafe-fixes`.")
    if report.errors:
        console.print(
            f"[red]{len(report.errors)} error{'s' if len(report.errors) != 1 else ''}[/] "
            "(files or targets that could not be checked)."
        )
