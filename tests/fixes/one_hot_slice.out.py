"""Routing weights one-hot encoded with a width that grows with the largest index, then cut."""
import torch
import torch.nn.functional as F
from torch import nn


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes.clamp(max=max_length), max_length + 1)[..., :max_length]


class Router(nn.Module):
    def __init__(self, num_experts: int = 4) -> None:
        super().__init__()
        self.num_experts = num_experts
        self.gate = nn.Linear(8, num_experts + 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.gate(x)
        index = logits.argmax(-1)  # may point past the experts: a row of zeros
        max_index = index.max() + 1
        mask = F.one_hot(index.clamp(max=self.num_experts), self.num_experts + 1)[..., : self.num_experts].float()
        return mask * logits[..., : self.num_experts] + safe_one_hot(index, self.num_experts).float()


def build():
    return Router()


def example_inputs():
    return [(torch.randn(16, 8),)]
