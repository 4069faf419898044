"""TL101 host-sync: ``.cpu()``, ``.to("cpu")``, ``.numpy()``, ``torch.cuda.synchronize()`` in a
compiled region. A performance warning, not a graph break: dynamo traces these, but the graph
then waits for the GPU and holds a CPU tensor, which stops CUDA graphs (``reduce-overhead``)."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from torchlint.rules.base import Rule

_CPU_DEVICES = {"cpu"}


def _string_value(expr: cst.BaseExpression) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


class HostSync(Rule):
    code = "TL101"
    name = "host-sync"
    summary = "`.cpu()`, `.to(\"cpu\")`, `.numpy()`, `torch.cuda.synchronize()` in a compiled region (warning)"
    message = (
        "not a graph break, but a host sync: `{what}` makes the GPU wait and leaves a CPU tensor in "
        "the graph, so `mode=\"reduce-overhead\"` skips CUDA graphs; return the tensor and move it "
        "to the CPU after the compiled call"
    )
    suggestion = (
        "Keep the region on the device: return the tensor and call `.cpu()` / `.numpy()` on the "
        "result outside the compiled function, once per step; drop `torch.cuda.synchronize()` "
        "from the model (synchronise in the benchmark or training loop instead)."
    )
    severity = "warning"

    def _cpu_target(self, call: cst.Call) -> bool:
        """``.to("cpu")``, ``.to(device="cpu")``, ``.to(torch.device("cpu"))``."""
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value != "device":
                continue
            value = arg.value
            if isinstance(value, cst.Call) and self.resolve(value.func) == "torch.device" and value.args:
                value = value.args[0].value
            text = _string_value(value)
            if text is not None and text.split(":")[0] in _CPU_DEVICES:
                return True
        return False

    def _is_host_copy(self, expr: cst.BaseExpression) -> bool:
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return False
        method = expr.func.attr.value
        return method == "cpu" or (method == "to" and self._cpu_target(expr))

    def _tensor_receiver(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value == "self":
            return False  # self.cpu(): moving the module, not a tensor
        return self.ctx.kind(expr) in (None, "tensor")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        qual = self.resolve(func)
        if qual == "torch.cuda.synchronize":
            self.report(node, message=self.message.format(what="torch.cuda.synchronize()"))
            return
        if not isinstance(func, cst.Attribute) or not self._tensor_receiver(func.value):
            return
        method = func.attr.value
        if method == "cpu" and not node.args:
            self.report(node, message=self.message.format(what=".cpu()"))
        elif method == "to" and self._cpu_target(node):
            self.report(node, message=self.message.format(what='.to("cpu")'))
        elif method == "numpy" and not self._is_host_copy(func.value):
            # `x.cpu().numpy()` is one copy, already reported at `.cpu()`.
            self.report(node, message=self.message.format(what=".numpy()"))
