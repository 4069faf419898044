"""rtdl-revisiting-models' tabular networks where their users put them: an MLP, a ResNet and
an FT-Transformer over continuous and categorical columns (its Linformer-compressed
attention too), and the library's embeddings and backbone under a user's own head, with the
task's loss in training."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from rtdl_revisiting_models import (
    MLP,
    CategoricalEmbeddings,
    FTTransformer,
    FTTransformerBackbone,
    LinearEmbeddings,
    MultiheadAttention,
    ResNet,
)
from torch import nn


class Task(nn.Module):
    """A model and its loss: ``kind`` is "multiclass", "binary" or "regression"; the
    model's inputs are the continuous columns and, where it takes them, the categorical ones."""

    def __init__(self, model: nn.Module, kind: str = "multiclass", categorical: bool = False) -> None:
        super().__init__()
        self.model, self.kind, self.categorical = model, kind, categorical

    def forward(self, x_cont: torch.Tensor | None, x_cat: torch.Tensor | None = None) -> torch.Tensor:
        out = self.model(x_cont, x_cat) if self.categorical else self.model(x_cont)
        return out.squeeze(-1) if self.kind != "multiclass" else out

    def loss(self, x_cont: torch.Tensor | None, x_cat: torch.Tensor | None, y: torch.Tensor) -> torch.Tensor:
        out = self(x_cont, x_cat)
        if self.kind == "multiclass":
            return F.cross_entropy(out, y)
        if self.kind == "binary":
            return F.binary_cross_entropy_with_logits(out, y)
        return F.mse_loss(out, y)


class EmbeddingMLP(nn.Module):
    """The paper's MLP with feature embeddings: each continuous column through its own linear
    embedding, each categorical one through its table, all flattened into the library's MLP."""

    def __init__(self, n_cont: int, cardinalities: list[int], d_embedding: int = 4, d_out: int = 3) -> None:
        super().__init__()
        self.cont = LinearEmbeddings(n_cont, d_embedding)
        self.cat = CategoricalEmbeddings(cardinalities, d_embedding)
        self.mlp = MLP(
            d_in=(n_cont + len(cardinalities)) * d_embedding, d_out=d_out, n_blocks=2, d_block=32, dropout=0.1
        )

    def forward(self, x_cont: torch.Tensor, x_cat: torch.Tensor) -> torch.Tensor:
        tokens = torch.cat([self.cont(x_cont), self.cat(x_cat)], dim=1)
        return self.mlp(tokens.flatten(1))


class BackboneRegressor(nn.Module):
    """The FT-Transformer backbone under the user's own tokenizer and head: a [CLS] token, the
    continuous columns' linear embeddings, no output block in the backbone (``d_out=None``),
    a head predicting several targets."""

    def __init__(self, n_cont: int = 6, d_block: int = 16, targets: int = 2) -> None:
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, d_block))
        self.embed = LinearEmbeddings(n_cont, d_block)
        self.backbone = FTTransformerBackbone(
            d_out=None,
            n_blocks=2,
            d_block=d_block,
            attention_n_heads=4,
            attention_dropout=0.1,
            ffn_d_hidden=None,
            ffn_d_hidden_multiplier=2.0,
            ffn_dropout=0.1,
            ffn_activation="ReLU",
            residual_dropout=0.0,
        )
        self.head = nn.Sequential(nn.LayerNorm(d_block), nn.Linear(d_block, targets))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.embed(x)], 1)
        return self.head(self.backbone(tokens))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x), y)


class RetrievalHead(nn.Module):
    """Each row attends to a bank of context rows (the library's MultiheadAttention as
    cross-attention between embedded rows), then an MLP classifies it."""

    def __init__(self, n_cont: int = 6, d: int = 16, classes: int = 3, context: int = 10) -> None:
        super().__init__()
        self.embed = nn.Linear(n_cont, d)
        self.bank = nn.Parameter(torch.randn(context, n_cont))
        self.attention = MultiheadAttention(d_embedding=d, n_heads=4, dropout=0.1)
        self.mlp = MLP(d_in=2 * d, d_out=classes, n_blocks=1, d_block=32, dropout=0.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.embed(x).unsqueeze(1)  # (b, 1, d)
        kv = self.embed(self.bank).unsqueeze(0).expand(x.shape[0], -1, -1)
        retrieved = self.attention(q, kv).squeeze(1)
        return self.mlp(torch.cat([q.squeeze(1), retrieved], -1))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)


def mlp(n_cont: int) -> MLP:
    return MLP(d_in=n_cont, d_out=3, n_blocks=3, d_block=32, dropout=0.1)


def resnet(n_cont: int) -> ResNet:
    return ResNet(
        d_in=n_cont, d_out=1, n_blocks=2, d_block=32, d_hidden=None, d_hidden_multiplier=2.0, dropout1=0.1, dropout2=0.0
    )


def ft_transformer(n_cont: int, cardinalities: list[int], d_out: int = 3, **backbone: object) -> FTTransformer:
    kwargs = FTTransformer.get_default_kwargs(n_blocks=2)
    kwargs.update(d_block=16, attention_n_heads=4, d_out=d_out, **backbone)
    return FTTransformer(n_cont_features=n_cont, cat_cardinalities=cardinalities, **kwargs)
