"""The rule catalog: one module per rule, each registering one :class:`Rule` subclass.

``base`` holds :class:`Rule` and :class:`~torchlint.rules.base.FileContext`: all a rule
author reads. ``tlNNN_<name>.py`` holds one rule's code; its page,
``docs/rules/TLNNN-<name>.md``, holds its words (message, suggestion, summary, GB codes, fix
safety), which the class reads when it is defined.
:func:`enabled_rules` is the one rule selection the check, the fixes and the API share.

May import: :mod:`torchlint.analysis`, ``torchlint.data``, :mod:`torchlint.matrix` (what
breaks on which torch), :mod:`torchlint.knowledge` (what dynamo cannot trace, measured per
torch) and :mod:`torchlint.pages`. Never the engine, the
fixes, the output or the dynamic pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torchlint import load_modules
from torchlint.rules.base import REGISTRY, Rule

__all__ = ["Rule", "all_rules", "enabled_rules", "get_rule", "select_rules"]


def _load() -> None:
    load_modules(__name__, __path__, lambda name: name.startswith("tl"))


def select_rules(codes: Iterable[str]) -> list[type[Rule]]:
    """The rules of ``codes`` (exact codes, as :meth:`Settings.enabled_rules` gives them), by code."""
    wanted = set(codes)
    return [r for r in all_rules() if r.code in wanted]


def enabled_rules(settings: Any, torch_version: str | None = None) -> list[type[Rule]]:
    """The rules ``settings`` (a :class:`torchlint.config.Settings`) enable: ``select``
    less ``ignore``, less the rules dead on the torch version reported for (``torch_version``,
    default the settings' ``torch-version``; see :mod:`torchlint.matrix`). The one rule
    selection the check, the fixes and the API share."""
    from torchlint.matrix import dead_rules

    version = torch_version or settings.static_torch_version()
    dead = dead_rules(version) if version else set()
    return select_rules([c for c in settings.enabled_rules([r.code for r in all_rules()]) if c not in dead])


def all_rules() -> list[type[Rule]]:
    """Every registered rule, sorted by code."""
    _load()
    return [REGISTRY[c] for c in sorted(REGISTRY)]


def get_rule(code: str) -> type[Rule]:
    _load()
    return REGISTRY[code.upper()]


def rules_by_code() -> dict[str, type[Rule]]:
    _load()
    return dict(REGISTRY)
