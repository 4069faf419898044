"""TL019 identity-kept: ``id(t)`` / ``hash(t)`` of a tensor kept past the compiled call."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.names import untouched_param
from torchlint.rules.base import Rule

_IDENTITY = frozenset({"builtins.id", "builtins.hash"})


def _on_self(target: cst.BaseExpression) -> bool:
    """``self.key``, ``self.state.key``."""
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return isinstance(target, cst.Name) and target.value == "self"


class IdentityKept(Rule):
    code = "TL019"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: region -> name -> the ``id()`` / ``hash()`` call of a tensor it is bound to
        self.identities: dict[int, dict[str, cst.Call]] = {}
        self.reported: set[int] = set()  # identity calls already reported as computed with

    def _identity_of_tensor(self, expr: cst.BaseExpression) -> cst.Call | None:
        if isinstance(expr, cst.Call) and self.resolve(expr.func) in _IDENTITY and len(expr.args) == 1:
            arg = expr.args[0].value
            if self.ctx.kind(arg) != "tensor":
                return None
            if self.resolve(expr.func) == "builtins.id" and self._untouched_input(arg):
                return None  # the id of an input is a constant dynamo knows; a hash is not
            return expr
        return None

    def _untouched_input(self, arg: cst.BaseExpression) -> bool:
        """A parameter of the region's function never rebound in it."""
        region = self.ctx.region
        return region is not None and isinstance(arg, cst.Name) and untouched_param(region.node, arg.value)

    def _kept(self, expr: cst.BaseExpression) -> list[cst.Call]:
        """The identity calls of a stored or returned value: itself or a tuple/list item."""
        items = [e.value for e in expr.elements] if isinstance(expr, (cst.Tuple, cst.List)) else [expr]
        return [c for c in (self._identity_of_tensor(i) for i in items) if c is not None]

    def _report(self, call: cst.Call) -> None:
        name = (self.resolve(call.func) or "id").split(".")[-1]
        self.report(call, message=self.message.replace("`id()`/`hash()`", f"`{name}()`", 1))

    def _report_store(self, store: cst.Assign, call: cst.Call, target: cst.Attribute) -> None:
        """Dynamo reports the break where the graph ends, at the ``return`` that follows the
        store; the finding goes there and names the store."""
        name = (self.resolve(call.func) or "id").split(".")[-1]
        where = self._next_return(store)
        self.report(
            where or call,
            message=f"`self.{target.attr.value} = {name}(...)` keeps {name}() of a tensor computed in "
            "compiled code, a placeholder dynamo cannot hand back to Python when the graph ends "
            "here, which splits the graph; key by a value the program controls (a name, a step "
            "counter) or compute the identity outside the compiled region",
        )

    def _next_return(self, store: cst.Assign) -> cst.Return | None:
        region = self.ctx.region
        if region is None:
            return None
        seen = False
        stack: list[cst.CSTNode] = [region.node.body]
        order: list[cst.CSTNode] = []
        while stack:  # source order, not into nested functions or classes
            cur = stack.pop()
            order.append(cur)
            if cur is not region.node.body and isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend(reversed(list(cur.children)))
        for n in order:
            if n is store:
                seen = True
            elif seen and isinstance(n, cst.Return):
                return n
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if not _on_self(t):
                continue
            # dynamo fails to rebuild the value when the graph ends: at the next `return`
            if isinstance(t, cst.Attribute):
                for call in self._kept(node.value):
                    self._report_store(node, call, t)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            for call in self._kept(node.value):
                self._report(call)

    # `h = hash(y)` then `h % 2`: dynamo cannot compute with the placeholder either; it raises
    # inside the frame, which then runs eagerly (the break is reported where it is computed with)
    def _names(self) -> dict[str, cst.Call]:
        """The region's names bound to an identity of a tensor."""
        return self.identities.setdefault(id(self.ctx.region), {})

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            call = self._identity_of_tensor(node.value)
            if call is not None:
                self._names()[node.targets[0].target.value] = call
            else:
                self._names().pop(node.targets[0].target.value, None)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._computed_with(node, node.left)
        self._computed_with(node, node.right)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._computed_with(node, node.left)
        for target in node.comparisons:
            self._computed_with(node, target.comparator)

    def _computed_with(self, where: cst.CSTNode, operand: cst.BaseExpression) -> None:
        """Report ``where`` (dynamo raises, and reports the break, where the value is used)."""
        call = self._identity_of_tensor(operand)
        if call is None and isinstance(operand, cst.Name):
            call = self._names().get(operand.value)
        if call is None or id(call) in self.reported:
            return
        self.reported.add(id(call))
        name = (self.resolve(call.func) or "id").split(".")[-1]
        self.report(
            where,
            message=f"computing with {name}() of a tensor inside compiled code uses a placeholder dynamo "
            "cannot evaluate, which splits the graph; compute the identity outside the compiled region "
            "or key by a value the program controls",
        )
