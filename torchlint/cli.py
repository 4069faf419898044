"""The ``torchlint`` command: check, rule, rules, baseline.

Reports go to stdout (or ``-o FILE``); progress and logs go to stderr. Exit codes: 0 the run
meets its criterion, 1 it does not, 2 a usage, config or input error.
"""

from __future__ import annotations

import os
import sys
import traceback

import rich_click as click
from click.exceptions import Exit, NoArgsIsHelpError

from torchlint import __version__
from torchlint.arguments import (
    CheckArgs,
    MergeArgs,
    RunArgs,
    check_paths,
    check_settings,
    merge_settings,
    run_settings,
)
from torchlint.config import ConfigError, Settings, load_settings
from torchlint.gate import EXIT_ERROR, EXIT_FAIL, EXIT_OK, GateError, apply_settings, exit_code

FORMAT_CHOICES = ["text", "json", "sarif", "github", "html"]


def _fail(message: str) -> Exit:
    for line in message.splitlines() or [""]:  # a config with several problems: one line each
        click.echo(f"torchlint: error: {line}", err=True)
    return Exit(EXIT_ERROR)


#: what decides the exit code of a command that reports (check, run, merge)
CRITERION_EXIT_CODES = (
    "Exit codes: 0 the run meets its criterion; 1 it does not; 2 a usage, config or input error "
    "(a path that does not exist, a file that cannot be read or parsed, a target that cannot be "
    'loaded or crashes), said in one line each. The criterion is "no unsuppressed finding", '
    "unless a gate is set (see Gates); --exit-zero makes 1 a 0, never a 2."
)

#: what a gate does to the findings: the Gates panel's help
GATES_HELP = (
    'A gate (a limit or a baseline, here or in [tool.torchlint]) replaces "no unsuppressed '
    'finding" as the criterion: findings are still reported, and the run fails only when a '
    "count is over its limit or worse than the baseline, with a line saying by how much. "
    "Without the dynamic pass, --max-graph-breaks counts the static pass's potential graph "
    "breaks (not the TL1xx warnings). A limit on a count the run did not measure "
    "(recompiles without the dynamic pass, a target that did not run or failed, CUDA-graph "
    "skips without reduce-overhead) is noted, and the findings then decide as without a gate."
)

#: the exit codes of the commands that do one thing (rule, clean, server)
PLAIN_EXIT_CODES = "Exit codes: 0 done; 2 a usage or input error, said in one line."

#: the option panels, in the order --help shows them (an option names its panel)
PANELS = ("Output", "Rules", "Project", "Dynamic", "Gates", "Fixes", "Cache", "Server")


def _panels(*names: str):
    """The panels of a command, in :data:`PANELS` order; Gates carries what a gate does."""

    def decorate(f):
        for name in reversed([p for p in PANELS if p in names]):
            f = click.option_panel(name, help=GATES_HELP if name == "Gates" else None)(f)
        return f

    return decorate


# -- options several commands share (the same name, panel and words everywhere) -----------------


def _format_option(note: str = ""):
    return click.option(
        "--format",
        "fmt",
        panel="Output",
        type=click.Choice(FORMAT_CHOICES),
        default="text",
        show_default=True,
        help=f"Report format ({note})." if note else "Report format.",
    )


def _max_graph_breaks(note: str = ""):
    return click.option(
        "--max-graph-breaks",
        panel="Gates",
        type=click.IntRange(min=0),
        metavar="N",
        help=f"Gate: fail when graph-break sites exceed N ({note})."
        if note
        else "Gate: fail when graph-break sites exceed N.",
    )


_max_recompiles = click.option(
    "--max-recompiles",
    panel="Gates",
    type=click.IntRange(min=0),
    metavar="N",
    help="Gate: fail when recompilations exceed N.",
)
_baseline_option = click.option(
    "--baseline", panel="Gates", type=click.Path(), help="Gate: fail only on regressions against this baseline file."
)
_config_option = click.option(
    "--config",
    "config_file",
    panel="Project",
    type=click.Path(),
    help="Read settings from this file instead of the nearest pyproject.toml.",
)


def _report_options(f):
    """--statistics, --exit-zero, -o and -q, as every command that writes a report has them."""
    for option in reversed(
        [
            click.option("--statistics", panel="Output", is_flag=True, help="Show counts per rule."),
            click.option(
                "--exit-zero",
                panel="Gates",
                is_flag=True,
                help="Exit 0 even when findings remain (errors still exit 2).",
            ),
            click.option(
                "-o",
                "--output-file",
                panel="Output",
                type=click.Path(dir_okay=False),
                help="Write the report to FILE instead of stdout.",
            ),
            click.option("-q", "--quiet", panel="Output", is_flag=True, help="Print only the summary (text format)."),
        ]
    ):
        f = option(f)
    return f


#: --help through rich-click: options in panels by topic; --help itself in the last one
HELP_CONFIG = click.RichHelpConfiguration(options_panel_title="Help", text_markup="ansi")


class _Group(click.RichGroup):
    """Usage errors as click prints them (the usage line, a hint, one ``Error:`` line), not
    in a rich panel: they stay short and greppable in a CI log or a hook's output."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except NoArgsIsHelpError:
            raise
        except click.ClickException as exc:
            exc.show()
            raise Exit(exc.exit_code) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            exc.show()
            raise Exit(exc.exit_code) from None


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 the run meets its criterion, 1 it does not, 2 a usage, config or "
    "input error (each command's --help says what decides it).",
)
@click.rich_config(help_config=HELP_CONFIG)
@click.version_option(__version__, prog_name="torchlint")
def main() -> None:
    """Find what makes torch.compile slow: graph breaks, host syncs and recompilations.

    \b
    torchlint check model.py                     static pass (safe, never imports your code)
    torchlint check model.py --target model.py:Net --input 'f32[8,3,224,224]'
                                                 + dynamic pass: run dynamo on a declared target
    torchlint run train.py                       run a program, report what torch.compile did
    torchlint rules                              list the rules
    torchlint rule TL001                         explain one rule
    torchlint server                             the language server, for editors
    """


@main.command(epilog=CRITERION_EXIT_CODES)
@_panels("Output", "Rules", "Project", "Dynamic", "Gates", "Fixes", "Cache")
@click.argument("paths", nargs=-1, type=click.Path())
@_format_option()
@click.option(
    "--select",
    panel="Rules",
    help="Comma-separated rule codes or prefixes to enable (e.g. TL0,TL101). Default: TL0 (graph breaks).",
)
@click.option("--ignore", panel="Rules", help="Comma-separated rule codes or prefixes to disable.")
@click.option(
    "--extend-select",
    panel="Rules",
    metavar="CODES",
    help="Rule codes or prefixes to enable on top of the selected ones (e.g. TL101).",
)
@click.option(
    "--extend-ignore",
    panel="Rules",
    metavar="CODES",
    help="Rule codes or prefixes to disable on top of the ignored ones.",
)
@click.option("--no-static", panel="Project", is_flag=True, help="Skip the static pass.")
@click.option(
    "--no-dynamic", panel="Dynamic", is_flag=True, help="Skip the dynamic pass even when targets are declared."
)
@click.option(
    "--target",
    "targets",
    panel="Dynamic",
    multiple=True,
    metavar="PATH:OBJ",
    help="Run dynamo on this target: a module class, a function, or a factory call "
    "(model.py:build(num_classes=10)). Repeatable.",
)
@click.option(
    "--input",
    "inputs",
    panel="Dynamic",
    multiple=True,
    metavar="SPEC",
    help="Sample input, one per argument: f32[8,3,224,224], i64[2,16]:0..1000, bool[4], 3; "
    "NAME=SPEC passes it by keyword (input_ids=i64[2,16]:0..1000).",
)
@click.option(
    "--input-set",
    "input_sets",
    panel="Dynamic",
    multiple=True,
    metavar="SPECS",
    help=(
        "One call's arguments separated by ';' (NAME=SPEC by keyword). "
        "Repeat to run several calls in turn and count recompilations."
    ),
)
@click.option(
    "--inputs-from",
    panel="Dynamic",
    metavar="PATH:FUNC",
    help="A function returning one call's arguments: a tuple, a dict of keyword arguments, or (tuple, dict).",
)
@click.option(
    "--input-sets-from",
    panel="Dynamic",
    metavar="PATH:FUNC",
    help="A function returning a list of calls (each as --inputs-from returns one), run in turn.",
)
@click.option(
    "--train",
    panel="Project",
    is_flag=True,
    help="The model is compiled for training: targets run forward and backward instead of eval() + "
    "no_grad, and the static pass checks training-only code (`if self.training:`, the loss under "
    "`if labels is not None:`) too.",
)
@click.option(
    "--module-mode",
    panel="Project",
    type=click.Choice(["eval", "train", "both"]),
    help="The module modes the static pass checks: eval (`self.training` false, no labels), train "
    "(`self.training` true, the loss computed) or both, each finding labelled with the mode it holds "
    "in (default: both when the project holds a training loop, else eval).",
)
@click.option(
    "--half",
    panel="Project",
    is_flag=True,
    help="The model runs in float16 or bfloat16: the static pass checks code under half-precision "
    "dtype tests (`if x.dtype == torch.float16:`) too; by default tensors are taken as float32.",
)
@click.option(
    "--timeout",
    panel="Dynamic",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Seconds per target (default 120).",
)
@click.option(
    "--max-memory",
    panel="Dynamic",
    metavar="SIZE",
    help="Memory each target may allocate, e.g. 8G or 512M, or none (default: half of RAM). "
    "A target over it is reported as out of memory (GPU memory is not counted).",
)
@click.option(
    "--cost-calls",
    panel="Dynamic",
    type=click.IntRange(min=0),
    metavar="N",
    help="Warm calls of each target timed to measure what each graph break costs per call "
    "(default 20; 0: none). Timings vary between runs and machines.",
)
@_max_graph_breaks("dynamo's count; without the dynamic pass, the static pass's potential graph breaks")
@_max_recompiles
@click.option(
    "--mode",
    panel="Dynamic",
    type=click.Choice(["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"]),
    help="reduce-overhead or max-autotune (both use CUDA graphs): also compile targets the way "
    "torch.compile(mode=...) does and report CUDA-graph skips and re-recordings (needs a CUDA GPU).",
)
@click.option(
    "--device",
    panel="Dynamic",
    type=click.Choice(["cpu", "cuda"]),
    help="Move targets and their inputs to this device first (reduce-overhead implies cuda).",
)
@click.option(
    "--max-cudagraph-skips",
    panel="Gates",
    type=click.IntRange(min=0),
    metavar="N",
    help="Gate: fail when more than N graphs run without a CUDA graph (with --mode reduce-overhead).",
)
@_baseline_option
@_config_option
@click.option(
    "--fix", panel="Fixes", is_flag=True, help="Apply safe fixes (eager behaviour unchanged), then report what remains."
)
@click.option(
    "--unsafe-fixes",
    panel="Fixes",
    is_flag=True,
    help="Also apply (with --fix or --diff) and show fixes that change behaviour or need review.",
)
@click.option(
    "--diff",
    panel="Fixes",
    is_flag=True,
    help="Print the fixes as unified diffs instead of writing them; exit 1 if there are any.",
)
@click.option(
    "-j",
    "--jobs",
    panel="Cache",
    type=click.IntRange(min=0),
    metavar="N",
    help="Processes for the static pass (default: one per core; 0: the same).",
)
@click.option(
    "--no-cache", panel="Cache", is_flag=True, help="Neither read nor write the static pass's per-file cache."
)
@click.option(
    "--cache-dir",
    panel="Cache",
    type=click.Path(file_okay=False),
    help="Where the cache lives (default: .torchlint_cache in the project root).",
)
@click.option(
    "--stdin-filename",
    panel="Project",
    metavar="PATH",
    help="With `-` as the path: read the source from stdin and report it as PATH (static "
    "pass only; the config is the one PATH would use).",
)
@click.option(
    "--add-noqa",
    panel="Fixes",
    is_flag=True,
    help="Add `# torchlint: ignore[CODE]` to every line with a finding (to adopt torchlint "
    "on an existing codebase), then exit 0.",
)
@click.option(
    "--torch-version",
    panel="Rules",
    metavar="X.Y",
    help="Report what breaks on this torch version (static pass; torch need not be installed). "
    "Default: the installed torch's, else the newest verified one.",
)
@click.option(
    "--shard",
    panel="Dynamic",
    metavar="K/N",
    help="Run only every N-th declared target, starting with the K-th (a CI matrix job); "
    "combine the shards' JSON reports with `torchlint merge`.",
)
@click.option(
    "--no-project",
    panel="Project",
    is_flag=True,
    help="Decide compiled regions one file at a time (no bases, calls or facts across files).",
)
@click.option(
    "--follow-imports",
    panel="Project",
    is_flag=True,
    help="Also read installed third-party packages that the checked files import.",
)
@_report_options
@click.option(
    "-v",
    "--verbose",
    "--debug",
    panel="Output",
    is_flag=True,
    help="Progress on stderr; tracebacks on internal errors (--debug is the same).",
)
def check(**params) -> None:
    """Check PATHS (files or folders, default: .) for what makes torch.compile slow.

    The static pass flags graph-break patterns inside compiled regions (a module's forward,
    @torch.compile functions, and what they call) without importing your code. Declared
    targets (--target, or [[tool.torchlint.targets]] in pyproject.toml) also run through
    torch._dynamo in a child process; the report then says which findings dynamo confirmed.
    """
    args = CheckArgs(**params)
    settings, report = _run(args)
    if args.add_noqa:
        sys.exit(_add_noqa(report))
    if args.fix and not args.diff:
        _fix_unused_suppressions(report, args.quiet)
    try:  # on the findings left after the fixes
        apply_settings(report, settings)
    except GateError as exc:
        raise _fail(str(exc)) from None
    if report.files == 0 and not args.no_static and not report.errors:
        # as ruff: a warning, not an error (a hook over a commit without Python files passes)
        click.echo("torchlint: warning: No Python files found under the given path(s)", err=True)
    unsafe_fixable = 0 if args.no_static else _mark_fixes(report, settings, args.unsafe_fixes, args.verbose)
    _emit(
        report,
        args.fmt,
        args.output_file,
        statistics=args.statistics,
        quiet=args.quiet,
        verbose=args.verbose,
        unsafe_fixable=unsafe_fixable,
        unsafe_fixes=args.unsafe_fixes,
    )
    sys.exit(exit_code(report, settings, args.exit_zero))


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}, epilog=CRITERION_EXIT_CODES
)
@_panels("Output", "Rules", "Project", "Dynamic", "Gates")
@click.argument("program", nargs=-1, type=click.UNPROCESSED, required=True)
@_format_option("the program's own output goes to stdout too: use -o for json/sarif")
@click.option("--select", panel="Rules", help="Comma-separated rule codes or prefixes to enable.")
@click.option("--ignore", panel="Rules", help="Comma-separated rule codes or prefixes to disable.")
@click.option(
    "--path",
    "paths",
    panel="Project",
    multiple=True,
    type=click.Path(),
    help="The project's files for the static pass (default: .). Repeatable. Breaks are placed "
    "on the innermost frame under the working folder or the script's folder.",
)
@click.option("--no-static", panel="Project", is_flag=True, help="Skip the static pass over the project's files.")
@click.option(
    "--timeout",
    panel="Dynamic",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Stop the program (and every process it started) after S seconds (default: no limit).",
)
@_max_graph_breaks()
@_max_recompiles
@_baseline_option
@_config_option
@click.option(
    "--records",
    "records_dir",
    panel="Dynamic",
    type=click.Path(file_okay=False),
    help="Keep the observer's per-process records (JSON lines) in this folder.",
)
@_report_options
@click.option("-v", "--verbose", "--debug", panel="Output", is_flag=True, help="Tracebacks on internal errors.")
def run(**params) -> None:
    """Run PROGRAM unchanged and report what torch.compile did to it.

    \b
    torchlint run train.py --epochs 1            a script, with its arguments
    torchlint run -m pytest tests/               a module
    torchlint run --timeout 600 -- torchrun --nproc-per-node 2 train.py

    Every frame dynamo compiles, in every process of the program (torchrun ranks, pytest-xdist
    workers; not DataLoader workers), with the program's own compile settings: graph breaks
    (GB code, reason, hints, hit count, the line in your project and the library line it broke
    on), recompilations (the guard that failed), recompile-limit hits, compile time per frame and
    the compile caches. Merged with the static pass over the project's files; the gates decide
    the exit code. A program that fails (non-zero exit, signal, --timeout) is exit 2.
    """
    from torchlint.run.command import run_report

    args = RunArgs(**params)
    try:
        check_paths(args.paths)
        settings = run_settings(args)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    try:
        report, _ = run_report(
            args.program,
            settings=settings,
            paths=args.paths or (".",),
            static=not args.no_static,
            timeout=args.timeout,
            records_dir=args.records_dir,
        )
        apply_settings(report, settings)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except ValueError as exc:
        raise _fail(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 (an internal error: one line, traceback with -v)
        if args.verbose:
            traceback.print_exc()
        raise _fail(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)") from None
    sys.stdout.flush()
    sys.stderr.flush()
    _emit(report, args.fmt, args.output_file, statistics=args.statistics, quiet=args.quiet, verbose=args.verbose)
    sys.exit(exit_code(report, settings, args.exit_zero))


@main.command("merge", epilog=CRITERION_EXIT_CODES)
@_panels("Output", "Project", "Gates")
@click.argument("reports", nargs=-1, required=True, type=click.Path())
@_format_option()
@_max_graph_breaks()
@_max_recompiles
@_baseline_option
@_config_option
@_report_options
def merge_cmd(**params) -> None:
    """Combine JSON reports (e.g. the shards of `torchlint check --shard K/N`) into one.

    The same finding from several reports is listed once, naming every target that saw it;
    the gates and the exit code then apply to the combined report, as for one run.
    """
    from torchlint.shards import ReportError, combine, load_report

    args = MergeArgs(**params)
    try:
        settings = merge_settings(args)
        report = combine([load_report(p) for p in args.reports])
        apply_settings(report, settings)
    except (ConfigError, GateError, ReportError) as exc:
        raise _fail(str(exc)) from None
    _emit(report, args.fmt, args.output_file, statistics=args.statistics, quiet=args.quiet, verbose=False)
    sys.exit(exit_code(report, settings, args.exit_zero))


def _run(args: CheckArgs):
    """Settings and the report of one run, shared by `check` and `baseline`."""
    try:
        args.check_usage()
        use_stdin = args.reads_stdin
        check_paths(() if use_stdin else args.paths)
        settings = check_settings(args)
        args.check_against(settings)
        shard = args.shard_of()
        if args.fixing and args.no_static:
            raise ConfigError("--fix and --diff need the static pass (drop --no-static)")
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    paths = args.paths
    stdin_name = args.stdin_filename
    fix_errors = (
        _apply_fixes(
            settings,
            paths or (".",),
            diff=args.diff,
            unsafe=args.unsafe_fixes,
            quiet=args.quiet,
            exit_zero=args.exit_zero,
            verbose=args.verbose,
        )
        if args.fixing
        else []
    )

    from torchlint.output.progress import close as close_progress
    from torchlint.output.progress import progress_for
    from torchlint.pipeline import run_check
    from torchlint.static import limits as guard

    guard.SHOW_TRACEBACKS = bool(args.verbose)  # a file that trips a bug: its traceback with -v
    progress = progress_for(args.fmt, args.verbose, quiet=args.quiet)  # a bar on a terminal, text only
    stdin = (stdin_name or "-", sys.stdin.read()) if use_stdin else None
    options = args.check_options(settings, stdin=stdin, progress=progress, shard=shard)
    try:
        report = run_check(options)
        report.errors.extend(fix_errors)
        if report.dynamic_ran:  # a torch whose messages were not verified: say so, one line each
            from torchlint.matrix import support_notes

            for note in support_notes(report.torch_version):
                click.echo(f"torchlint: warning: {note}", err=True)
        for failed in report.targets if args.verbose else ():  # a target that raised: its traceback
            if failed.traceback:
                click.echo(f"{failed.target}: {failed.traceback.rstrip()}", err=True)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 (an internal error: say so in one line, traceback with -v)
        if args.verbose:
            traceback.print_exc()
        raise _fail(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)") from None
    finally:
        close_progress(progress)

    return settings, report


def _apply_fixes(
    settings: Settings, paths, *, diff: bool, unsafe: bool, quiet: bool, exit_zero: bool, verbose: bool
) -> list:
    """--fix writes the fixed files (and returns those it could not write); --diff prints and exits."""
    from torchlint.findings import FileError
    from torchlint.fixes.fix_files import fix_lines, fix_paths, fixed_count, unified_diff

    try:
        outcomes = fix_paths(paths, settings, os.getcwd(), unsafe=unsafe, write=not diff)
    except Exception as exc:  # noqa: BLE001 (an internal error: one line, traceback with -v)
        if verbose:
            traceback.print_exc()
        raise _fail(
            f"internal error while fixing: {type(exc).__name__}: {exc} (run with -v for the traceback)"
        ) from None
    for line in fix_lines(outcomes, verbose=verbose):
        click.echo(line, err=True)
    changed = [o for o in outcomes if o.changed]
    if diff:
        for o in changed:
            click.echo(unified_diff(o), nl=False)
        if not quiet:
            click.echo(f"Would fix {fixed_count(changed)}.", err=True)
        sys.exit(EXIT_FAIL if changed and not exit_zero else EXIT_OK)
    written = [o for o in changed if not o.error]  # a file not written is an error, not fixed
    if written and not quiet:
        click.echo(f"Fixed {fixed_count(written)}.", err=True)
    return [FileError(o.path, o.error) for o in outcomes if o.error]


def _add_noqa(report) -> int:
    """--add-noqa: the comments written (:func:`torchlint.suppression.add_noqa`), then one
    line saying how many. Exit 0, or 2 when a file could not be checked or written."""
    from torchlint.suppression import add_noqa

    for e in report.errors:
        click.echo(f"torchlint: error: {e.path}: {e.message}", err=True)
    done = add_noqa(report.findings)
    for path, problem in done.errors:
        click.echo(f"torchlint: error: {path}: {problem}", err=True)
    added, files, skipped = done.added, done.files, done.skipped
    click.echo(
        f"Added {added} suppression comment{'s' if added != 1 else ''}"
        + (f" in {files} file{'s' if files != 1 else ''}" if added else "")
        + "."
        + (
            f" {skipped} finding{'s' if skipped != 1 else ''} left: no line of it can take a comment."
            if skipped
            else ""
        ),
        err=True,
    )
    return EXIT_ERROR if report.errors or done.errors else EXIT_OK


def _fix_unused_suppressions(report, quiet: bool) -> None:
    """--fix: the unused suppressions taken out (:func:`torchlint.unused_suppression.fix_unused`)."""
    from torchlint.unused_suppression import fix_unused

    fixed, written = fix_unused(report)
    if fixed and not quiet:
        click.echo(
            f"Fixed {fixed} unused suppression{'s' if fixed != 1 else ''} in {written} "
            f"file{'s' if written != 1 else ''}.",
            err=True,
        )


def _mark_fixes(report, settings: Settings, unsafe: bool, verbose: bool) -> int:
    """The number of findings only --unsafe-fixes would fix. The static pass has marked the
    fixable findings already (``CheckOptions.mark_fixes``: per file, cached)."""
    if unsafe:
        return 0
    return sum(1 for f in report.findings if f.fix is not None and f.fix.applicability != "safe")


def _emit(
    report,
    fmt: str,
    output_file: str | None,
    *,
    statistics: bool,
    quiet: bool,
    verbose: bool,
    unsafe_fixable: int = 0,
    unsafe_fixes: bool = False,
) -> None:
    from torchlint.output import RenderOptions, render, write_report

    color = output_file is None and fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    opts = RenderOptions(
        statistics=statistics,
        color=color,
        quiet=quiet,
        verbose=verbose,
        unsafe_fixable=unsafe_fixable,
        unsafe_fixes=unsafe_fixes,
    )
    if output_file is None:
        render(report, fmt, sys.stdout, opts)
        sys.stdout.flush()
        return
    try:
        write_report(report, fmt, output_file, opts)
    except OSError as exc:
        raise _fail(f"{output_file}: cannot write report: {exc.strerror or exc}") from None


_BASELINE_PARAMS = {
    "paths",
    "select",
    "ignore",
    "no_static",
    "no_dynamic",
    "targets",
    "inputs",
    "input_sets",
    "inputs_from",
    "train",
    "module_mode",
    "timeout",
    "config_file",
    "verbose",
    "mode",
    "device",
    "max_memory",
    "extend_select",
    "extend_ignore",
    "torch_version",
}


def _baseline(output_file: str | None, **params) -> None:
    """Write a baseline of the current graph-break and recompile counts and findings.

    Run it once on a main branch; later `torchlint check --baseline FILE` fails only on
    regressions (more breaks or recompiles, new findings) and reports improvements so the
    baseline can be ratcheted down. Takes the same paths, targets and config as `check`.
    """
    settings, report = _run(CheckArgs(**params))
    if report.errors:
        for e in report.errors:
            click.echo(f"torchlint: error: {e.path}: {e.message}", err=True)
        raise _fail("baseline not written: some files or targets could not be checked")
    from torchlint.gate import write_baseline

    path = output_file or settings.baseline or "torchlint-baseline.json"
    try:
        write_baseline(report, path)
    except OSError as exc:
        raise _fail(f"{path}: cannot write baseline: {exc.strerror or exc}") from None
    breaks = report.graph_breaks
    click.echo(
        f"wrote {path}: {len(report.findings)} findings"
        + (f", {breaks} graph breaks, {report.recompiles} recompiles" if breaks is not None else ""),
        err=True,
    )


main.add_command(
    click.RichCommand(
        name="baseline",
        callback=_baseline,
        help=_baseline.__doc__,
        epilog="Exit codes: 0 the baseline was written; 2 a usage, config or input error (a file or "
        "target that could not be checked: nothing is written).",
        params=[p for p in check.params if p.name in _BASELINE_PARAMS]
        + [
            click.RichOption(
                ["-o", "--output-file"],
                panel="Output",
                type=click.Path(dir_okay=False),
                help="Where to write the baseline (default: the config's `baseline`, else torchlint-baseline.json).",
            ),
        ],
    )
)


@main.command("clean", epilog=PLAIN_EXIT_CODES)
@click.option(
    "--cache-dir",
    panel="Cache",
    type=click.Path(file_okay=False),
    help="The cache folder to remove (default: the config's `cache-dir`, else .torchlint_cache).",
)
@_config_option
def clean_cmd(cache_dir: str | None, config_file: str | None) -> None:
    """Remove the static pass's cache (only a folder torchlint made: it carries its CACHEDIR.TAG)."""
    from torchlint.static.cache import clean, default_dir

    try:
        settings = load_settings(config_file)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    folder = os.path.abspath(cache_dir) if cache_dir else default_dir(settings, os.getcwd())
    try:
        removed = clean(folder)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"{folder}: cannot remove: {exc.strerror or exc}") from None
    click.echo(f"removed {folder}" if removed else f"no cache at {folder}", err=True)


@main.command(
    "rules",
    epilog="Exit codes: 0 done; 1 with --verify: a rule is not live on the installed "
    "torch; 2 a usage error (--verify without torch).",
)
@click.option("--all", "show_all", panel="Rules", is_flag=True, help="Also list rules not enabled by default.")
@click.option(
    "--verify",
    panel="Rules",
    is_flag=True,
    help="Run each rule page's examples through the installed torch "
    "and say which rules are live there (exit 1 if one is not).",
)
@click.option(
    "--format",
    "fmt",
    panel="Output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="With --verify: one line per rule, or one JSON object (torch version, a verdict per rule).",
)
def rules_cmd(show_all: bool, verify: bool, fmt: str) -> None:
    """List the rules: code, name, what they catch."""
    from torchlint.rules import all_rules

    if verify:
        _verify_rules(all_rules(), show_all, fmt)
        return
    settings = Settings()
    for rule in all_rules():
        default = rule.code in settings.enabled_rules([rule.code])
        if not default and not show_all:
            continue
        kind = "warning" if rule.severity == "warning" else "break"
        fix = {"safe": "fix", "unsafe": "fix (unsafe)"}.get(rule.fix_applicability or "", "")
        click.echo(f"{rule.code}  {rule.name:26s} {kind:8s} {fix:13s} {rule.summary}")


def _verify_rules(rules, show_all: bool, fmt: str = "text") -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise _fail(
            "--verify runs the rule pages through torch, which is not installed (pip install 'torchlint[dynamic]')"
        )
    from torchlint.verify import torch_version, verdicts

    version = torch_version()
    click.echo(f"torch {version}", err=True)
    entries, dead = [], 0
    for entry, live in verdicts(rules, show_all):
        entries.append(entry)
        dead += not live
        if fmt == "text":
            click.echo(f"{entry['rule']}  {entry['name']:26s} {entry['verdict']}")
    if fmt == "json":
        import json

        click.echo(json.dumps({"torch_version": version, "rules": entries}, indent=2))
    sys.exit(EXIT_FAIL if dead else EXIT_OK)


@main.command("rule", epilog=PLAIN_EXIT_CODES)
@click.argument("code")
def rule_cmd(code: str) -> None:
    """Print the page of rule CODE or NAME (TL001 or tensor-item): what it does, why, examples, fix."""
    from torchlint.pages import page
    from torchlint.rules import rules_by_code

    known = rules_by_code()
    by_name = {rule.name: c for c, rule in known.items()}
    asked, code = code, by_name.get(code.lower(), code).upper()
    if code not in known:
        raise _fail(f"unknown rule `{asked}` (see `torchlint rules`)")
    p = page(code)
    if p is None:
        raise _fail(f"rule {code} has no page")
    if not sys.stdout.isatty():  # pipes, files and tests get the Markdown source
        click.echo(p.text.rstrip("\n"))
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console(soft_wrap=False).print(Markdown(p.text, code_theme="ansi_dark", hyperlinks=False))


@main.command("server", epilog=PLAIN_EXIT_CODES)
@click.option(
    "--debounce",
    panel="Server",
    type=click.FloatRange(min=0),
    default=50,
    show_default=True,
    metavar="MS",
    help="Milliseconds of quiet after an edit before the buffer is linted again.",
)
@click.option("--log-file", panel="Server", type=click.Path(dir_okay=False), help="Write the server's log to FILE.")
def server_cmd(debounce: float, log_file: str | None) -> None:
    """Run the language server on stdin/stdout (for editors; needs `pip install 'torchlint[lsp]'`)."""
    try:
        from torchlint.lsp.server import serve
    except ImportError as exc:
        raise _fail(
            f"torchlint server needs the lsp extra ({exc.name} is missing): pip install 'torchlint[lsp]'"
        ) from None
    serve(debounce / 1000.0, log_file)


if __name__ == "__main__":  # pragma: no cover
    main()
