"""TL011 explicit-graph-break: ``torch._dynamo.graph_break()`` and calls to disabled functions."""

from __future__ import annotations

import libcst as cst

from torchlint.analysis.regions import DISABLE_DECORATORS, find_method
from torchlint.rules.base import Rule

_BREAKS = {"torch._dynamo.graph_break", "torch._dynamo.skip_frame"}


class ExplicitGraphBreak(Rule):
    code = "TL011"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual in _BREAKS:
            self.report(node, message=self.message.replace("this call", f"`{qual}()`", 1))
            return
        wrapped = self._disabled_wrapper(node)
        if wrapped is not None:
            self.report(
                node,
                message=f"`{wrapped}` is wrapped with `torch.compiler.disable`, so calling it "
                "here splits the graph; make it traceable or call it outside the compiled region",
            )
            return
        child = self._disabled_child(node)
        if child is not None:
            self.report(
                node,
                message=f"the `forward` of `{child}` is decorated with `@torch.compiler.disable`, so "
                "calling the submodule here splits the graph; make it traceable or call it outside "
                "the compiled region",
            )
            return
        callee = self.ctx.callee(node)
        if callee is not None and self.ctx.index.is_disabled(callee):
            self.report(
                node,
                message=f"`{callee.name.value}` is decorated with "
                "`@torch.compiler.disable`, so calling it here splits the graph; make it "
                "traceable or call it outside the compiled region",
            )
        elif (  # `clip = torch.compiler.disable(_clip)` at module level, then `clip(x)`
            isinstance(node.func, cst.Name)
            and node.func.value not in (self.ctx.scope.local if self.ctx.scope else ())
            and self.ctx.imports.bound_calls.get(node.func.value) in DISABLE_DECORATORS
        ):
            self.report(
                node,
                message=f"`{node.func.value}` is wrapped with `torch.compiler.disable`, "
                "so calling it here splits the graph; make it traceable or call it outside "
                "the compiled region",
            )

    def _disabled_child(self, node: cst.Call) -> str | None:
        """``self.child(x)`` of a submodule whose same-file class's ``forward`` is decorated with
        ``@torch.compiler.disable``: the class's name."""
        kept = self.kept_submodule(node.func)
        info = self.ctx.index.classes.get(kept[1]) if kept is not None else None
        if info is None or not info.is_module:
            return None
        found = find_method(self.ctx.index, info, "forward")
        return info.name if found is not None and self.ctx.index.is_disabled(found[1]) else None

    def _disabled_wrapper(self, node: cst.Call) -> str | None:
        """The text of a callee wrapped with ``torch.compiler.disable``: inline
        (``torch.compiler.disable(self.head)(x)``) or bound in ``__init__``
        (``self.head = torch.compiler.disable(nn.Linear(8, 8))``, then ``self.head(x)``)."""
        func = node.func
        if (
            isinstance(func, cst.Call)
            and self.resolve(func.func) in DISABLE_DECORATORS
            and func.args
            and func.args[0].keyword is None
        ):
            return cst.Module([]).code_for_node(func.args[0].value)
        kept = self.kept_submodule(func)
        return f"self.{kept[0]}" if kept is not None and kept[1] in DISABLE_DECORATORS else None
