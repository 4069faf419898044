"""Branches on tensor values: if/else assignments, augmented assignment, ternary, early exit."""
import torch
import torch.nn as nn


class Branchy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if h.mean() > 0:
            y = h * 2
        else:
            y = h - 1
        if (h.sum() < 0):
            h += 1
        if h.max() > 1 and h.min() < -1:
            scale = h.abs().max()
            offset = h.mean()
        else:
            scale = torch.ones(())
            offset = torch.zeros(())
        z = (y - offset) / scale
        signed = z if z.sum() > 0 else -z
        # Large activations: skip the refinement.
        if x.abs().max() > 50:
            return z
        out = signed * 2 + y
        return out


def build():
    return Branchy()


def example_inputs():
    torch.manual_seed(3)
    return [(torch.randn(4, 6),), (-torch.randn(4, 6),), (torch.randn(4, 6) * 100,), (torch.rand(2, 6) * 0.1,)]
