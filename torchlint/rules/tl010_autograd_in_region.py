"""TL010 autograd-in-region: ``.backward()`` / ``torch.autograd.grad`` inside compiled code."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


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
