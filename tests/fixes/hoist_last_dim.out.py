"""An output layer sized from the input, which a LayerNorm already pins to `dim`."""
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.hidden = hidden
        self.down = nn.Linear(self.hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(self.norm(x))
        down = self.down
        return x + down(torch.relu(h))


def build():
    return Head()


def example_inputs():
    return [(torch.randn(3, 8),)]
