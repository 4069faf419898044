"""Layers built inside forward from sizes known at construction time."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.dim = dim
        self.inp = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.inp(x))
        proj = nn.Linear(self.dim, 2 * self.dim)
        h = torch.relu(proj(h))
        bias = nn.Parameter(torch.zeros(2 * self.dim))
        return nn.Linear(2 * self.dim, self.dim, bias=False)(h + bias)


class Scaled(Block):
    """No __init__ of its own: the fix adds one that calls the base's."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gain = nn.Parameter(torch.ones(8))
        return super().forward(x) * gain


def build():
    return Scaled()


def example_inputs():
    return [(torch.randn(3, 8),)]
