"""Automatic fixes that remove graph breaks: one module per fix, registered by rule code.

``--fix`` applies safe fixes (eager behaviour unchanged), ``--unsafe-fixes`` adds the ones
that change behaviour or need review, ``--diff`` shows them without writing. Each module
defines a :class:`~torchlint.fixes.base.Fixer` for one or more rule codes; the rule class
says what to expect in its ``fix_applicability`` attribute. ``base`` defines what a fix
is (:class:`Fixer`, ``Plan``, ``FixContext``); ``rounds`` fixes a text round after round
(plan, pick, apply, re-parse: text in, text out); ``edits`` is what plans change, as a tree
and as text edits; ``fix_files`` fixes files, marks a report's fixable findings during the
static pass and prints diffs.

May import: :mod:`torchlint.analysis`, :mod:`torchlint.rules`, :mod:`torchlint.static`
(the engine and its limits), ``files``, ``findings``, ``suppression`` and ``atomic``.
Never the output or the dynamic pass; the static pass never imports this package.
"""

from __future__ import annotations

from torchlint import load_modules
from torchlint.fixes.base import REGISTRY, Fixer

__all__ = ["Fixer", "all_fixers", "fixer_for"]

_NOT_FIXES = {"base", "rounds", "edits", "fix_files"}


def _load() -> None:
    load_modules(__name__, __path__, lambda name: name not in _NOT_FIXES)


def fixer_for(code: str | None) -> Fixer | None:
    """The fixer of rule ``code``, or ``None`` when the rule has no automatic fix."""
    _load()
    return REGISTRY.get(code or "")


def all_fixers() -> dict[str, Fixer]:
    _load()
    return dict(REGISTRY)
