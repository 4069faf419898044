"""TL012 rnn-module: an ``nn.RNN`` / ``nn.GRU`` / ``nn.LSTM`` submodule called in a region."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

RNN_MODULES = frozenset({"torch.nn.RNN", "torch.nn.GRU", "torch.nn.LSTM"})


class RnnModule(Rule):
    code = "TL012"

    def visit_Call(self, node: cst.Call) -> None:
        kept = self.kept_submodule(node.func)
        if kept is not None and kept[1] in RNN_MODULES:
            attr, made_by = kept
            self.report(node, message=f"`self.{attr}` is an `nn.{made_by.rsplit('.', 1)[-1]}`: " + self.message)
