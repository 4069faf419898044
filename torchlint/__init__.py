"""torchlint: find what makes torch.compile slow — graph breaks, host syncs, recompilations.

Python API (imported on first use, so ``import torchlint`` stays cheap)::

    torchlint.check(paths, ...) -> Report          # like `torchlint check PATHS`
    torchlint.explain(model, *args, ...) -> Report  # dynamo on a live model, in this process

See :mod:`torchlint.api`.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "check", "explain", "Report", "Finding"]

_LAZY = {
    "check": "torchlint.api",
    "explain": "torchlint.api",
    "Report": "torchlint.findings",
    "Finding": "torchlint.findings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'torchlint' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
