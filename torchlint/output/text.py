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

from torchlint.findings import Finding, Report
from torchlint.output import location

_STATUS = {
    "static": ("potential graph break", "yellow"),
    "both": ("confirmed by dynamo", "red"),
    "dynamic": ("found by dynamo, no rule predicted it", "magenta"),
}


def _status(f: Finding, dynamic_ran: bool) -> str:
    if f.severity == "warning":
        return "[cyan]performance warning, not a graph break[/]"
    label, color = _STATUS[f.source]
    if f.source == "static" and dynamic_ran and f.target is None:
        label = "potential graph break, not confirmed by dynamo"
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
    console = Console(file=stream, force_terminal=options.color, no_color=not options.color,
                      highlight=False, soft_wrap=True, emoji=False)
    if not options.quiet:
        for f in report.findings:
            code = f.rule or f.gb_code or "dynamo"
            fix = " [green]\\[*][/]" if _fixable(f, options) else ""
            console.print(
                f"[bold]{escape(location(f))}:[/] [bold red]{code}[/]{fix} "
                f"{escape(f.name)} {escape(f.message)} ({_status(f, report.dynamic_ran)})"
            )
            _code_frame(console, f)
            if f.source == "dynamic":
                if f.reason:
                    console.print(f"  [dim]{' ' * len(str(f.line))} =[/] dynamo: {escape(f.reason)}")
                if f.explanation:
                    console.print(f"  [dim]{' ' * len(str(f.line))} =[/] why: {escape(f.explanation)}")
            if f.suggestion:
                console.print(f"  [dim]{' ' * len(str(f.line))} =[/] [green]fix:[/] {escape(f.suggestion)}")
            if f.target:
                console.print(f"  [dim]{' ' * len(str(f.line))} =[/] target: {escape(f.target)}")
            console.print()
    for e in report.errors:
        console.print(f"[bold]{escape(e.path)}:[/] [bold red]error:[/] {escape(e.message)}")
    if report.errors:
        console.print()
    for t in report.targets:
        if t.error:
            console.print(f"[bold]{escape(t.target)}[/]: [red]failed[/]: {escape(t.error)}")
            continue
        console.print(
            f"[bold]{escape(t.target)}[/]: {t.graphs} graph{'s' if t.graphs != 1 else ''}, "
            f"{t.graph_breaks} graph break{'s' if t.graph_breaks != 1 else ''}, "
            f"{t.recompiles} recompile{'s' if t.recompiles != 1 else ''}"
            + (f", {t.cudagraph_skips} CUDA-graph skip{'s' if t.cudagraph_skips != 1 else ''}"
               if t.cudagraph_skips is not None else "")
            + f" ({t.seconds:.1f} s)"
        )
        for r in t.recompile_reasons:
            where = f" at {r.path}:{r.line}" if r.path and r.line else ""
            console.print(f"  recompiled{where}: {escape(r.reason)}")
    _summary(console, report, options)
    for line in report.gate_notes:
        console.print(f"[green]{escape(line)}[/]")
    for line in report.gate_failures:
        console.print(f"[bold red]{escape(line)}[/]")


def _summary(console: Console, report: Report, options) -> None:
    counts = Counter((f.rule or f.gb_code or "dynamo", f.name) for f in report.findings)
    if options.statistics and counts:
        for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            console.print(f"{n:5d}  {code:7s} {escape(name)}")
    n = len(report.findings)
    if report.dynamic_ran:
        by = Counter(f.source for f in report.findings)
        console.print(
            f"Found {n} finding{'s' if n != 1 else ''} in {report.files} file{'s' if report.files != 1 else ''}: "
            f"{by['both']} confirmed by dynamo, {by['static']} not confirmed, {by['dynamic']} found only by dynamo; "
            f"{report.graph_breaks} graph break{'s' if report.graph_breaks != 1 else ''} in {len(report.targets)} "
            f"target{'s' if len(report.targets) != 1 else ''}."
        )
    elif n:
        per_rule = ", ".join(f"{code} × {k}" for (code, _), k in sorted(counts.items()))
        warnings = sum(1 for f in report.findings if f.severity == "warning")
        parts = [f"{n - warnings} potential graph break{'s' if n - warnings != 1 else ''}"] if n > warnings else []
        if warnings:
            parts.append(f"{warnings} performance warning{'s' if warnings != 1 else ''}")
        console.print(f"Found {' and '.join(parts)} in {report.files} "
                      f"file{'s' if report.files != 1 else ''} ({per_rule}).")
    else:
        console.print(f"All clear: no findings in {report.files} file{'s' if report.files != 1 else ''}.")
    fixable = sum(1 for f in report.findings if _fixable(f, options))
    if fixable:
        flags = "--fix --unsafe-fixes" if getattr(options, "unsafe_fixes", False) else "--fix"
        console.print(f"[green]\\[*][/] {fixable} fixable with `{flags}`.")
    if options.unsafe_fixable:
        console.print(f"{options.unsafe_fixable} more fixable with `--fix --unsafe-fixes`.")
    if report.errors:
        console.print(f"[red]{len(report.errors)} error{'s' if len(report.errors) != 1 else ''}[/] "
                      "(files or targets that could not be checked).")
