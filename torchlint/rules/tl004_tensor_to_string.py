"""TL004 tensor-to-string: ``print``, ``str(t)``, ``repr(t)``, ``"%f" % t`` in a region."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_STRINGS = (cst.SimpleString, cst.ConcatenatedString)


class TensorToString(Rule):
    code = "TL004"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual == "builtins.print":
            self.report(
                node,
                message=(
                    "`print` in a compiled region splits the graph; "
                    "remove it or guard it with `if not torch.compiler.is_compiling():`"
                ),
            )
        elif qual in ("builtins.str", "builtins.repr") and node.args and self.is_tensor(node.args[0].value):
            self.report(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, cst.Modulo) or not isinstance(node.left, _STRINGS):
            return
        right = node.right
        values = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        if any(self.is_tensor(v) for v in values):
            self.report(node)
