"""TL001 tensor-item: ``t.item()`` copies a tensor to Python and splits the graph.

Also ``.item()`` of a numpy value dynamo traces as a tensor: an array made from a tensor
(``t.numpy().item()``) or from data, and a cast it cannot fold (``np.int64(n).item()``)."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.tensors import HOST_DATA, TENSOR
from torchlint.rules.base import Rule

_HOST_MESSAGE = (
    "dynamo holds this numpy value as a tensor, so `.item()` reads it on the host and splits "
    "the graph; compute it with torch ops, or outside the compiled region and pass it in"
)


class TensorItem(Rule):
    code = "TL001"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args):
            return
        receiver = func.value
        kind = self.ctx.kind(receiver)
        if kind == HOST_DATA:  # `t.numpy().item()`, `np.int64(n).item()`: dynamo holds a tensor
            self.report(node, message=_HOST_MESSAGE)
            return
        if isinstance(receiver, cst.Call):
            qual = self.resolve(receiver.func)
            if qual is not None and not qual.startswith("torch."):
                return  # np.float32(...).item() and the like
        if kind in (None, TENSOR):
            self.report(node)
