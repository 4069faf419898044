"""A router that runs the experts its gate scores highest and lowest."""
import torch
from torch import nn


class Router(nn.Module):
    def __init__(self, dim: int = 8, n: int = 3) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, n)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.gate(x).mean(0)
        best = scores.argmax().item()
        y = self.experts[best](x)
        worst = min(range(len(self.experts)), key=lambda i: scores[i])
        w = self.experts[worst](x)
        return torch.relu(y) + 0.5 * w + scores.softmax(-1).max()


def build():
    return Router()


def example_inputs():
    return [(torch.randn(4, 8),), (torch.randn(2, 8) * 3,)]
