"""rotary-embedding-torch where its users put it: inside their own attention, rotating each
head's queries and keys (``rotate_queries_or_keys``; with xpos both at once, with their
length-extrapolating scales, ``rotate_queries_and_keys``), the new queries of a decoding step
against a cache of keys, the two axes of an image's patch grid (``get_axial_freqs`` and
``apply_rotary_emb``), and the library's own flash attention with rotary (its reference path
where triton is absent)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb
from rotary_embedding_torch.flash_attn_with_rotary import flash_attn_with_rotary
from torch import nn


class RotaryAttention(nn.Module):
    """Multi-head self-attention with rotary positions (``RotaryEmbedding(rotary_dim, **rotary)``) on the
    queries and keys; heads laid out (b, h, n, d), or (b, n, h, d) when the embedding is made
    with ``seq_before_head_dim``. A padding mask (non-causal) or a causal mask."""

    def __init__(
        self, dim: int = 32, heads: int = 2, causal: bool = True, rotary_dim: int = 8, **rotary: object
    ) -> None:
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(rotary_dim, **rotary)  # type: ignore[arg-type]

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.heads, -1) for t in self.qkv(x).chunk(3, dim=-1))
        if not self.rotary.seq_before_head_dim:
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if self.rotary.use_xpos:
            q, k = self.rotary.rotate_queries_and_keys(q, k)
        else:
            q = self.rotary.rotate_queries_or_keys(q)
            k = self.rotary.rotate_queries_or_keys(k)
        if self.rotary.seq_before_head_dim:
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        attn_mask = None if mask is None else mask[:, None, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=self.causal)
        return self.out(out.transpose(1, 2).reshape(b, n, -1))


class RotaryBlock(nn.Module):
    """A pre-norm transformer block around :class:`RotaryAttention`, with a class head over
    the mean of its tokens (training: cross-entropy)."""

    def __init__(self, dim: int = 32, classes: int = 4, **attention: object) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = RotaryAttention(dim, **attention)  # type: ignore[arg-type]
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.attn(self.norm1(x), mask)
        x = x + self.ff(self.norm2(x))
        return self.head(x.mean(dim=1))

    def loss(self, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return F.cross_entropy(self(x, mask), y)


class CachedRotaryDecoder(nn.Module):
    """A decoding step of new tokens against cached keys and values (kept unrotated): the keys
    and the new queries rotated together, the queries at their offsets behind the cache
    (``rotate_queries_with_cached_keys``), causal among the new tokens."""

    def __init__(self, dim: int = 32, heads: int = 2, rotary_dim: int = 16, **rotary: object) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(rotary_dim, **rotary)  # type: ignore[arg-type]

    def forward(self, x: torch.Tensor, cache_k: torch.Tensor, cache_v: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        k = torch.cat((cache_k, k), dim=-2)
        v = torch.cat((cache_v, v), dim=-2)
        q, k = self.rotary.rotate_queries_with_cached_keys(q, k)
        total = k.shape[-2]
        allowed = torch.ones(n, total, dtype=torch.bool, device=x.device).tril(total - n)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return self.out(out.transpose(1, 2).reshape(b, n, -1))


class AxialRotaryViT(nn.Module):
    """Patches of an image attend to each other, rotated by frequencies made over both axes of
    the patch grid (``get_axial_freqs``, pixel frequencies by default, ``offsets`` to shift the
    grid), applied to queries and keys laid out (b, h, rows, columns, d); class logits of the
    mean patch (training: cross-entropy)."""

    def __init__(
        self,
        image: int = 16,
        patch: int = 4,
        dim: int = 32,
        heads: int = 2,
        classes: int = 5,
        offsets: tuple[float, float] | None = None,
        **rotary: object,
    ) -> None:
        super().__init__()
        self.heads = heads
        self.offsets = offsets
        self.patches = nn.Conv2d(3, dim, patch, stride=patch)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)
        # each axis rotates a quarter of a head's features: half of them in all
        self.rotary = RotaryEmbedding(dim // heads // 4, **rotary)  # type: ignore[arg-type]

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patches(images).permute(0, 2, 3, 1)  # b, rows, columns, dim
        b, rows, cols, _ = x.shape
        q, k, v = (t.view(b, rows, cols, self.heads, -1).permute(0, 3, 1, 2, 4) for t in self.qkv(x).chunk(3, dim=-1))
        freqs = self.rotary.get_axial_freqs(rows, cols, offsets=self.offsets)
        q = apply_rotary_emb(freqs, q)
        k = apply_rotary_emb(freqs, k)
        q, k, v = (t.flatten(2, 3) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v)
        out = self.out(out.transpose(1, 2).reshape(b, rows * cols, -1))
        return self.head(out.mean(dim=1))

    def loss(self, images: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(images), y)


class FusedRotaryAttention(nn.Module):
    """Causal self-attention through the library's flash attention with rotary: the rotary
    frequencies handed over as ``rotary_pos_emb``, a padding mask as ``attn_mask``."""

    def __init__(self, dim: int = 32, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(dim // heads)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        freqs = self.rotary(torch.arange(n, device=x.device), seq_len=n)
        out = flash_attn_with_rotary(q, k, v, rotary_pos_emb=freqs, attn_mask=mask, is_causal=True)
        return self.out(out.transpose(1, 2).reshape(b, n, -1))
