"""performer-pytorch where its users put it when not modelling language with ``PerformerLM``:
its ``Performer`` stack over the token embeddings of a padded batch, pooled into a classifier;
its ``SelfAttention`` layer in a user's pre-norm block over image patches; its ``FastAttention``
(the FAVOR+ kernel alone) behind a user's own query, key and value projections. ``forward``
returns what inference reads, ``loss`` the training loss."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class PerformerClassifier(nn.Module):
    """Token embeddings through a ``Performer`` under the padding mask, the unpadded tokens
    mean-pooled into class logits; cross-entropy to train."""

    def __init__(self, stack: nn.Module, vocab: int = 100, dim: int = 32, classes: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(64, dim) * 0.02)
        self.stack = stack
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        x = self.stack(x, mask=mask)
        weights = mask.unsqueeze(-1).type_as(x)
        pooled = (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
        return self.head(pooled)

    def loss(self, tokens: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(tokens, mask), y)


class PatchPerformer(nn.Module):
    """A small ViT whose blocks use performer-pytorch's ``SelfAttention`` (pre-norm, residual)
    and a GELU MLP: patches of a ``(batch, 3, 32, 32)`` image, a class token, its logits."""

    def __init__(self, depth: int = 2, dim: int = 32, patch: int = 8, classes: int = 10, **attn: object) -> None:
        super().__init__()
        from performer_pytorch import SelfAttention

        self.patch = patch
        self.to_patch = nn.Linear(3 * patch * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, (32 // patch) ** 2 + 1, dim) * 0.02)
        self.blocks = nn.ModuleList(
            nn.ModuleList(
                [
                    nn.LayerNorm(dim),
                    SelfAttention(dim=dim, heads=4, dim_head=8, **attn),
                    nn.LayerNorm(dim),
                    nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)),
                ]
            )
            for _ in range(depth)
        )
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        b, c, h, w = images.shape
        p = self.patch
        patches = images.unfold(2, p, p).unfold(3, p, p).permute(0, 2, 3, 1, 4, 5).reshape(b, -1, c * p * p)
        x = torch.cat([self.cls.expand(b, -1, -1), self.to_patch(patches)], dim=1) + self.pos
        for norm1, attn, norm2, mlp in self.blocks:
            x = x + attn(norm1(x))
            x = x + mlp(norm2(x))
        return self.head(self.norm(x[:, 0]))

    def loss(self, images: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(images), y)


class FavorAttention(nn.Module):
    """A user's multi-head attention whose softmax is replaced by performer-pytorch's
    ``FastAttention`` (random features), over a sequence of continuous features: a small
    regressor of the next values of a multivariate series."""

    def __init__(self, dim: int = 32, heads: int = 4, features: int = 8, **favor: object) -> None:
        super().__init__()
        from performer_pytorch import FastAttention

        self.heads = heads
        self.inp = nn.Linear(features, dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.attn = FastAttention(dim_heads=dim // heads, nb_features=16, **favor)
        self.out = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, features)

    def forward(self, series: torch.Tensor) -> torch.Tensor:
        x = self.inp(series)
        b, n, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        o = self.attn(q, k, v).transpose(1, 2).reshape(b, n, d)
        return self.head(x + self.out(o))

    def loss(self, series: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(series), target)
