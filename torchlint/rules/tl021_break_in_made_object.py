"""TL021 break-in-made-object: a method that breaks, called on an object the compiled code made.

The rule's code, name and words; it is not a visitor. Whether the method breaks is known only
once every file of the project is checked: the check runs after them, in
:mod:`torchlint.static.rebuild`.
"""

from __future__ import annotations

from torchlint.rules.base import Rule


class BreakInMadeObject(Rule):
    code = "TL021"
