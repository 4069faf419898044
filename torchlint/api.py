"""The Python API: ``torchlint.check(paths)`` and ``torchlint.explain(model, *args)``.

Both return a :class:`~torchlint.findings.Report` holding the same :class:`Finding` objects
the CLI prints (``report.to_json()`` is the CLI's ``--format json``)::

    import torchlint

    report = torchlint.check(["src/"])                      # the static pass, never imports torch
    report = torchlint.check(["model.py"], targets=[{"target": "model.py:Net",
                                                     "input": ["f32[8,16]"]}])  # + dynamo
    report = torchlint.explain(Net(), torch.randn(8, 16))   # dynamo on a live model, in-process
    for f in report.findings:
        print(f.path, f.line, f.rule, f.message, f.suggestion)

The run itself (static pass, dynamic pass, merge, suppression) is
:func:`torchlint.pipeline.run_check`; :func:`check` only turns keywords into its options.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from torchlint.findings import Finding, Report

if TYPE_CHECKING:
    from torchlint.dynamic.records import ProjectFiles

PathArg = Union[str, "os.PathLike[str]"]


def check(
    paths: PathArg | Iterable[PathArg] = ".",
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    config: PathArg | None = None,
    targets: Sequence[str | Mapping[str, Any]] | None = None,
    static: bool = True,
    dynamic: bool | None = None,
    train: bool = False,
    timeout: float | None = None,
    progress: bool = False,
) -> Report:
    """Check files or folders like ``torchlint check PATHS``; returns the report.

    ``select`` / ``ignore``: rule codes or prefixes (``["TL0"]``), validated as on the command
    line. ``config``: a pyproject.toml or torchlint.toml (default: the nearest pyproject.toml
    with a ``[tool.torchlint]`` table above the checked paths, else above the working directory).
    ``targets``: dynamo targets, each a table with the keys of ``[[tool.torchlint.targets]]``
    (``{"target": "model.py:Net", "input": ["f32[8,16]"]}``) or a ``"model.py:Net"`` string;
    paths in them are relative to the working directory. Without ``targets``, those of the config run
    unless ``dynamic=False``. ``static=False`` skips the static pass. ``progress``: a bar on
    stderr when it is a terminal. Paths in the report are relative to the working directory.

    Files or targets that cannot be checked are in ``report.errors``; an invalid config
    raises :class:`torchlint.config.ConfigError`.
    """
    from torchlint.config import codes_option, config_start, load_settings, override
    from torchlint.pipeline import CheckOptions, run_check

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    path_list: list[str] = [os.fspath(p) for p in paths] or ["."]
    base = os.getcwd()
    settings = load_settings(os.fspath(config) if config is not None else None, start=config_start(path_list, base))
    settings = override(
        settings, select=codes_option(select, "select"), ignore=codes_option(ignore, "ignore"), timeout=timeout
    )
    cli_targets = [{"target": t} if isinstance(t, str) else dict(t) for t in targets or ()]
    bar = None
    if progress:
        from torchlint.output.progress import progress_for

        bar = progress_for("text", verbose=False)
    try:
        report = run_check(
            CheckOptions(
                paths=path_list,
                settings=settings,
                static=static,
                dynamic=dynamic,
                cli_targets=cli_targets,
                train=train,
                cwd=base,
                progress=bar,
                mark_fixes=True,  # as the CLI: fixable findings carry their Fix
            )
        )
    finally:
        if bar is not None:
            from torchlint.output.progress import close

            close(bar)
    return report


def explain(
    model: Any,
    *args: Any,
    calls: Sequence[Sequence[Any]] | None = None,
    train: bool = False,
    files: Iterable[PathArg] | None = None,
    **kwargs: Any,
) -> Report:
    """Run ``model(*args, **kwargs)`` through dynamo in this process; report every graph break.

    ``model``: an ``nn.Module`` (run in ``eval()`` and ``no_grad`` unless ``train=True``:
    then ``train()`` and a backward of its outputs) or a function. ``calls``: instead of
    ``*args``, several calls run in turn without a reset, to count recompilations; each is a
    tuple of positional arguments, a dict of keyword arguments, or a ``(tuple, dict)`` pair
    (``calls=[((ids,), {"attention_mask": m}), ...]``); ``**kwargs`` go to every call.
    ``files``: the files whose frames are yours (a break inside a library is placed on your
    line that called it); default the project's files (the folder of the config that applies
    from the working directory, else the git repository, else the working directory) and the
    model's own file, as ``torchlint check --target`` places them. Each break is one finding
    (``source="dynamic"``, dynamo's ``reason``, ``explanation`` and ``hints``); when a rule
    predicts it, the finding carries the rule's code and fix (``source="both"``).
    ``report.graph_breaks`` and ``report.recompiles`` are the counts; ``report.targets[0]``
    holds graphs and recompile reasons. Exceptions raised by the model propagate. Needs torch.
    """
    try:
        import torch
    except ImportError:
        raise ImportError("torchlint.explain needs torch: pip install 'torchlint[dynamic]'") from None
    from torchlint.dynamic.load import as_call
    from torchlint.dynamic.observe import observe

    if calls is not None and args:
        raise TypeError("explain() takes the arguments either positionally or as calls=[...], not both")
    # each call: a tuple of positional arguments, a dict of keyword arguments, or (tuple, dict);
    # keyword arguments given to explain itself go to every call (a call's own win)
    each = [as_call(c) for c in calls] if calls is not None else [(tuple(args), {})]
    arg_sets = [a for a, _ in each]
    kwarg_sets = [{**kwargs, **k} for _, k in each]
    if not arg_sets:
        raise ValueError("explain() needs at least one call")
    base = os.getcwd()
    user_files: set[str] | ProjectFiles
    if files:
        user_files = {os.path.realpath(os.fspath(p)) for p in files}
    else:  # the project's files (and the model's own), as `check --target` places breaks
        from torchlint.dynamic.records import ProjectFiles, project_root

        own = _defining_file(model)
        roots = [project_root(None, base)] + ([os.path.dirname(own)] if own else [])
        user_files = ProjectFiles(roots, base, also=[own] if own else [])
    name = _target_name(model, base)
    started = time.monotonic()
    try:
        with _without_foreign_trace_handlers():
            obs = observe(model, [list(a) for a in arg_sets], kwarg_sets=kwarg_sets, user_files=user_files, train=train)
    finally:
        torch._dynamo.reset()  # leave no recording-backend caches behind in the user's process
    from torchlint.dynamic.results import result_from_answer

    result, dynamic = result_from_answer(name, obs.answer(), time.monotonic() - started, base, train=train)
    report = Report(targets=[result], torch_version=torch.__version__, dynamic_ran=True)
    report.findings = _with_rules(dynamic)
    report.files = len({f.path for f in report.findings}) or 1
    report.sort()
    return report


@contextlib.contextmanager
def _without_foreign_trace_handlers() -> Iterator[None]:
    """pytest attaches its log capture to every non-propagating logger, torch's structured
    trace log included; torch then builds every trace record (slow) and a failing test's
    report fills with them. Detach the handlers that are not torch's while dynamo runs."""
    log = logging.getLogger("torch.__trace")
    foreign = [h for h in log.handlers if not type(h).__module__.startswith("torch")]
    for handler in foreign:
        log.removeHandler(handler)
    try:
        yield
    finally:
        for handler in foreign:
            log.addHandler(handler)


def _code_of(model: Any) -> Any:
    """The function whose code runs when ``model`` is called: itself, or its class's forward."""
    if inspect.isfunction(model) or inspect.ismethod(model):
        return model
    cls = type(model)
    return getattr(cls, "forward", None) or getattr(cls, "__call__", None)  # noqa: B004 (the attribute, not callable())


def _defining_file(model: Any) -> str | None:
    code = getattr(inspect.unwrap(_code_of(model)), "__code__", None) if _code_of(model) else None
    path = getattr(code, "co_filename", None)
    return os.path.realpath(path) if path and not path.startswith("<") else None


def _target_name(model: Any, cwd: str) -> str:
    """``model.py:Net`` for a module of class Net defined in model.py, like a CLI target."""
    obj = model if inspect.isfunction(model) or inspect.ismethod(model) else type(model)
    qualname = getattr(obj, "__qualname__", None) or type(model).__name__
    path = _defining_file(model)
    if not path:
        return qualname
    from torchlint.files import display_path

    return f"{display_path(path, cwd, absolute=False)}:{qualname}"


def _with_rules(dynamic: list[Finding]) -> list[Finding]:
    """Name each break after the rule that predicts it (its code, message and fix), by
    running the static rules over the files the breaks are in (read, never imported)."""
    from torchlint.config import Settings
    from torchlint.merge import merge
    from torchlint.rules import all_rules, enabled_rules
    from torchlint.static.static_pass import rules_on_lines, run_static

    rules = all_rules()
    files = sorted({f.path for f in dynamic})
    enabled = enabled_rules(Settings())
    static, _errors = run_static(files, enabled)  # same path strings as the breaks
    gb_map: dict[str, set] = {r.code: set(r.gb_codes) for r in rules}
    suggestions = {r.code: r.suggestion for r in rules}
    wanted: dict[str, set] = {}
    for f in dynamic:
        wanted.setdefault(f.path, set()).add(f.line)
    flagged = rules_on_lines(wanted, enabled)
    return [f for f in merge(static, dynamic, gb_map, suggestions, flagged=flagged) if f.source != "static"]
