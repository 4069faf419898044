"""A fixed-point solver that stops once the update is small."""
import torch
from torch import nn


class Solver(nn.Module):
    def __init__(self, dim: int = 6, tol: float = 1e-2) -> None:
        super().__init__()
        self.inject = nn.Linear(dim, dim)
        self.tol = tol

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = self.inject(x)
        z = torch.zeros_like(u)
        steps = torch.zeros(())
        for _ in range(30):
            z_next = 0.5 * z + torch.tanh(u)
            delta = (z_next - z).abs().max()
            z = z_next
            steps = steps + 1
            if delta.item() < self.tol:
                break
        return z * 2, steps


def build():
    return Solver()


def example_inputs():
    return [(torch.randn(4, 6),)]
