"""TL021 break-in-made-object: a break inside something the compiled code made, which dynamo
cannot rebuild to resume there, so the graph breaks at the call too.

Two shapes. A method that breaks, called on an object the region made: whether the method
breaks is known only once every file of the project is checked, so that check runs after them,
in :mod:`torchlint.static.rebuild`. A generator expression that breaks inside, consumed by a
builtin that dynamo cannot resume (``all``, ``any``, ``sum``, ``set`` on torch 2.13, measured
per version by ``benchmarks/knowledge.py``): this visitor flags the consumer's call once the
walk has reported the break inside it.
"""

from __future__ import annotations

import libcst as cst

from torchlint import knowledge
from torchlint.analysis.tree import walk
from torchlint.rules.base import Rule


class BreakInMadeObject(Rule):
    code = "TL021"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.consumers = {f"builtins.{name}" for name in knowledge.generator_consumers()}

    def leave_Call(self, node: cst.Call) -> None:
        # left after its arguments: the breaks inside the generator are reported by now
        if len(node.args) != 1 or not isinstance(node.args[0].value, cst.GeneratorExp):
            return
        name = self.resolve(node.func)
        if name not in self.consumers:
            return
        inner = {id(n) for n in walk(node.args[0].value)}
        if not any(
            id(reported) in inner and rule.severity == "error" and rule.code.startswith("TL0")
            for rule, reported, *_ in self.ctx.reports
        ):
            return
        consumer = name.removeprefix("builtins.")
        reduce = f", or compute the values as one tensor and reduce it (`torch.stack([...]).{consumer}()`)"
        self.report(
            node,
            message=f"the generator `{consumer}()` consumes breaks the graph inside, and dynamo cannot rebuild "
            "a generator made in the compiled code to resume there, so the graph also breaks at this call "
            "and the function runs in Python",
            suggestion="Remove the break inside the generator"
            + (reduce if consumer in ("all", "any", "sum") else "")
            + ".",
        )
