"""The dynamic pass as :func:`torchlint.pipeline.run_check` calls it. Imports no torch here.

Target declarations arrive as dicts with the config's keys (``target``, ``input``,
``input-sets``, ``inputs-from``, ``input-sets-from``, ``timeout``, ``train``,
``max-graph-breaks``, ``max-recompiles``, ``name``, ``mode``, ``device``), from ``[[tool.torchlint.targets]]``
(paths relative to the config's folder) or from the command line (relative to the cwd).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from torchlint.dynamic.cudagraphs import require_cuda, with_run_options
from torchlint.dynamic.process import Worker, run_targets
from torchlint.dynamic.specs import SpecError
from torchlint.dynamic.targets import TargetError, TargetSpec, target_from_config
from torchlint.findings import FileError, Finding, TargetResult


def parse_targets(targets: Sequence[Dict[str, Any]], base_dir: str
                  ) -> Tuple[List[TargetSpec], List[TargetResult], List[FileError]]:
    """Declarations -> specs; a bad one becomes an error (exit 2) and is not run."""
    specs, results, errors = [], [], []
    for table in targets:
        try:
            specs.append(target_from_config(table, base_dir=base_dir))
        except (TargetError, SpecError) as e:
            name = str(table.get("name") or table.get("target", "?"))
            path = name.rsplit(":", 1)[0] if ":" in name else name
            results.append(TargetResult(target=name, error=str(e)))
            errors.append(FileError(path=path, message=str(e)))
    return specs, results, errors


def per_target_limits(specs: Sequence[TargetSpec]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """(graph-break limits, recompile limits) by target name, from the target tables."""
    breaks = {s.name: s.max_graph_breaks for s in specs if s.max_graph_breaks is not None}
    recompiles = {s.name: s.max_recompiles for s in specs if s.max_recompiles is not None}
    return breaks, recompiles


_WORKER: Optional[Worker] = None


def prestart() -> None:
    """Start the worker now so torch imports while the static pass runs (optional)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = Worker().start()


def run_dynamic(
    targets: Sequence[Dict[str, Any]],
    *,
    settings: Any = None,
    cwd: Optional[str] = None,
    train: bool = False,
    user_files: Sequence[str] = (),
    progress: Optional[Callable[[str], None]] = None,
    cli: bool = False,
) -> Tuple[List[TargetResult], List[Finding], List[FileError], Optional[str]]:
    """Run the declared targets; returns (results, dynamic findings, errors, torch version).

    ``settings``: a :class:`torchlint.config.Settings` (uses ``root`` for config-relative
    paths, ``timeout`` as the per-target default and ``mode``/``device`` for targets that set
    none). ``cli``: the targets came from the
    command line, so their paths are relative to ``cwd``.
    """
    global _WORKER
    cwd = os.path.abspath(cwd or os.getcwd())
    base = cwd if cli or settings is None else os.path.abspath(getattr(settings, "root", cwd) or cwd)
    mode, device = getattr(settings, "mode", None), getattr(settings, "device", None)
    specs, bad_results, errors = parse_targets([with_run_options(t, mode, device) for t in targets], base)
    timeout = getattr(settings, "timeout", None)
    worker = _WORKER or Worker()
    _WORKER = None
    try:
        require_cuda(worker, specs)  # no GPU for --device cuda: one line, exit 2
        results, findings, run_errors = run_targets(
            specs, cwd=cwd, timeout=timeout, train=train, user_files=user_files,
            worker=worker, progress=progress, max_memory=getattr(settings, "max_memory", None),
        ) if specs else ([], [], [])
        version = worker.torch_version
    finally:
        worker.close()
    return bad_results + results, findings, errors + run_errors, version
