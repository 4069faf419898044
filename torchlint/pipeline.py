"""One run of torchlint: static pass, dynamic pass, merge, suppression, gate -> a Report.

This is the only place the two passes meet; the CLI and the Python API both call
:func:`run_check`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from torchlint.config import Settings
from torchlint.findings import FileError, Finding, Report
from torchlint import suppression
from torchlint.files import FileProblem, discover, read_source, source_lines


def _may_suppress(text: str) -> bool:
    """Whether ``text`` can hold a comment torchlint.suppression honours: each says
    `noqa` or `torchlint`, in any case (``lower()`` + ``in`` beats a case-blind search)."""
    low = text.lower()
    return "noqa" in low or "torchlint" in low


@dataclass
class CheckOptions:
    paths: Sequence[str] = (".",)
    settings: Settings = field(default_factory=Settings)
    static: bool = True
    #: None: run the dynamic pass when targets are declared; False: never; True: required
    dynamic: Optional[bool] = None
    #: targets declared on the command line (dicts with the config's keys)
    cli_targets: List[Dict[str, Any]] = field(default_factory=list)
    train: bool = False
    cwd: Optional[str] = None
    progress: Optional[Callable[[str], None]] = None
    jobs: Optional[int] = None
    use_cache: bool = True
    #: set ``Finding.fix`` on fixable static findings (done per file, in parallel, cached)
    mark_fixes: bool = False


def run_check(options: CheckOptions) -> Report:
    cwd = os.path.abspath(options.cwd or os.getcwd())
    settings = options.settings
    report = Report()
    files, missing = discover(options.paths, settings.exclude, cwd)
    report.errors.extend(FileError(p, m) for p, m in missing)
    report.files = len(files)

    static_findings: List[Finding] = []
    texts: Dict[str, str] = {}  # path -> text, of the files with static findings
    if options.static:
        static_findings, errors = _static_pass(files, options, cwd, texts)
        report.errors.extend(errors)

    dynamic_findings: List[Finding] = []
    targets = options.cli_targets or settings.targets
    if options.dynamic is not False and targets:
        from torchlint.dynamic.run import run_dynamic  # imports no torch in this process

        _stage(options.progress, "dynamo", len(targets))

        results, dynamic_findings, errors, version = run_dynamic(
            targets, settings=settings, cwd=cwd, train=options.train, user_files=files,
            progress=options.progress, cli=bool(options.cli_targets),
        )
        report.targets = results
        report.errors.extend(errors)
        report.torch_version = version
        report.dynamic_ran = True

    findings = static_findings
    if report.dynamic_ran:  # (the rules are imported only here: a cached run never loads libcst)
        from torchlint.merge import merge_passes
        from torchlint.rules import rules_by_code

        rules = rules_by_code()
        gb_map = {code: set(rule.gb_codes) for code, rule in rules.items()}
        fixes = {code: rule.suggestion for code, rule in rules.items()}
        # graph breaks confirm graph-break rules; CUDA-graph findings confirm TL1xx warnings
        findings = merge_passes(static_findings, dynamic_findings, gb_map, fixes)
    findings = [f for f in findings if _enabled(f, settings)]
    in_cells = [f for f in findings if f.cell is not None]  # notebooks: comments count per cell
    report.findings = suppression.apply([f for f in findings if f.cell is None], _lines_reader(cwd, texts))
    if in_cells:
        report.findings.extend(_suppress_in_cells(in_cells, cwd))
    report.sort()
    return report


def _enabled(finding: Finding, settings: Settings) -> bool:
    if finding.rule is None:
        return True  # a break no rule predicted: always reported
    ignored = settings.ignored_for(finding.path)
    return not any(finding.rule.startswith(p) for p in ignored)


def _static_pass(files: Sequence[str], options: CheckOptions, cwd: str, texts: Dict[str, str]):
    from torchlint.static.run import run_static_pass  # imports libcst only if a file needs parsing

    advance = _stage(options.progress, "static", len(files))  # a bar on a terminal moves per file
    return run_static_pass(files, options.settings, cwd=cwd, jobs=options.jobs,
                           use_cache=options.use_cache, advance=advance,
                           fixes=_fix_marker if options.mark_fixes else None, texts=texts)


def _fix_marker():
    """What marks fixable findings in the static pass (imported only when a file is parsed)."""
    from torchlint.fixes.run import Marker

    return Marker()


def _stage(progress: Any, name: str, total: int) -> Optional[Callable[[int], None]]:
    """``advance(n)`` of a counted step when ``progress`` is a bar
    (:class:`torchlint.output.progress.ProgressBar`) that wants one, else None."""
    stage = getattr(progress, "stage", None)
    return stage(name, total) if stage is not None else None


def _suppress_in_cells(findings: List[Finding], cwd: str) -> List[Finding]:
    """Suppression comments of notebook findings, read from the lines of each one's cell."""
    from torchlint.static.notebook import cell_lines

    by_cell: Dict[tuple, List[Finding]] = {}
    for f in findings:
        by_cell.setdefault((f.path, f.cell), []).append(f)
    kept: List[Finding] = []
    cells: Dict[str, Dict[int, List[str]]] = {}
    for (path, cell), group in by_cell.items():
        if path not in cells:
            cells[path] = cell_lines(os.path.join(cwd, path))
        kept.extend(suppression.apply(group, lambda p, c=cell, lines=cells[path]: lines.get(c)))
    return kept


def _lines_reader(cwd: str, texts: Dict[str, str]) -> Callable[[str], Optional[List[str]]]:
    def read(path: str) -> Optional[List[str]]:
        text = texts.get(path)  # the text the static pass checked: no second read
        if text is None:
            try:
                text = read_source(os.path.join(cwd, path))
            except FileProblem:
                return None
        # Every suppression comment says `noqa` or `torchlint`: without either, skip the split.
        return source_lines(text) if _may_suppress(text) else []

    return read

