"""TL900 unused-suppression: a suppression comment, or one of its codes, that silenced nothing.

The rule's code, name and words; it is not a visitor. The check runs after the merge and the
suppression step, and its fix edits comments: both are :mod:`torchlint.unused_suppression`.
"""

from __future__ import annotations

from torchlint.rules.base import Rule


class UnusedSuppression(Rule):
    code = "TL900"
    #: its fix is not a libcst Fixer: torchlint.unused_suppression.without edits the comments
    fixes_comments = True
