"""The rule catalog: one module per rule, each registering one :class:`Rule` subclass."""
from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Dict, Iterable, List, Type

from torchlint.rules.base import REGISTRY, Rule

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.config import Settings

__all__ = ["Rule", "all_rules", "enabled_rules", "get_rule", "select_rules"]

_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("tl"):
            importlib.import_module(f"{__name__}.{info.name}")
    _loaded = True


def select_rules(codes: Iterable[str]) -> List[Type[Rule]]:
    """The rules of ``codes`` (exact codes, as :meth:`Settings.enabled_rules` gives them), by code."""
    wanted = set(codes)
    return [r for r in all_rules() if r.code in wanted]


def enabled_rules(settings: "Settings") -> List[Type[Rule]]:
    """The rules ``settings`` enable (``select`` less ``ignore``): the one rule selection
    the check, the fixes and the API share."""
    return select_rules(settings.enabled_rules([r.code for r in all_rules()]))


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
