"""A layer that checks its activations before returning them."""
import torch
from torch import nn


class Checked(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x)
        assert not torch.isnan(y).any(), "NaN in the projection"
        assert not (y.abs() > 1e6).any(), "the projection overflowed"
        return torch.tanh(y)


def build():
    return Checked()


def example_inputs():
    return [(torch.randn(4, 8),), (torch.randn(2, 8) * 3,)]
