import torch
from torch import nn

from ..config import HIDDEN


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)

    def forward(self, h, attention_mask=None):
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2)
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask[:, None, :] == 0, -1e4)
        print("attention", scores.shape)
        return scores.softmax(-1) @ v
