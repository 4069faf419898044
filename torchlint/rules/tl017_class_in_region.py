"""TL017 class-in-region: a ``class`` statement (a dataclass too) run inside compiled code."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_DATACLASS = frozenset({"dataclasses.dataclass"})


class ClassInRegion(Rule):
    code = "TL017"

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.report(node.name, message=self.message.replace("this class", f"class `{node.name.value}`", 1))
        for dec in node.decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            if self.resolve(target) in _DATACLASS:
                self.report(
                    dec.decorator,
                    message="`@dataclass` runs on a class built while compiling, which dynamo "
                    "cannot trace; define the dataclass at module level",
                )
