"""A masked mean and sum: the picks exist only to be reduced."""
import torch
from torch import nn


class MaskedLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        err = (self.proj(x) - target) ** 2
        valid = ~torch.isnan(target)
        mean = (torch.where(valid, err, 0).sum() / valid.sum())
        return mean + 0.1 * torch.where(valid, self.proj(x), 0).sum()


def build():
    return MaskedLoss()


def example_inputs():
    target = torch.randn(6, 4)
    target[1, 2] = float("nan")
    target[4] = float("nan")
    return [(torch.randn(6, 4), target)]
