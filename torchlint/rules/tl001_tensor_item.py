"""TL001 tensor-item: ``t.item()`` copies a tensor to Python and splits the graph."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


class TensorItem(Rule):
    code = "TL001"

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
