"""One ``torchlint run``: the program watched, then the static pass, merged into one Report.

The dynamic half comes from :mod:`torchlint.run.program` (the program's records); the
rest is :func:`torchlint.pipeline.run_check`, so suppression, ``--select/--ignore`` and the
merge with the static findings work exactly as for ``torchlint check``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from torchlint.dynamic.records import Places
from torchlint.findings import FileError, Finding, TargetResult
from torchlint.run.program import (
    ProgramRun,
    command_of,
    display_command,
    observed,
    read_records,
    run_program,
)


def run_report(
    args: Sequence[str],
    *,
    settings: Any,
    cwd: str | None = None,
    paths: Sequence[str] = (".",),
    static: bool = True,
    timeout: float | None = None,
    records_dir: str | None = None,
    progress: Any = None,
    use_cache: bool = True,
) -> tuple[Any, ProgramRun]:
    """Run the program, then the static pass over ``paths``; one merged, suppressed Report.

    ``records_dir``: keep the per-process records there (default: a temporary folder,
    removed afterwards). Raises ValueError for an empty command.
    """
    import shutil
    import tempfile

    cwd = os.path.abspath(cwd or os.getcwd())
    command = command_of(args)
    own = records_dir is None
    directory = os.path.abspath(records_dir) if records_dir else tempfile.mkdtemp(prefix="torchlint_run_")
    try:
        run = run_program(command, directory, cwd=cwd, timeout=timeout)
        processes = read_records(directory)
    finally:
        if own:
            shutil.rmtree(directory, ignore_errors=True)
    roots = [cwd] + [
        os.path.dirname(os.path.abspath(os.path.join(cwd, a)))
        for a in command[1:2]
        if a.endswith((".py", ".pyw")) and os.path.isfile(os.path.join(cwd, a))
    ]
    report = report_of(
        processes,
        Places(roots, cwd),
        name=display_command(command),
        run=run,
        settings=settings,
        paths=paths,
        cwd=cwd,
        static=static and run.start_error is None,  # not started: no static
        progress=progress,
        use_cache=use_cache,
    )
    return report, run


def report_of(
    processes: Sequence[Any],
    places: Places,
    *,
    name: str,
    run: ProgramRun | None,
    settings: Any,
    paths: Sequence[str],
    cwd: str,
    static: bool = True,
    progress: Any = None,
    use_cache: bool = True,
) -> Any:
    """The Report of recorded processes (a program's, a pytest session's), merged with the
    static pass over ``paths`` when ``static``."""
    from torchlint.pipeline import CheckOptions, run_check

    def dynamic_half(files: list[str]) -> tuple[list[TargetResult], list[Finding], list[FileError], str | None]:
        result, findings, errors = observed(processes, places, name=name, run=run)
        version = next((p.header["torch_version"] for p in processes if p.header.get("torch_version")), None)
        return [result], findings, errors, version

    return run_check(
        CheckOptions(
            paths=paths,
            settings=settings,
            static=static,
            observed=dynamic_half,
            cwd=cwd,
            progress=progress,
            use_cache=use_cache,
        )
    )
