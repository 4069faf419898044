"""TL014 requires-grad-mutation: ``t.requires_grad = ...`` / ``p.requires_grad_()`` in compiled code,
and a tensor made there with ``requires_grad=True`` (``torch.zeros(1, requires_grad=True)``)."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_PARAM_ITERATORS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers"})
#: torch's tensor factories: dynamo breaks on each call of one with ``requires_grad=True``
FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "zeros ones empty full tensor rand randn arange linspace zeros_like ones_like empty_like full_like "
        "rand_like randn_like"
    ).split()
)
FACTORY_MESSAGE = (
    "a tensor made with `requires_grad=True` inside a compiled region splits the graph; a fresh tensor needs "
    "no gradient of its own (what is added to it gets one), so leave `requires_grad` out"
)


def factory_requires_grad(call: cst.Call, resolve) -> cst.Arg | None:
    """The ``requires_grad=True`` argument of a call of a torch tensor factory, else None."""
    if resolve(call.func) not in FACTORIES:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad":
            value = arg.value
            return arg if isinstance(value, cst.Name) and value.value == "True" else None
    return None


def _sole_flag(call: cst.Call, keyword: str) -> str | None:
    """``"True"`` / ``"False"`` for a call whose one argument is that literal, positional or
    as ``keyword`` (``t.requires_grad_(False)``, ``torch.set_grad_enabled(True)``)."""
    if len(call.args) != 1:
        return None
    arg = call.args[0]
    if arg.keyword is not None and arg.keyword.value != keyword:
        return None
    return arg.value.value if isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False") else None


#: contexts that turn gradients on whatever the mode the model runs in
_ENABLE_GRAD = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})


class RequiresGradMutation(Rule):
    code = "TL014"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.param_loops: set[tuple] = set()
        self.grad_on: list[bool] = []  # per enclosing `with`: whether it turns gradients on

    def _turns_grad_on(self, item: cst.WithItem) -> bool:
        call = item.item
        if not isinstance(call, cst.Call):
            return False
        qual = self.resolve(call.func)
        return qual in _ENABLE_GRAD or (qual == "torch.set_grad_enabled" and _sole_flag(call, "mode") == "True")

    def visit_With(self, node: cst.With) -> None:
        self.grad_on.append(any(self._turns_grad_on(item) for item in node.items))

    def leave_With(self, node: cst.With) -> None:
        self.grad_on.pop()

    def visit_For(self, node: cst.For) -> None:
        # for p in self.parameters(): / for name, p in self.encoder.named_parameters():
        it = node.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value in _PARAM_ITERATORS:
            base = it.func.value
            if (isinstance(base, cst.Name) and base.value == "self") or self.ctx.kind(base) == "module":
                target: cst.BaseExpression = node.target
                if isinstance(target, cst.Tuple) and target.elements:
                    target = target.elements[-1].value
                if isinstance(target, cst.Name):
                    self.param_loops.add((id(self.ctx.region), target.value))

    def _input_or_parameter(self, expr: cst.BaseExpression) -> bool:
        """A tensor that arrives from outside the region: a parameter, buffer or input."""
        if isinstance(expr, cst.Name):
            if (id(self.ctx.region), expr.value) in self.param_loops:
                return True
            scope = self.ctx.scope
            region = self.ctx.region
            params = {p.name.value for p in region.node.params.params} if region is not None else set()
            return scope is not None and expr.value in params and scope.kinds.get(expr.value) == "tensor"
        if isinstance(expr, cst.Attribute):
            # self.weight (a parameter or buffer), self.proj.weight
            return self.is_tensor(expr) and (
                (isinstance(expr.value, cst.Name) and expr.value.value == "self")
                or self.ctx.kind(expr.value) == "module"
            )
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                obj = t.value
                if self.is_tensor(obj) or self._input_or_parameter(obj):
                    self.report(t)
                    return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if factory_requires_grad(node, self.resolve) is not None:
            self.report(node, FACTORY_MESSAGE, "Leave `requires_grad=True` out of the tensor made in the region.")
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            # An input or parameter always; a tensor made in the region only when the pass
            # checks training (`--train`): under no_grad (eval mode) dynamo traces the call,
            # with gradients on it breaks on every `requires_grad_()`.
            # `requires_grad_(False)` of a tensor made here is a no-op dynamo traces. Under
            # `with torch.enable_grad():` gradients are on in eval too (a force or a
            # Jacobian computed in the forward).
            grad_on = self.ctx.index.train or any(self.grad_on)
            if self._input_or_parameter(func.value) or (
                grad_on and self.is_tensor(func.value) and _sole_flag(node, "requires_grad") != "False"
            ):
                self.report(node)
