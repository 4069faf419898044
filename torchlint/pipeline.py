"""One run of torchlint: static pass, dynamic pass, merge, suppression, gate -> a Report.

This is the only place the two passes meet; the CLI and the Python API both call
:func:`run_check`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from torchlint import suppression
from torchlint.config import Settings
from torchlint.files import FileProblem, discover, display_path, read_source, source_lines
from torchlint.findings import FileError, Finding, Report
from torchlint.static.sources import may_suppress

if TYPE_CHECKING:
    from torchlint.fixes.fix_files import Marker


@dataclass
class CheckOptions:
    paths: Sequence[str] = (".",)
    settings: Settings = field(default_factory=Settings)
    static: bool = True
    #: None: run the dynamic pass when targets are declared; False: never; True: required
    dynamic: bool | None = None
    #: targets declared on the command line (dicts with the config's keys)
    cli_targets: list[dict[str, Any]] = field(default_factory=list)
    train: bool = False
    cwd: str | None = None
    progress: Callable[[str], None] | None = None
    jobs: int | None = None
    use_cache: bool = True
    #: set ``Finding.fix`` on fixable static findings (done per file, in parallel, cached)
    mark_fixes: bool = False
    #: (name, text): check this text, read from stdin, as the file ``name`` (static pass only)
    stdin: tuple[str, str] | None = None
    #: `torchlint run`: the dynamic half already observed, as a function of the discovered
    #: files returning (results, findings, errors, torch version); replaces the targets
    observed: Callable[[list[str]], Any] | None = None
    #: (K, N): run only every N-th declared target, starting with the K-th (CI matrix shards)
    shard: Any | None = None


def run_check(options: CheckOptions) -> Report:
    cwd = os.path.abspath(options.cwd or os.getcwd())
    settings = options.settings
    report = Report()
    texts: dict[str, str] = {}  # path -> text, of the files with static findings
    uncommented: set[str] = set()  # files known to hold no suppression comment (not read for them)
    missing: list[tuple[str, str]]
    if options.stdin is not None:
        files, missing = [display_path(options.stdin[0], cwd)], []
        texts[files[0]] = options.stdin[1]
    else:
        files, missing = discover(options.paths, settings.exclude, cwd)
    report.errors.extend(FileError(p, m) for p, m in missing)
    report.files = len(files)
    report.static_ran = options.static

    static_findings: list[Finding] = []
    if options.static and options.stdin is not None:
        static_findings, errors = _stdin_pass(files[0], options.stdin[1], settings)
        report.errors.extend(errors)
    elif options.static:
        static_findings, errors = _static_pass(files, options, cwd, texts, uncommented)
        report.errors.extend(errors)

    dynamic_findings: list[Finding] = []
    targets = options.cli_targets or settings.targets
    if options.shard is not None:
        from torchlint.shards import shard

        targets = shard(targets, *options.shard)
    observed = options.observed
    if observed is not None or (options.dynamic is not False and targets and options.stdin is None):
        from torchlint.dynamic.records import project_root
        from torchlint.dynamic.target_pass import run_dynamic  # imports no torch in this process

        if observed is None:
            _stage(options.progress, "dynamo", len(targets))
        results, dynamic_findings, errors, version = (
            observed(files)
            if observed is not None
            else run_dynamic(
                targets,
                settings=settings,
                cwd=cwd,
                train=options.train or settings.train,
                user_files=files,
                project=project_root(settings, cwd, options.paths),
                progress=options.progress,
                cli=bool(options.cli_targets),
            )
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
        consulted = _consulted(files, static_findings, dynamic_findings, options, cwd) if options.static else []
        # graph breaks confirm graph-break rules; CUDA-graph findings confirm TL1xx warnings;
        # a break no finding matched is named after a rule only if that rule flags its line
        findings = merge_passes(
            static_findings + consulted,
            dynamic_findings,
            gb_map,
            fixes,
            _flagged(static_findings + consulted, dynamic_findings, rules, cwd, options.settings),
        )
        if consulted:  # a finding read only to label a break is reported only if dynamo confirmed it
            extra = {(f.path, f.line, f.column, f.rule) for f in consulted}
            findings = [
                f for f in findings if not (f.source == "static" and (f.path, f.line, f.column, f.rule) in extra)
            ]
    findings = [f for f in findings if _enabled(f, settings)]
    in_cells = [f for f in findings if f.cell is not None]  # notebooks: comments count per cell
    report.findings, usage = suppression.apply_tracking(
        [f for f in findings if f.cell is None], _lines_reader(cwd, texts, uncommented)
    )
    if in_cells:
        report.findings.extend(_suppress_in_cells(in_cells, cwd))
    if settings.enabled_rules([UNUSED_SUPPRESSION]):  # opt-in, as ruff's RUF100
        report.findings.extend(_unused_suppressions(report, files, usage, options, cwd, texts, uncommented))
    report.sort()
    return report


UNUSED_SUPPRESSION = "TL900"


def _unused_suppressions(
    report: Report,
    files: Sequence[str],
    usage: suppression.Usage,
    options: CheckOptions,
    cwd: str,
    texts: dict[str, str],
    uncommented: set[str],
) -> list[Finding]:
    """TL900 findings (silenced by per-file-ignores and by comments that name TL900)."""
    from torchlint.unused_suppression import unused_suppressions

    settings = options.settings

    def read(path: str) -> str | None:
        if path in texts:
            return texts[path]
        if path in uncommented:
            return ""  # no comment to find in it
        try:
            return read_source(os.path.join(cwd, path))
        except FileProblem:
            return None

    def enabled(code: str, path: str) -> bool:
        return bool(settings.enabled_rules([code])) and not any(code.startswith(p) for p in settings.ignored_for(path))

    found = unused_suppressions(report, files, usage, read, static_ran=options.static, enabled=enabled)
    return [f for f in found if _enabled(f, settings)]


def _consulted(
    files: Sequence[str], static: list[Finding], dynamic: list[Finding], options: CheckOptions, cwd: str
) -> list[Finding]:
    """The static findings of the project files that dynamo broke in but that were not given,
    to be matched to their breaks, so a break is labelled the same whichever paths were given.
    The static pass runs over those files alone: it decides regions over the whole project
    whatever files it is given. A finding the static pass already reported (in a file the
    given files' regions reach) is not added twice."""
    given = set(files)
    extra = sorted(
        {
            f.path
            for f in dynamic
            if f.path not in given
            and not os.path.isabs(f.path)
            and not f.path.startswith(os.pardir)
            and os.path.isfile(os.path.join(cwd, f.path))
        }
    )
    if not extra:
        return []
    from torchlint.static.static_pass import run_static_pass

    found, _errors = run_static_pass(extra, options.settings, cwd=cwd, jobs=options.jobs, use_cache=options.use_cache)
    reported = {(f.path, f.line, f.column, f.rule) for f in static}
    return [f for f in found if (f.path, f.line, f.column, f.rule) not in reported]


def _flagged(
    static: list[Finding], dynamic: list[Finding], rules: dict[str, Any], cwd: str, settings: Settings
) -> dict[tuple[str, int], set[str]]:
    """Which graph-break rules flag the lines of the breaks no static finding is on
    (:func:`torchlint.static.static_pass.rules_on_lines`: the files are parsed, never imported).
    A break seen in a training run is named with training-only code checked too (a rule that
    flags it only with gradients on, under ``if self.training:``), as ``check`` names it when
    the project trains."""
    from torchlint.static.static_pass import rules_on_lines

    seen = {(f.path, line) for f in static for line in range(f.line, max(f.end_line, f.line) + 1)}
    wanted: dict[str, set[int]] = {}
    trained = False
    for f in dynamic:
        if f.severity != "warning" and (f.path, f.line) not in seen:
            wanted.setdefault(f.path, set()).add(f.line)
            trained = trained or "train" in f.run_modes
    if not wanted:
        return {}
    if trained and not settings.train:
        settings = dataclasses.replace(settings, train=True)
    flagged: dict[tuple[str, int], set[str]] = rules_on_lines(
        wanted, [r for r in rules.values() if r.severity != "warning"], cwd, settings
    )
    return flagged


def _enabled(finding: Finding, settings: Settings) -> bool:
    if finding.rule is None:
        return True  # a break no rule predicted: always reported
    ignored = settings.ignored_for(finding.path)
    return not any(finding.rule.startswith(p) for p in ignored)


def _static_pass(
    files: Sequence[str], options: CheckOptions, cwd: str, texts: dict[str, str], uncommented: set[str]
) -> tuple[list[Finding], list[FileError]]:
    from torchlint.static.static_pass import run_static_pass  # imports libcst only if a file needs parsing

    advance = _stage(options.progress, "static", len(files))  # a bar on a terminal moves per file
    found: tuple[list[Finding], list[FileError]] = run_static_pass(
        files,
        options.settings,
        cwd=cwd,
        jobs=options.jobs,
        use_cache=options.use_cache,
        advance=advance,
        fixes=_fix_marker if options.mark_fixes else None,
        texts=texts,
        uncommented=uncommented,
    )
    return found


def _fix_marker() -> Marker:
    """What marks fixable findings in the static pass (imported only when a file is parsed)."""
    from torchlint.fixes.fix_files import Marker

    return Marker()


def _stdin_pass(path: str, text: str, settings: Settings) -> tuple[list[Finding], list[FileError]]:
    """The static pass over text that is not on disk (``--stdin-filename``): no cache."""
    from torchlint.rules import enabled_rules
    from torchlint.static.lint import lint_file

    result = lint_file(path, text, enabled_rules(settings))
    return result.findings, [FileError(path, result.error)] if result.error else []


def _stage(progress: Any, name: str, total: int) -> Callable[[int], None] | None:
    """``advance(n)`` of a counted step when ``progress`` is a bar
    (:class:`torchlint.output.progress.ProgressBar`) that wants one, else None."""
    stage = getattr(progress, "stage", None)
    return stage(name, total) if stage is not None else None


def _suppress_in_cells(findings: list[Finding], cwd: str) -> list[Finding]:
    """Suppression comments of notebook findings, read from the lines of each one's cell."""
    from torchlint.static.notebook import cell_lines

    by_cell: dict[tuple[str, int | None], list[Finding]] = {}
    for f in findings:
        by_cell.setdefault((f.path, f.cell), []).append(f)
    kept: list[Finding] = []
    cells: dict[str, dict[int, list[str]]] = {}
    for (path, cell), group in by_cell.items():
        if path not in cells:
            cells[path] = cell_lines(os.path.join(cwd, path))
        kept.extend(suppression.apply(group, _cell_reader(cells[path], cell)))
    return kept


def _cell_reader(lines: dict[int, list[str]], cell: int | None) -> Callable[[str], list[str] | None]:
    """The lines of one cell of a notebook, whatever path is asked for."""
    return lambda _path: lines.get(cell) if cell is not None else None


def _lines_reader(cwd: str, texts: dict[str, str], uncommented: set[str]) -> Callable[[str], list[str] | None]:
    def read(path: str) -> list[str] | None:
        if path in uncommented:
            return []  # the static pass knows it holds no suppression comment: not read
        text = texts.get(path)  # the text the static pass checked: no second read
        if text is None:
            try:
                text = read_source(os.path.join(cwd, path))
            except FileProblem:
                return None
        # Every suppression comment says `noqa` or `torchlint`: without either, skip the split.
        return source_lines(text) if may_suppress(text) else []

    return read
