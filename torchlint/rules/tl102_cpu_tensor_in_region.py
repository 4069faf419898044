"""TL102 cpu-tensor-in-region: ``torch.randn(...)`` and the other random creation functions
without ``device=`` in a compiled region. A performance warning, not a graph break: the
numbers are drawn on the CPU on every call and copied to the GPU outside the CUDA graph.

Measured on an H200 with torch 2.11 under ``mode="reduce-overhead"``: inductor builds
constant tensors made on the CPU (``torch.zeros``, ``torch.arange(n).to(x.device)``,
``torch.tensor(0.5)``, ``torch.tensor([...]).to(x.device)``) directly on the GPU, inside the
CUDA graph, so they cost nothing and are not flagged; a CPU ``torch.randn(x.shape)`` stays a
CPU kernel plus a host-to-device copy run eagerly before each replay.
"""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

# torch's random creation functions that take `device=`; `*_like` take the device of their
# argument and are not listed.
RANDOM_CREATION = frozenset(f"torch.{name}" for name in ("rand", "randn", "randint", "randperm"))


class CpuTensorInRegion(Rule):
    code = "TL102"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual not in RANDOM_CREATION:
            return
        for arg in node.args:
            if arg.star == "**":
                return  # a device may hide in **kwargs
            if arg.keyword is not None and arg.keyword.value == "device":
                return
        self.report(node, message=self.message.format(name=qual))
