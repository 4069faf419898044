"""TL003 tensor-tolist: ``t.tolist()`` turns a tensor into Python lists."""
from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule


class TensorTolist(Rule):
    code = "TL003"
    name = "tensor-tolist"
    summary = "`.tolist()` in a compiled region"
    message = (
        "`.tolist()` copies a tensor into Python lists and splits the graph; keep working on the "
        "tensor (index, mask or gather instead of looping over a list)"
    )
    suggestion = "Replace the list processing with tensor ops (indexing, `torch.gather`, `torch.where`)."
    gb_codes = ("GB0109", "GB0124", "GB0033")
    fix_applicability = "unsafe"

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
