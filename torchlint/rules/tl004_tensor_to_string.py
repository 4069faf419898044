"""TL004 tensor-to-string: ``print``, ``str(t)``, ``repr(t)``, ``f"{t}"``, ``"{}".format(t)``,
``"%f" % t`` in a region."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import param_names
from torchlint.rules.base import Rule

_STRINGS = (cst.SimpleString, cst.ConcatenatedString)
#: builtins that compute with a string they are given
_COMPUTING = frozenset(
    f"builtins.{n}" for n in ("len", "int", "float", "bool", "hash", "list", "tuple", "set", "sorted", "ord")
)


class TensorToString(Rule):
    code = "TL004"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: region -> name -> the f-string / ``.format`` of a tensor it is bound to
        self.formatted: dict[int, dict[str, cst.BaseExpression]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual in _COMPUTING:
            for arg in node.args:  # len(text), int(text) (a print, a log call, a raise: reported as such)
                self._computed_with(arg.value)
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

    # f"{t}" / "{}".format(t) formats the tensor's values on the host, as str(t) does; dynamo
    # fails where the string is computed with (`len(text)`, an operand), not where it is made,
    # returned or raised: the string itself there, or the name it was bound to
    def _formats_tensor(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.FormattedString):
            return any(
                isinstance(p, cst.FormattedStringExpression) and self._computed_tensor(p.expression) for p in node.parts
            )
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "format"
            and isinstance(node.func.value, _STRINGS)
            and any(self._computed_tensor(a.value) for a in node.args)
        )

    def _computed_tensor(self, expr: cst.BaseExpression) -> bool:
        """A tensor, and not a parameter of the region's function taken for one (a string
        parameter named in an f-string is the usual reason to format it: `f"{layer_type}_w"`)."""
        if not self.is_tensor(expr):
            return False
        region = self.ctx.region
        if isinstance(expr, cst.Name) and region is not None:
            return expr.value not in param_names(region.node)
        return True

    def _bound(self) -> dict[str, cst.BaseExpression]:
        """The region's names bound to a formatted tensor, not yet used."""
        return self.formatted.setdefault(id(self.ctx.region), {})

    def visit_Assign(self, node: cst.Assign) -> None:
        bound = self._bound()
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                bound.pop(target.target.value, None)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and self._formats_tensor(node.value):
            bound[node.targets[0].target.value] = node.value

    def _computed_with(self, value: cst.BaseExpression) -> None:
        if self._formats_tensor(value):
            self.report(value)
        elif isinstance(value, cst.Name) and value.value in self._bound():
            del self._bound()[value.value]
            self.report(value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._computed_with(node.left)
        self._computed_with(node.right)
        if not isinstance(node.operator, cst.Modulo) or not isinstance(node.left, _STRINGS):
            return
        right = node.right
        values = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        if any(self.is_tensor(v) for v in values):
            self.report(node)
