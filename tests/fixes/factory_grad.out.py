"""An auxiliary loss summed over layers, started as a tensor made with requires_grad=True."""
import torch
from torch import nn


class AuxLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x: torch.Tensor):
        aux_loss = torch.zeros(1, device=x.device)
        total = torch.tensor(0.0, device=x.device)
        for layer in self.layers:
            x = layer(x).relu()
            aux_loss = aux_loss + x.pow(2).mean()
            total = total + x.sum()
        return x, aux_loss, total


def build():
    return AuxLoss()


def example_inputs():
    return [(torch.randn(3, 4),)]
