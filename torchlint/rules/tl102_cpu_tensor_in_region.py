"""TL102 cpu-tensor-in-region: ``torch.tensor(...)``, ``torch.zeros(...)``, ... without
``device=`` in a compiled region. A performance warning, not a graph break: the new tensor
lives on the CPU, so a CUDA model's graph mixes devices and ``reduce-overhead`` skips CUDA
graphs for it."""
from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

# torch's creation functions that take `device=`; `*_like` and `Tensor.new_*` inherit the
# device of their argument and are not listed.
CREATION_FUNCTIONS = frozenset(
    f"torch.{name}" for name in (
        "tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "empty", "full", "empty_strided",
        "arange", "range", "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm",
        "tril_indices", "triu_indices",
    )
)


class CpuTensorInRegion(Rule):
    code = "TL102"
    name = "cpu-tensor-in-region"
    summary = "`torch.tensor(...)`, `torch.zeros(...)`, ... without `device=` in a compiled region (warning)"
    message = (
        "not a graph break, but `{name}(...)` without `device=` builds a CPU tensor inside the "
        "compiled region: on a CUDA model the graph mixes devices and `mode=\"reduce-overhead\"` "
        "skips CUDA graphs; pass `device=x.device`, or register it as a buffer in `__init__`"
    )
    suggestion = (
        "Create it on the input's device (`torch.zeros(n, device=x.device)`, `x.new_zeros(n)`, "
        "`torch.zeros_like(x)`), or build constants once in `__init__` with "
        "`self.register_buffer(...)` so `model.to(device)` moves them."
    )
    severity = "warning"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual not in CREATION_FUNCTIONS:
            return
        if node.args and node.args[0].keyword is None and self.is_tensor(node.args[0].value):
            return  # torch.tensor(t) / torch.as_tensor(t) keep t's device
        for arg in node.args:
            if arg.star == "**":
                return  # a device may hide in **kwargs
            if arg.keyword is not None and arg.keyword.value == "device":
                return
        self.report(node, message=self.message.format(name=qual))
