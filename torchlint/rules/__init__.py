"""The rule catalog: one module per rule, each registering one :class:`Rule` subclass."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Dict, List, Type

from torchlint.rules.base import REGISTRY, Rule

__all__ = ["Rule", "all_rules", "get_rule"]

_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("tl"):
            importlib.import_module(f"{__name__}.{info.name}")
    _loaded = True


def all_rules() -> List[Type[Rule]]:
    """Every registered rule, sorted by code."""
    _load()
    return [REGISTRY[c] for c in sorted(REGISTRY)]


def get_rule(code: str) -> Type[Rule]:
    _load()
    return REGISTRY[code.upper()]


def rules_by_code() -> Dict[str, Type[Rule]]:
    _load()
    return dict(REGISTRY)
