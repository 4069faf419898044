"""Heads computed by name and summed in a fixed order."""
from typing import Dict

import torch
from torch import nn


class Heads(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.heads = nn.ModuleDict({"q": nn.Linear(dim, dim), "k": nn.Linear(dim, dim), "v": nn.Linear(dim, dim)})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs: Dict[str, torch.Tensor] = {}
        for name, head in self.heads.items():
            outs[name] = head(x)
        total = x
        for i, (_, out) in enumerate(sorted(outs.items(), reverse=True, key=lambda kv: kv[0])):
            total = total * 0.5 + out * (i + 1)
        return total


def build():
    return Heads()


def example_inputs():
    return [(torch.randn(4, 8),), (torch.randn(2, 8) * 3,)]
