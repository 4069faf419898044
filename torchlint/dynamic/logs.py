"""Torch's log records, captured instead of printed (worker side: imports torch when used).

Dynamo says what it broke and recompiled, and inductor why it skipped a CUDA graph, only in
their log artifacts (``graph_breaks``, ``recompiles``, ``cudagraphs``, ``perf_hints``).
:func:`capture_logs` turns the wanted artifacts on, routes their loggers to one
:class:`LogRecords` handler (nothing reaches the terminal or the user's handlers; the
program's ``logging.disable`` does not silence them) and puts every logger back afterwards.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any


class LogRecords(logging.Handler):
    """Keeps every record it is given, in order."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def of(self, artifact: str) -> list[logging.LogRecord]:
        """The records of one artifact (its loggers are named ``<module>__<artifact>``)."""
        return [r for r in self.records if r.name.endswith(f"__{artifact}")]

    def messages(self, start: int = 0, end: int | None = None) -> list[str]:
        """The records' texts, one per record (``""`` for one whose message cannot be built)."""
        out = []
        for record in self.records[start:end]:
            try:
                out.append(record.getMessage())
            except Exception:  # noqa: BLE001 (a malformed record must not stop the run)
                out.append("")
        return out


class _Heard(logging.Logger):
    """A logger torchlint records from: it hears its records even where the program called
    ``logging.disable`` (a training script silencing its warnings would otherwise hide where
    dynamo broke). Only loggers whose records go to torchlint's handlers alone are made this
    class (:func:`heard`)."""

    def isEnabledFor(self, level: int) -> bool:
        return not self.disabled and level >= self.getEffectiveLevel()


def heard(logger: logging.Logger) -> type:
    """Make ``logger`` deaf to ``logging.disable``; returns its class before, to put back."""
    kind = type(logger)
    if kind is logging.Logger:
        logger.__class__ = _Heard
    return kind


@contextlib.contextmanager
def capture_logs(
    artifacts: Sequence[str], *, under: str = "torch", modules: Sequence[str] = (), also: Sequence[str] = ()
) -> Iterator[LogRecords]:
    """Collect the records of ``artifacts`` (those this torch knows) logged by loggers under
    ``under``, and of those loggers whose name holds one of ``also``, printing none (and
    handing none to other handlers than torchlint's own observer's).

    ``modules`` are imported first: an artifact's logger exists once its module is imported,
    and some are imported lazily. Logging is reset when done unless ``TORCH_LOGS`` is set.
    """
    import torch

    for name in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    registry = getattr(getattr(torch._logging, "_internal", None), "log_registry", None)
    known = getattr(registry, "artifact_names", None)
    wanted = [a for a in artifacts if known is None or a in known]
    with contextlib.suppress(Exception):
        artifacts_on: dict[str, Any] = {a: True for a in wanted}  # set_logs's keywords
        torch._logging.set_logs(**artifacts_on)
    handler = LogRecords()
    suffixes = tuple(f"__{a}" for a in wanted)
    saved = []
    for name in list(logging.root.manager.loggerDict):
        if not name.startswith(under) or not (name.endswith(suffixes) or any(a in name for a in also)):
            continue
        logger = logging.getLogger(name)
        saved.append((logger, logger.level, logger.propagate, list(logger.handlers), logger.disabled, heard(logger)))
        logger.setLevel(logging.DEBUG)
        # torchlint's own observer (``torchlint run``, ``pytest --torchlint``) keeps seeing the
        # records: a break that ``assert_graph_breaks`` reports is in the session's report too
        logger.handlers = [handler, *(h for h in logger.handlers if getattr(h, "torchlint_observer", False))]
        logger.propagate = False
        logger.disabled = False
    try:
        yield handler
    finally:
        for logger, level, propagate, handlers, disabled, kind in saved:
            logger.__class__ = kind
            logger.setLevel(level)
            logger.propagate = propagate
            logger.handlers = handlers
            logger.disabled = disabled
        if not os.environ.get("TORCH_LOGS"):
            with contextlib.suppress(Exception):
                torch._logging.set_logs()


def log_every_break() -> Callable[[], None]:
    """Have dynamo log each graph break with its user stack, and return what undoes it.

    Dynamo logs a break's stack once per (kind, innermost frame): the same operator called
    again from another line of the user's code (``keep(a)`` then ``keep(b)``, whose innermost
    frame is torch's own) is logged with no stack, and so would have no site."""
    from torch._dynamo import utils

    checker = getattr(utils, "graph_break_dup_warning_checker", None)
    if checker is None or not callable(getattr(checker, "add", None)):
        return lambda: None
    checker.add = lambda key: True

    def undo() -> None:
        checker.__dict__.pop("add", None)

    return undo


@contextlib.contextmanager
def every_break_logged() -> Iterator[None]:
    """:func:`log_every_break` while the block runs."""
    undo = log_every_break()
    try:
        yield
    finally:
        undo()
