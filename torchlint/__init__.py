"""torchlint: find what makes torch.compile slow — graph breaks, host syncs, recompilations.

Python API (imported on first use, so ``import torchlint`` stays cheap)::

    torchlint.check(paths, ...) -> Report          # like `torchlint check PATHS`
    torchlint.explain(model, *args, ...) -> Report  # dynamo on a live model, in this process

See :mod:`torchlint.api`.

This module imports no other torchlint module, so any of them may import it: it holds the
package plumbing the subpackages share, :func:`lazy_exports` (a lazy module ``__getattr__``)
and :func:`load_modules` (import a package's modules once, so the rules and fixes register).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Any, Callable

__version__ = "0.1.0"

__all__ = ["__version__", "check", "explain", "Report", "Finding"]


def lazy_exports(package: str, table: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``table[name]`` (a module's full name) on first use
    and returns its ``name``, so importing ``package`` stays cheap."""

    def __getattr__(name: str) -> Any:
        if name in table:
            return getattr(importlib.import_module(table[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


_LOADED: set[str] = set()


def load_modules(package: str, path: Iterable[str], wanted: Callable[[str], bool]) -> None:
    """Import, once, each module of ``package`` (its ``__path__`` is ``path``) whose name
    ``wanted`` accepts: how the rules and the fixes register themselves."""
    if package in _LOADED:
        return
    for info in pkgutil.iter_modules(path):
        if wanted(info.name):
            importlib.import_module(f"{package}.{info.name}")
    _LOADED.add(package)


__getattr__ = lazy_exports(
    __name__,
    {
        "check": "torchlint.api",
        "explain": "torchlint.api",
        "Report": "torchlint.findings",
        "Finding": "torchlint.findings",
    },
)


def __dir__():
    return sorted(set(globals()) | set(__all__))
