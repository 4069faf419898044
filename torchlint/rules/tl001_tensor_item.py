"""TL001 tensor-item: ``t.item()`` copies a tensor to Python and splits the graph."""
from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


class TensorItem(Rule):
    code = "TL001"
    name = "tensor-item"
    summary = "`.item()` in a compiled region"
    message = (
        "`.item()` copies a tensor to Python and splits the graph; keep the value as a 0-d tensor "
        "(`x * s` instead of `x * s.item()`)"
    )
    suggestion = (
        "Keep the value as a 0-d tensor and use tensor ops with it; if a Python number is truly "
        "needed, set `torch._dynamo.config.capture_scalar_outputs = True`."
    )
    gb_codes = ("GB0124", "GB0033")
    fix_applicability = "unsafe"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args):
            return
        receiver = func.value
        if isinstance(receiver, cst.Call):
            qual = self.resolve(receiver.func)
            if qual is not None and not qual.startswith("torch."):
                return  # np.float32(...).item() and the like
        if self.ctx.kind(receiver) in (None, "tensor"):
            self.report(node)
