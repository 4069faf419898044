"""Scalars read back with .item() only to be used in tensor arithmetic."""
import torch
import torch.nn as nn


class Rescale(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(0.3))
        self.gate = nn.Parameter(torch.tensor(0.7))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * self.scale.sigmoid().item()
        centred = y - y.mean().item()
        gate = torch.sigmoid(self.gate)
        # Keep the residual only when the gate is open.
        if gate.item() > 0.5:
            centred = centred + x
        return centred


def build():
    return Rescale()


def example_inputs():
    return [(torch.randn(4, 6),), (torch.randn(2, 6) * 10,)]
