"""Glue between settings and the runner: declared targets in, results and findings out.

Runs in the linting process without importing torch; the worker process imports it.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from torchlint.config import Settings
from torchlint.findings import FileError, Finding, TargetResult


def run_dynamic(
    tables: Sequence[Dict[str, Any]],
    *,
    settings: Settings,
    cwd: str,
    train: bool = False,
    user_files: Sequence[str] = (),
    progress: Optional[Callable[[str], None]] = None,
    cli: bool = False,
) -> Tuple[List[TargetResult], List[Finding], List[FileError], Optional[str]]:
    """Validate every declared target, run the valid ones, report the invalid ones as errors."""
    from torchlint.dynamic.runner import Worker, run_targets
    from torchlint.dynamic.specs import SpecError
    from torchlint.dynamic.targets import TargetError, target_from_config

    base_dir = cwd if cli else settings.root
    specs = []
    errors: List[FileError] = []
    for table in tables:
        try:
            specs.append(target_from_config(table, base_dir=base_dir))
        except (TargetError, SpecError) as exc:
            errors.append(FileError(str(table.get("target", "?")), str(exc)))
    if not specs:
        return [], [], errors, None
    worker = Worker()
    try:
        results, findings, run_errors = run_targets(
            specs, cwd=cwd, timeout=settings.timeout, train=train, user_files=user_files,
            worker=worker, progress=progress,
        )
        version = worker.torch_version
    finally:
        worker.close()
    return results, findings, errors + run_errors, version
