"""Efficient-attention layer stacks (reformer-pytorch's ``Reformer``, routing-transformer's
``RoutingTransformer``) where their users put them when not modelling language: over the token
embeddings of a padded batch, pooled into a classifier."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class SequenceClassifier(nn.Module):
    """Token embeddings through a layer stack under a padding mask (``input_mask``), the
    unpadded tokens mean-pooled into class logits; cross-entropy to train, plus the stack's
    auxiliary loss where it returns one (the routing transformer's k-means commitment)."""

    def __init__(self, stack: nn.Module, vocab: int = 100, dim: int = 32, classes: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.stack = stack
        self.head = nn.Linear(dim, classes)

    def encode(self, tokens: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        out = self.stack(self.embed(tokens), input_mask=mask)
        x, aux = out if isinstance(out, tuple) else (out, None)
        weights = mask.unsqueeze(-1).type_as(x)
        pooled = (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
        return self.head(pooled), aux

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.encode(tokens, mask)[0]

    def loss(self, tokens: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        logits, aux = self.encode(tokens, mask)
        loss = F.cross_entropy(logits, y)
        return loss if aux is None else loss + aux.sum()
