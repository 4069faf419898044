"""TL003 tensor-tolist: ``t.tolist()`` turns a tensor into Python lists."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


class TensorTolist(Rule):
    code = "TL003"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "tolist" and not node.args:
            receiver = func.value
            if isinstance(receiver, cst.Call):
                qual = self.resolve(receiver.func)
                if qual is not None and not qual.startswith("torch."):
                    return
            if self.ctx.kind(receiver) in (None, "tensor"):
                self.report(node)
