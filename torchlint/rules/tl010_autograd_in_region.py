"""TL010 autograd-in-region: ``.backward()`` / ``torch.autograd.grad`` inside compiled code."""
from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


class AutogradInRegion(Rule):
    code = "TL010"
    name = "autograd-in-region"
    summary = "`.backward()`, `torch.autograd.grad` inside compiled code"
    message = (
        "running autograd inside a compiled region splits the graph; compile the forward (and "
        "loss) only and call `.backward()` outside it"
    )
    suggestion = (
        "Compile the model or a loss function, and keep `loss.backward()` / "
        "`torch.autograd.grad` in the training loop, outside the compiled region."
    )
    gb_codes = ("GB0123", "GB9186", "GB7054", "GB0007")

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
