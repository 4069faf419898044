"""Mixture-of-experts layers where their users put them (st-moe-pytorch's ``MoE`` and
``SparseMoEBlock``, mixture-of-experts' ``MoE`` and ``HeirarchicalMoE``): in place of a
transformer block's feedforward in a small language model, and on their own over a batch of
token features; in training the routers' auxiliary loss is added to the task's loss. Both
libraries return the output and the auxiliary loss first (st-moe-pytorch then its balance and
router z-losses)."""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn


class MoEFeatures(nn.Module):
    """A mixture-of-experts layer over token features and a linear read-out: the read-out
    (eval); a regression loss plus the router's auxiliary loss (training). ``call``: keyword
    arguments of each call of the layer (st-moe-pytorch's gate noise)."""

    def __init__(self, moe: nn.Module, dim: int = 16, **call: object) -> None:
        super().__init__()
        self.moe = moe
        self.call = call
        self.head = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _aux, *_ = self.moe(x, **self.call)
        return self.head(out).squeeze(-1)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out, aux, *_ = self.moe(x, **self.call)
        return F.mse_loss(self.head(out).squeeze(-1), y) + aux


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(out.transpose(1, 2).reshape(b, n, -1))


class MoETransformerLM(nn.Module):
    """Token and position embeddings, pre-norm blocks of causal self-attention and a
    mixture-of-experts feedforward (``make_moe(dim)``; ``moe_residual``: the layer normalizes
    and adds its input itself, as ``SparseMoEBlock`` does), logits and the sum of the blocks' auxiliary
    losses; next-token cross-entropy plus that sum to train."""

    def __init__(
        self,
        make_moe: Callable[[int], nn.Module],
        vocab: int = 100,
        dim: int = 32,
        depth: int = 2,
        heads: int = 2,
        max_seq_len: int = 64,
        moe_residual: bool = False,
    ) -> None:
        super().__init__()
        self.moe_residual = moe_residual
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_seq_len, dim)
        self.attn_norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.attns = nn.ModuleList([CausalSelfAttention(dim, heads) for _ in range(depth)])
        self.moe_norms = nn.ModuleList([nn.Identity() if moe_residual else nn.LayerNorm(dim) for _ in range(depth)])
        self.moes = nn.ModuleList([make_moe(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.to_logits = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.embed(tokens) + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
        aux_loss = x.new_zeros(())
        for attn_norm, attn, moe_norm, moe in zip(self.attn_norms, self.attns, self.moe_norms, self.moes):
            x = x + attn(attn_norm(x))
            out, aux, *_ = moe(moe_norm(x))
            x = out if self.moe_residual else x + out
            aux_loss = aux_loss + aux.sum()
        return self.to_logits(self.norm(x)), aux_loss

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        logits, aux_loss = self(tokens[:, :-1])
        return F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:]) + aux_loss
