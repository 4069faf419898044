"""Layers built inside forward from sizes known at construction time."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.dim = dim
        self.inp = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(self.dim, 2 * self.dim)
        self.bias = nn.Parameter(torch.zeros(2 * self.dim))
        self.linear = nn.Linear(2 * self.dim, self.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.inp(x))
        proj = self.proj
        h = torch.relu(proj(h))
        bias = self.bias
        return self.linear(h + bias)


class Scaled(Block):
    """No __init__ of its own: the fix adds one that calls the base's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gain = nn.Parameter(torch.ones(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gain = self.gain
        return super().forward(x) * gain


def build():
    return Scaled()


def example_inputs():
    return [(torch.randn(3, 8),)]
