"""TL007 module-in-forward: a module with parameters (or an ``nn.Parameter``) built in a region."""

from __future__ import annotations

import libcst as cst

from torchlint.rules.base import Rule

# torch.nn classes that create parameters when built with default arguments.
PARAMETRIC = frozenset(
    """Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d
    ConvTranspose3d LazyConv1d LazyConv2d LazyConv3d BatchNorm1d BatchNorm2d BatchNorm3d
    SyncBatchNorm LayerNorm GroupNorm RMSNorm Embedding EmbeddingBag LSTM GRU RNN LSTMCell
    GRUCell RNNCell MultiheadAttention Transformer TransformerEncoderLayer
    TransformerDecoderLayer PReLU""".split()
)
# Keyword arguments that, set to False, make the module parameter-free.
_AFFINE_FLAGS = ("affine", "elementwise_affine")


class ModuleInForward(Rule):
    code = "TL007"

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.resolve(node.func)
        if qual is None:
            return
        if qual == "torch.nn.Parameter":
            self.report(
                node,
                message="`nn.Parameter(...)` inside a compiled region splits the graph; "
                "create the parameter in `__init__`",
            )
            return
        if not qual.startswith("torch.nn.") or qual.rsplit(".", 1)[-1] not in PARAMETRIC:
            return
        for arg in node.args:
            if (
                arg.keyword is not None
                and arg.keyword.value in _AFFINE_FLAGS
                and isinstance(arg.value, cst.Name)
                and arg.value.value == "False"
            ):
                return
        self.report(node)
