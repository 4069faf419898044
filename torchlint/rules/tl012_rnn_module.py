"""TL012 rnn-module: an ``nn.RNN`` / ``nn.GRU`` / ``nn.LSTM`` submodule called in a region."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

RNN_MODULES = frozenset({"torch.nn.RNN", "torch.nn.GRU", "torch.nn.LSTM"})


class RnnModule(Rule):
    code = "TL012"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        owner = self.ctx.region.owner if self.ctx.region is not None else None
        if (
            owner is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and owner.submodules.get(func.attr.value) in RNN_MODULES
        ):
            kind = owner.submodules[func.attr.value].rsplit(".", 1)[-1]
            self.report(node, message=f"`self.{func.attr.value}` is an `nn.{kind}`: " + self.message)
