"""The dynamic pass as :func:`torchlint.pipeline.run_check` calls it. Imports no torch here.

Target declarations arrive as dicts with the config's keys (``target``, ``input``,
``input-sets``, ``inputs-from``, ``input-sets-from``, ``timeout``, ``train``,
``max-graph-breaks``, ``max-recompiles``, ``name``, ``mode``, ``device``), from ``[[tool.torchlint.targets]]``
(paths relative to the config's folder) or from the command line (relative to the cwd).
:func:`run_dynamic` parses them, fails fast when a target needs a GPU the worker lacks, and
runs the rest in one worker (:func:`run_targets`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any, Callable

from torchlint.config import CUDAGRAPH_MODES, ConfigError
from torchlint.dynamic.answer import Answer
from torchlint.dynamic.costs import DEFAULT_COST_CALLS
from torchlint.dynamic.process import Worker, WorkerError, default_max_memory, with_memory_hint
from torchlint.dynamic.records import SourceLines, project_root, relpath
from torchlint.dynamic.results import result_from_answer
from torchlint.dynamic.specs import SpecError
from torchlint.dynamic.targets import TargetError, TargetSpec, package_of, target_from_config
from torchlint.findings import FileError, Finding, TargetResult

#: seconds a target may run when neither it nor the settings say
DEFAULT_TIMEOUT = 120.0


class DeviceUnavailable(ConfigError):
    """``--device cuda`` / ``--mode reduce-overhead`` where the worker's torch sees no GPU."""


def parse_targets(
    targets: Sequence[dict[str, Any]], base_dir: str, search: Sequence[str] = ()
) -> tuple[list[TargetSpec], list[TargetResult], list[FileError]]:
    """Declarations -> specs; a bad one becomes an error (exit 2) and is not run.
    ``search``: more folders a dotted target (``pkg.model:Net``) is looked up in."""
    specs, results, errors = [], [], []
    for table in targets:
        try:
            specs.append(target_from_config(table, base_dir=base_dir, search=search))
        except (TargetError, SpecError) as e:
            name = str(table.get("name") or table.get("target", "?"))
            path = name.rsplit(":", 1)[0] if ":" in name else name
            results.append(TargetResult(target=name, error=str(e)))
            errors.append(FileError(path=path, message=str(e)))
    return specs, results, errors


def with_run_options(table: dict[str, Any], mode: str | None, device: str | None) -> dict[str, Any]:
    """A target table with the run's ``mode``/``device`` filled in where it has none."""
    out = dict(table)
    if mode is not None:
        out.setdefault("mode", mode)
    if device is not None:
        out.setdefault("device", device)
    return out


def require_cuda(worker: Worker, specs: Sequence[TargetSpec]) -> None:
    """Fail fast, in one line, when a spec needs CUDA and the worker's torch has none.

    A worker that cannot start at all is left to :func:`run_targets`, which reports it per target.
    """
    wanting = [s for s in specs if s.run_device == "cuda"]
    if not wanting:
        return
    try:
        worker.wait_ready()
    except WorkerError:
        return
    if worker.cuda:
        return
    spec = wanting[0]
    what = f"--mode {spec.mode}" if spec.mode in CUDAGRAPH_MODES else "--device cuda"
    raise DeviceUnavailable(
        f"{what} needs a CUDA GPU, and torch {worker.torch_version or '?'} sees none here "
        f"(target {spec.name!r}); inductor does not use CUDA graphs on the CPU, so there is "
        "nothing to measure: run it on a machine with a GPU"
    )


def run_dynamic(
    targets: Sequence[dict[str, Any]],
    *,
    settings: Any = None,
    cwd: str | None = None,
    train: bool = False,
    user_files: Sequence[str] = (),
    project: str | None = None,
    progress: Callable[[str], None] | None = None,
    cli: bool = False,
    worker: Worker | None = None,
) -> tuple[list[TargetResult], list[Finding], list[FileError], str | None]:
    """Run the declared targets; returns (results, dynamic findings, errors, torch version).

    ``settings``: a :class:`torchlint.config.Settings` (uses ``root`` for config-relative
    paths, ``timeout`` as the per-target default and ``mode``/``device`` for targets that set
    none). ``user_files``: the linted files (the folders of their packages are searched for
    dotted targets). ``project``: the project's root folder (default
    :func:`~torchlint.dynamic.records.project_root`): a break is placed on the innermost frame
    in it, whatever files were linted. ``cli``: the targets came from the command line, so their paths are relative to
    ``cwd``. ``worker``: a started :class:`Worker` to reuse (left running); default a new one.
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    base = cwd if cli or settings is None else os.path.abspath(getattr(settings, "root", cwd) or cwd)
    mode, device = getattr(settings, "mode", None), getattr(settings, "device", None)
    # a dotted target is looked up in the cwd, the config's folder and the folders the linted
    # files' packages are imported from (each with its src/)
    search = [cwd, os.path.abspath(getattr(settings, "root", cwd) or cwd)]
    folders = {os.path.dirname(os.path.join(cwd, f)) for f in user_files}
    search += sorted({package_of(os.path.join(d, "__init__.py"))[0] for d in folders})
    specs, bad_results, errors = parse_targets([with_run_options(t, mode, device) for t in targets], base, search)
    timeout = getattr(settings, "timeout", None)
    own = worker is None
    worker = worker or Worker()
    try:
        require_cuda(worker, specs)  # no GPU for --device cuda: one line, exit 2
        results, findings, run_errors = (
            run_targets(
                specs,
                cwd=cwd,
                timeout=timeout,
                train=train,
                project=project or project_root(settings, cwd),
                worker=worker,
                progress=progress,
                max_memory=getattr(settings, "max_memory", None),
                cost_calls=getattr(settings, "cost_calls", None),
            )
            if specs
            else ([], [], [])
        )
        version = worker.torch_version
    finally:
        if own:
            worker.close()
    return bad_results + results, findings, errors + run_errors, version


def run_targets(
    specs: Sequence[TargetSpec],
    *,
    cwd: str | None = None,
    timeout: float | None = None,
    train: bool = False,
    project: str | None = None,
    worker: Worker | None = None,
    progress: Any = None,
    max_memory: int | None = None,
    cost_calls: int | None = None,
) -> tuple[list[TargetResult], list[Finding], list[FileError]]:
    """Run every target in one reused worker; never raises for a target's own failure.

    ``timeout``: seconds per target (a target's own ``timeout`` wins; default 120).
    ``train``: forward + backward for every target (or per target via its spec).
    ``project``: the project's root folder (default: :func:`project_root` of ``cwd``); a
    break is placed on the innermost frame in it or in the target's own folder, never on
    torch, torchlint or an installed package's line unless no project frame led there.
    ``worker``: an already started :class:`Worker` to reuse (it is left running); by default
    one is started and stopped here. ``progress``: an
    optional callable taking one line of text (for stderr). ``max_memory``: bytes each target
    may allocate in the worker (data beyond what the worker already holds; None:
    :func:`default_max_memory`, 0: no limit); a target over it is reported as out of memory.
    ``cost_calls``: warm calls of each target timed to measure what its breaks cost (a
    target's own ``cost-calls`` wins; None: ``DEFAULT_COST_CALLS``; 0: none).

    Returns per-target results (in order), dynamic findings (one per distinct break site and
    target; the same site from several targets is one finding naming them all) and errors
    (targets that could not be loaded, raised, exited, crashed or timed out).
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    own = worker is None
    worker = worker or Worker()
    worker.start()
    results: list[TargetResult] = []
    findings: dict[tuple[str, int, str | None, str], Finding] = {}
    errors: list[FileError] = []
    lines = SourceLines()
    roots = [os.path.abspath(project or project_root(None, cwd))]
    memory = default_max_memory() if max_memory is None else max_memory
    try:
        for number, spec in enumerate(specs):
            limit = float(spec.timeout or timeout or DEFAULT_TIMEOUT)
            payload = dict(spec.to_wire(), id=number, cwd=cwd, project=roots)
            payload["train"] = bool(spec.train or train)
            payload["max_memory"] = memory
            payload["cost_calls"] = next(n for n in (spec.cost_calls, cost_calls, DEFAULT_COST_CALLS) if n is not None)
            if progress:
                progress(f"dynamo: running {spec.name}")
            try:
                worker.wait_ready()
            except WorkerError as e:  # no torch, or it cannot import: nothing can run
                for rest in specs[number:]:
                    results.append(TargetResult(target=rest.name, error=str(e)))
                    errors.append(
                        FileError(
                            path=relpath(rest.ref.path, cwd) or rest.ref.path, message=f"target {rest.name!r}: {e}"
                        )
                    )
                break
            started = time.monotonic()
            try:
                answer = Answer.from_json(worker.request(payload, limit))
            except WorkerError as e:
                answer = Answer(id=number, error=with_memory_hint(str(e), memory))
            if answer.recycle:  # after running out of memory: a fresh process next
                worker.close()
            result, found = result_from_answer(
                spec.name, answer, time.monotonic() - started, cwd, lines, mode=spec.mode, train=payload["train"]
            )
            results.append(result)
            if result.error:
                message = (
                    result.error if result.error.startswith("target ") else f"target {spec.name!r}: {result.error}"
                )
                errors.append(
                    FileError(path=relpath(os.path.join(cwd, spec.ref.path), cwd) or spec.ref.path, message=message)
                )
            for finding in found:
                key = (finding.path, finding.line, finding.gb_code, finding.name)
                if key in findings:
                    findings[key].add_target(spec.name)
                    findings[key].seen_in(finding.run_modes)
                else:
                    findings[key] = finding
    finally:
        if own:
            worker.close()
    return results, sorted(findings.values(), key=lambda f: f.sort_key), errors
