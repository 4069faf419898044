"""TL007 module-in-forward: a module with parameters (or an ``nn.Parameter``) built in a region.

Also module state written in a region: ``self.buf = self.buf.to(device, dtype)`` stores a
converted copy of a tensor attribute on every call (dynamo splits the graph at the store when
the attribute is a buffer made with ``nn.Buffer``)."""

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
# Tensor methods that return a converted copy (or the tensor itself).
CASTS = frozenset({"to", "float", "half", "double", "bfloat16", "type", "cuda", "cpu", "contiguous", "type_as"})
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

    def visit_Assign(self, node: cst.Assign) -> None:
        attr = stored_cast(node)
        scope = self.ctx.scope
        if attr is not None and scope is not None and scope.kept_tensor(attr) and self.is_tensor(node.value):
            self.report(
                node.targets[0].target,
                message=f"`self.{attr} = self.{attr}.<cast>(...)` writes module state on every call of a "
                "compiled region, and dynamo splits the graph at the store of a buffer; keep the converted "
                "tensor in a local variable",
            )


def stored_cast(node: cst.Assign) -> str | None:
    """``name`` of ``self.name = self.name.to(...)`` (or another cast), else None."""
    if len(node.targets) != 1:
        return None
    target = node.targets[0].target
    value = node.value
    if not (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
        and isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in CASTS
    ):
        return None
    receiver = value.func.value
    if (
        isinstance(receiver, cst.Attribute)
        and isinstance(receiver.value, cst.Name)
        and receiver.value.value == "self"
        and receiver.attr.value == target.attr.value
    ):
        return target.attr.value
    return None
