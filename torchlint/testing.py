"""pytest plugin: make a test fail when a model gains a graph break or recompiles too often.

Registered through the ``pytest11`` entry point, so installing torchlint is enough::

    from torchlint.testing import assert_graph_breaks

    def test_net_compiles_whole():
        assert_graph_breaks(Net(), torch.randn(2, 16))            # max_breaks=0

    @pytest.mark.torchlint(max_breaks=1, max_recompiles=0)
    def test_decoder(torchlint_check):                            # limits from the marker
        torchlint_check(Decoder(), torch.randn(2, 16))

The model runs through dynamo in the test's own process (see :func:`torchlint.explain`), so
it works under pytest-xdist too. Importing this module imports neither torch nor the rest
of torchlint: the plugin costs nothing to test suites that do not use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.findings import Report

__all__ = ["assert_graph_breaks", "failure_message"]

MARKER = "torchlint"
_OPTIONS = ("max_breaks", "max_recompiles", "calls", "train", "files")


def assert_graph_breaks(
    model: Any,
    *args: Any,
    max_breaks: int = 0,
    max_recompiles: int | None = None,
    calls: Sequence[Sequence[Any]] | None = None,
    train: bool = False,
    files: Sequence[str] | None = None,
    **kwargs: Any,
) -> Report:
    """Run ``model(*args, **kwargs)`` through dynamo; fail if it breaks the graph more than
    ``max_breaks`` times (distinct sites) or recompiles more than ``max_recompiles`` times.

    ``calls``: several calls run in turn (to count recompilations) instead of ``*args``:
    each a tuple of positional arguments, a dict of keyword arguments, or a ``(tuple, dict)``
    pair (``calls=[((ids,), {"attention_mask": m}), {"input_ids": ids2}]``); ``**kwargs``
    go to every call. ``train``: forward and backward. ``files``: the files whose lines breaks are
    placed on (default: the project's files and the model's own, as ``torchlint check`` places
    them, so the counts are ``check``'s for the same model and inputs). The :class:`AssertionError` lists each break
    with file, line, dynamo's reason and the fix. Returns the report when within limits.
    """
    __tracebackhide__ = True
    from torchlint.api import explain

    report = explain(model, *args, calls=calls, train=train, files=files, **kwargs)
    message = failure_message(report, max_breaks=max_breaks, max_recompiles=max_recompiles)
    if message:
        raise AssertionError(message)
    return report


def failure_message(report: Report, *, max_breaks: int = 0, max_recompiles: int | None = None) -> str:
    """Why ``report`` is over its limits, one break or recompilation a line; "" when it is not."""
    from torchlint.output import breaks_words, cause_words, frames_words

    over: list[str] = []
    breaks, recompiles = report.graph_breaks or 0, report.recompiles or 0
    if breaks > max_breaks:
        hits = sum(max(t.graph_break_hits, t.graph_breaks) for t in report.targets)
        over.append(f"{breaks_words(breaks, hits)} (max_breaks={max_breaks})")
    if max_recompiles is not None and recompiles > max_recompiles:
        over.append(f"{recompiles} recompile{'s' if recompiles != 1 else ''} (max_recompiles={max_recompiles})")
    if not over:
        return ""
    target = report.targets[0].target if report.targets else "model"
    lines = [f"torchlint: {target}: {' and '.join(over)}"]
    if breaks > max_breaks:
        for f in report.findings:
            code = f.rule or f.gb_code or "dynamo"
            lines.append(f"  {f.path}:{f.line}: {code} {f.reason or f.message}")
            if f.source_line:
                lines.append(f"      {f.source_line.strip()}")
            if f.suggestion:
                lines.append(f"      fix: {f.suggestion}")
        unplaced = breaks - len({(f.path, f.line) for f in report.findings})
        if unplaced > 0:
            lines.append(
                f"  and {unplaced} break{'s' if unplaced != 1 else ''} dynamo counted without a location in your files"
            )
    if max_recompiles is not None and recompiles > max_recompiles:
        for t in report.targets:  # one entry per cause, its fix said once
            for cause in t.recompile_causes:
                lines.append(f"  recompiled: {cause_words(cause)}")
                lines.append(f"      frames: {frames_words(cause)}")
                if cause.get("fix"):
                    lines.append(f"      fix: {cause['fix']}")
    return "\n".join(lines)


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(max_breaks=0, max_recompiles=None, train=False): limits for the "
        "torchlint_check fixture (torchlint's graph-break check)",
    )
    if config.getoption("torchlint", False):
        _start_watching(config)


# --------------------------------------------------------------------------- pytest --torchlint


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("torchlint", "torchlint: what torch.compile did during the session")
    group.addoption(
        "--torchlint",
        action="store_true",
        default=False,
        help="record every frame torch.compile compiles during the session (all "
        "pytest-xdist workers) and print torchlint's report at the end",
    )
    group.addoption(
        "--torchlint-json", metavar="FILE", default=None, help="also write the report as torchlint's JSON to FILE"
    )
    group.addoption(
        "--torchlint-max-graph-breaks",
        metavar="N",
        type=int,
        default=None,
        help="fail the session when the distinct graph breaks exceed N",
    )
    group.addoption(
        "--torchlint-max-recompiles",
        metavar="N",
        type=int,
        default=None,
        help="fail the session when the recompilations exceed N",
    )
    group.addoption(
        "--torchlint-baseline",
        metavar="FILE",
        default=None,
        help="fail the session on regressions against this torchlint baseline",
    )


def _start_watching(config: Any) -> None:
    import os
    import tempfile
    import time

    from torchlint.run import observer

    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller named the folder
        observer.install(os.environ.get(observer.ENV_DIR))
        return
    known = observer.records()
    directory = known.directory if known is not None else tempfile.mkdtemp(prefix="torchlint_pytest_")
    config._torchlint_records = (directory, known is None)
    config._torchlint_started = time.monotonic()
    os.environ[observer.ENV_DIR] = directory  # inherited by the xdist workers started after this
    observer.install(directory)


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    config = session.config
    if not config.getoption("torchlint", False) or hasattr(config, "workerinput"):
        return
    directory, own = getattr(config, "_torchlint_records", (None, False))
    if directory is None:
        return
    import shutil

    try:
        report = _session_report(config, directory)
    finally:
        if own:
            shutil.rmtree(directory, ignore_errors=True)
    config._torchlint_report = report
    if report.gate_failures and session.exitstatus == 0:
        session.exitstatus = 1


def _session_report(config: Any, directory: str) -> Report:
    import os
    import time

    from torchlint.config import ConfigError, load_settings
    from torchlint.dynamic.records import Places
    from torchlint.gate import apply_gate
    from torchlint.run.command import report_of
    from torchlint.run.program import read_records

    root = str(config.rootpath)
    try:
        settings = load_settings(None)
    except ConfigError as e:
        raise pytest.UsageError(f"torchlint: {e}") from None
    report = report_of(
        read_records(directory),
        Places([root], os.getcwd()),
        name="pytest session",
        run=None,
        settings=settings,
        paths=[root],
        cwd=os.getcwd(),
        static=False,
    )
    report.targets[0].seconds = time.monotonic() - getattr(config, "_torchlint_started", time.monotonic())
    apply_gate(
        report,
        max_graph_breaks=config.getoption("torchlint_max_graph_breaks"),
        max_recompiles=config.getoption("torchlint_max_recompiles"),
        baseline=config.getoption("torchlint_baseline"),
    )
    path = config.getoption("torchlint_json")
    if path:
        from torchlint.atomic import write_text_atomic

        write_text_atomic(path, report.to_json() + "\n")
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    report = getattr(terminalreporter.config, "_torchlint_report", None)
    if report is None:
        return
    import io

    from torchlint.output import RenderOptions, render

    buffer = io.StringIO()
    render(report, "text", buffer, RenderOptions())
    terminalreporter.section("torchlint")
    for line in buffer.getvalue().rstrip("\n").splitlines():
        terminalreporter.write_line(line)


@pytest.fixture
def torchlint_check(request: Any) -> Callable[..., Report]:
    """``torchlint_check(model, *args, **kwargs)``: :func:`assert_graph_breaks` with the
    limits of the test's ``@pytest.mark.torchlint(...)`` marker (arguments given to the call
    win)."""
    marker = request.node.get_closest_marker(MARKER)
    defaults = dict(marker.kwargs) if marker else {}
    unknown = set(defaults) - set(_OPTIONS)
    if unknown:
        raise pytest.UsageError(
            f"@pytest.mark.{MARKER}: unknown argument(s) {', '.join(sorted(unknown))}; expected {', '.join(_OPTIONS)}"
        )

    def check(model: Any, *args: Any, **kwargs: Any) -> Report:
        __tracebackhide__ = True
        options = {**defaults, **{k: kwargs.pop(k) for k in _OPTIONS if k in kwargs}}
        return assert_graph_breaks(model, *args, **options, **kwargs)

    return check
