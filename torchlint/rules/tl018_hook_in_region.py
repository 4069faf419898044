"""TL018 hook-in-region: module hooks registered inside compiled code."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

_MODULE_HOOKS = frozenset(
    {
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
    }
)
_GLOBAL_HOOKS = frozenset(
    f"torch.nn.modules.module.register_module_{kind}"
    for kind in ("forward_hook", "forward_pre_hook", "full_backward_hook", "full_backward_pre_hook", "backward_hook")
)


class HookInRegion(Rule):
    code = "TL018"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_HOOKS:
            receiver = func.value
            if (isinstance(receiver, cst.Name) and receiver.value == "self") or self.ctx.kind(receiver) == "module":
                self.report(node, message=self.message.replace("a hook", f"`{func.attr.value}`", 1))
        elif self.resolve(func) in _GLOBAL_HOOKS:
            self.report(node)
