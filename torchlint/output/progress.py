"""Progress on stderr: a rich progress bar for long runs on a terminal, plain lines for -v.

:func:`torchlint.pipeline.run_check` receives ``CheckOptions.progress``: a callable taking one
line of text (the dynamic runner calls it as each target starts). A :class:`ProgressBar`
is such a callable that also has :meth:`ProgressBar.stage`, which ``run_check`` uses to show
how far the static pass (files) and the dynamic pass (targets) have come.

The bar appears only when stderr is a terminal, the report is text, and the run is long
enough to be worth it (many files or several targets); it is transient, so nothing of it
stays on screen or reaches a pipe, a file, or a json/sarif/github report.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

#: a static pass over fewer files than this finishes before a bar would be read
MIN_FILES = 50
#: the dynamic pass shows a bar from this many targets on
MIN_TARGETS = 2

_LIMITS = {"static": MIN_FILES, "dynamo": MIN_TARGETS}
_LABELS = {"static": "checking files", "dynamo": "running dynamo"}


class ProgressBar:
    """A transient rich bar on stderr. Call it with a line; ``stage()`` starts a counted step."""

    def __init__(self, stream=None, verbose: bool = False) -> None:
        from rich.console import Console

        self.console = Console(file=stream or sys.stderr, stderr=stream is None, highlight=False)
        self.verbose = verbose
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._stage: str | None = None
        self._lines = 0

    def _ensure_started(self) -> Progress:
        if self._progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._progress.start()
        return self._progress

    def stage(self, name: str, total: int) -> Callable[[int], None] | None:
        """Start a step of ``total`` items; returns ``advance(n=1)``, or None when the step is
        too short for a bar (the caller then skips the bookkeeping)."""
        self._finish_task()
        if total < _LIMITS.get(name, 1):
            return None
        progress = self._ensure_started()
        self._task = progress.add_task(_LABELS.get(name, name), total=total)
        self._stage = name
        self._lines = 0
        task = self._task

        def advance(n: int = 1) -> None:
            progress.advance(task, n)

        return advance

    def __call__(self, line: str) -> None:
        """A log line. During the dynamo step, each line is a target starting: the previous
        ones are done."""
        if self._progress is not None and self._task is not None and self._stage == "dynamo":
            self._progress.update(self._task, completed=self._lines, description=line)
            self._lines += 1
        if self.verbose:
            self.console.print(line, markup=False)

    def _finish_task(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._stage = None

    def close(self) -> None:
        self._finish_task()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def progress_for(fmt: str, verbose: bool, quiet: bool = False, stream=None):
    """What the CLI passes as ``CheckOptions.progress``: a bar on an interactive terminal with
    a text report, plain lines on stderr with ``-v`` otherwise, else None."""
    stream = stream or sys.stderr
    interactive = (
        fmt == "text" and not quiet and _isatty(stream) and os.environ.get("TERM") != "dumb" and "CI" not in os.environ
    )
    if interactive:
        return ProgressBar(stream if stream is not sys.stderr else None, verbose=verbose)
    if verbose:
        return lambda line: print(line, file=stream, flush=True)
    return None


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def close(progress) -> None:
    """Stop a bar (if ``progress`` is one) so the report prints on a clean terminal."""
    closer = getattr(progress, "close", None)
    if closer is not None:
        closer()
