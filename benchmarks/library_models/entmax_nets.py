"""entmax's sparse probability mappings and losses where their users put them: in place of
softmax in attention, and as a classifier's training loss."""

from __future__ import annotations

import entmax
import torch
import torch.nn.functional as F
from torch import nn


class SparseAttention(nn.Module):
    """Multi-head self-attention whose weights come from a sparse mapping of the scores."""

    def __init__(self, mapping: nn.Module | None = None, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.mapping = mapping

    def weights(self, scores: torch.Tensor) -> torch.Tensor:
        assert self.mapping is not None
        return self.mapping(scores)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        out = self.weights(scores) @ v
        return self.out(out.transpose(1, 2).reshape(b, n, d))


class LearnedAlphaAttention(SparseAttention):
    """Attention with a learned entmax alpha per head (alpha in (1, 2), as in adaptively
    sparse transformers), through the bisection solver."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__(None, dim, heads)
        self.alpha_logit = nn.Parameter(torch.zeros(heads))

    def weights(self, scores: torch.Tensor) -> torch.Tensor:
        alpha = 1.0 + torch.sigmoid(self.alpha_logit)
        return entmax.entmax_bisect(scores, alpha.view(1, -1, 1, 1), dim=-1, n_iter=25)


class SparseClassifier(nn.Module):
    """An MLP classifier: its sparse class probabilities (eval), its entmax-family loss (training)."""

    def __init__(self, mapping: nn.Module, criterion: nn.Module, features: int = 8, classes: int = 6) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, classes))
        self.mapping = mapping
        self.criterion = criterion

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mapping(self.net(x))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.criterion(self.net(x), y)


class SparseSeq2Label(nn.Module):
    """Sparse attention pooling over a sequence, then a label: sparsemax keeps a few tokens."""

    def __init__(self, dim: int = 16, classes: int = 4) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = self.score(x).squeeze(-1).masked_fill(~mask, -1e4)
        pooled = (entmax.sparsemax(scores, dim=-1).unsqueeze(-1) * x).sum(1)
        return self.head(pooled)

    def loss(self, x: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x, mask), y)
