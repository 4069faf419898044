"""colt5-attention's conditionally routed layers where their users put them: a small language
model of routed transformer blocks, and the library's differentiable top-k and coordinate
descent router used on their own (to pick the tokens a heavy branch sees, or to pool)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from colt5_attention import ConditionalRoutedTransformerBlock, CoordinateDescentRouter, topk
from torch import nn


class RoutedLM(nn.Module):
    """Token embedding, routed transformer blocks (light local attention and feedforward on
    every token, heavy ones on the routed tokens), logits; next-token cross-entropy to train."""

    def __init__(self, vocab: int = 32, dim: int = 16, depth: int = 2, **block: object) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([ConditionalRoutedTransformerBlock(dim, **block) for _ in range(depth)])  # type: ignore[arg-type]
        self.to_logits = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, mask=mask)
        return self.to_logits(x)

    def loss(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self(tokens[:, :-1], mask[:, :-1])
        targets = tokens[:, 1:].masked_fill(~mask[:, 1:], -100)
        return F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=-100)


class TopkTokenMixer(nn.Module):
    """Mixture-of-depths style: a scorer picks k tokens through the library's differentiable
    top-k (coordinate descent, straight-through gates), only they go through the MLP, the
    output is scattered back onto the residual stream."""

    def __init__(self, dim: int = 16, k: int = 6, n_iters: int = 10) -> None:
        super().__init__()
        self.k = k
        self.n_iters = n_iters
        self.score = nn.Linear(dim, 1)
        self.mlp = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        scores = self.score(x).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e4)
        picked = topk(scores, self.k, n_iters=self.n_iters, mask=mask)
        index = picked.indices.unsqueeze(-1).expand(-1, -1, x.shape[-1])
        routed = x.gather(1, index)
        out = self.mlp(routed) * picked.gates.unsqueeze(-1)
        return x.scatter_add(1, index, out)


class RoutedPooling(nn.Module):
    """Per-class queries route the tokens each class looks at (the coordinate descent router
    with the queries as its routing tokens, cosine-similarity scores), each class pooling its
    own tokens into its logit."""

    def __init__(self, dim: int = 16, classes: int = 3, num_tokens: int = 4) -> None:
        super().__init__()
        self.num_tokens = num_tokens
        self.queries = nn.Parameter(torch.randn(classes, dim))
        self.router = CoordinateDescentRouter(
            dim, num_routing_tokens=classes, learned_routing_tokens=True, cosine_sim_routing=True, n_iters=10
        )
        self.out = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        queries = self.queries.unsqueeze(0).expand(x.shape[0], -1, -1)
        _, scores, routed, _ = self.router(x, num_tokens=self.num_tokens, mask=mask, routing_tokens=queries)
        pooled = (routed * scores.unsqueeze(-1)).sum(-2) / scores.sum(-1, keepdim=True).clamp(min=1e-6)
        return self.out(pooled).squeeze(-1)

    def loss(self, x: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x, mask), y)


class Residual(nn.Module):
    """A routed layer on the residual stream, as a transformer block holds it (its padding mask
    passed by keyword, as the layers take it)."""

    def __init__(self, layer: nn.Module, masked: bool = True) -> None:
        super().__init__()
        self.layer = layer
        self.masked = masked

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        if self.masked:
            return self.layer(x, mask=mask) + x
        return self.layer(x) + x
