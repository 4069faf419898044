"""TL101 host-sync: ``.cpu()`` and ``.to("cpu")`` in a compiled region. A performance warning,
not a graph break: dynamo traces these, but each call then waits for the GPU, and a host
round trip cuts the CUDA graphs of ``reduce-overhead``.

Not flagged: ``.numpy()`` (on a CUDA tensor it raises, so in working code it follows a
``.cpu()`` that is already reported) and ``torch.cuda.synchronize()`` (on a CUDA build dynamo
skips it and breaks the graph: measured on torch 2.11, "Attempted to call function marked as
skipped"; that is a graph break, not this warning)."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_CPU_DEVICES = {"cpu"}


def _string_value(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


class HostSync(Rule):
    code = "TL101"

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

    def _tensor_receiver(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value == "self":
            return False  # self.cpu(): moving the module, not a tensor
        return self.ctx.kind(expr) in (None, "tensor")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or not self._tensor_receiver(func.value):
            return
        method = func.attr.value
        if method == "cpu" and not node.args:
            self.report(node, message=self.message.format(what=".cpu()"))
        elif method == "to" and self._cpu_target(node):
            self.report(node, message=self.message.format(what='.to("cpu")'))
