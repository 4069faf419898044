"""The dynamic pass: run declared targets through dynamo and report what really happened.

Importing this package does not import torch; the modules that need it import it
themselves (``explain``, ``worker``), and only the worker process and tests load them.

Entry points (imported lazily):

* :func:`torchlint.dynamic.process.run_targets` - the CLI's door: targets in a reused worker.
* :func:`torchlint.dynamic.observe.break_lines_of_source` - a snippet's break lines, for tests.
"""
from __future__ import annotations

from typing import Any

__all__ = ["run_targets", "break_lines_of_source", "observe_source", "TargetError", "SpecError"]

_LAZY = {
    "run_targets": "torchlint.dynamic.process",
    "break_lines_of_source": "torchlint.dynamic.observe",
    "observe_source": "torchlint.dynamic.observe",
    "TargetError": "torchlint.dynamic.targets",
    "SpecError": "torchlint.dynamic.specs",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
