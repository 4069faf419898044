"""Leave ``requires_grad=True`` out of a tensor made in a compiled region (TL014).

    aux_loss = torch.zeros(1, requires_grad=True, device=x.device)
                                      ->  aux_loss = torch.zeros(1, device=x.device)

Dynamo breaks on every tensor factory called with ``requires_grad=True``. The fresh tensor is a
leaf only this function holds: its own gradient is never read, and a value added to it (an
auxiliary loss summed over layers) carries the parameters' gradients as before. Taken when the
factory call is the value of ``name = ...`` in a function and nothing reads the name's
``.grad``/``.requires_grad`` or calls ``retain_grad``, ``backward``, ``register_hook`` or
``requires_grad_`` on it. Unsafe: when nothing that needs a gradient is added to it, the value
no longer has ``requires_grad`` set, so a ``.backward()`` on it alone raises where it did not.
The other TL014 forms (freezing inputs or parameters) are declined.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import UNSAFE, FixContext, Fixer, Plan, register
from torchlint.rules.base import Rule
from torchlint.rules.tl014_requires_grad_mutation import factory_requires_grad

_GRAD_USES = frozenset({"grad", "requires_grad", "retain_grad", "backward", "register_hook", "requires_grad_"})


@register("TL014")
class DropFactoryRequiresGrad(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if not isinstance(node, cst.Call):
            return None
        arg = factory_requires_grad(node, rule.resolve)
        binding = ctx.bound_once(node) if arg is not None else None
        if arg is None or binding is None:
            return None
        for use in binding.uses:
            parent = ctx.parent(use)
            if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value in _GRAD_USES:
                return None  # the code wants the leaf's own gradient

        def edit(updated: cst.Call) -> cst.Call:
            args = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "requires_grad")]
            if args and len(args) < len(updated.args) and updated.args[-1].keyword is not None:
                if updated.args[-1].keyword.value == "requires_grad":  # it was last: no dangling comma
                    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(args=args)

        return Plan(
            rule.code,
            node,
            {node: edit},
            UNSAFE,
            description=(
                "Leave `requires_grad=True` out of the tensor made here: it is a leaf only this function holds, "
                "whose own gradient is never read; what is added to it keeps the parameters' gradients. If "
                "nothing that needs a gradient is added, the value no longer requires grad (a `.backward()` on "
                "it alone raises)."
            ),
        )
