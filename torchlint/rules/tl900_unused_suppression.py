"""TL900 unused-suppression: a suppression comment, or one of its codes, that silenced nothing.

The rule's code, name and words; it is not a visitor. The check runs after the merge and the
suppression step, and its fix edits comments: both are :mod:`torchlint.unused_suppression`.
"""
from __future__ import annotations

from torchlint.rules.base import Rule


class UnusedSuppression(Rule):
    code = "TL900"
    name = "unused-suppression"
    summary = "a suppression comment, or a code in it, that silenced nothing"
    message = "unused suppression"
    suggestion = "Remove the unused code from the comment (the whole comment when none is left)."
    fix_applicability = "safe"
    severity = "warning"
    gb_codes = ()
    #: its fix is not a libcst Fixer: torchlint.unused_suppression.without edits the comments
    fixes_comments = True
