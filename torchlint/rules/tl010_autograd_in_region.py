"""TL010 autograd-in-region: ``.backward()`` / ``torch.autograd.grad`` inside compiled code, and
an autograd Function applied to one tensor twice while gradients are on."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import dotted
from torchlint.analysis.regions import applied_function
from torchlint.rules.base import Rule

DUPLICATE_MESSAGE = (
    "an autograd Function handed the same tensor twice splits the graph when gradients are on; "
    "pass a copy as the second argument"
)
DUPLICATE_SUGGESTION = "Pass `x.clone()` where the same tensor is passed again, or have the Function take it once."
#: names that are no tensor whatever the scope says
_CONSTANTS = frozenset({"None", "True", "False"})


class AutogradInRegion(Rule):
    code = "TL010"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual in ("torch.autograd.grad", "torch.autograd.backward"):
            self.report(node)
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            if self.ctx.kind(func.value) in (None, "tensor") and not (
                isinstance(func.value, cst.Name) and func.value.value in ("self", "super")
            ):
                self.report(node)
                return
        if self.ctx.index.train and self._applied_twice(node):
            self.report(node, DUPLICATE_MESSAGE, DUPLICATE_SUGGESTION)

    def _applied_twice(self, node: cst.Call) -> bool:
        """Whether ``node`` applies an autograd Function of the project (this file's, or one
        it imports) to one tensor twice: dynamo
        traces its backward only when gradients are on (training), and then cannot tell the
        two inputs' gradients apart."""
        region = self.ctx.region
        func = node.func
        imported = (
            isinstance(func, cst.Attribute)
            and func.attr.value == "apply"
            and self.resolve(func.value) in self.ctx.index.imports.autograd_functions
        )
        if (
            not imported
            and applied_function(node, self.ctx.index, region.owner if region is not None else None) is None
        ):
            return False
        seen: set[str] = set()
        for arg in node.args:
            if arg.star or arg.keyword is not None:
                continue
            text = dotted(arg.value)  # (a name or `a.b.c`: the same object each time it is read)
            if text is None or text in _CONSTANTS or self.ctx.kind(arg.value) not in (None, "tensor"):
                continue
            if text in seen:
                return True
            seen.add(text)
        return False
