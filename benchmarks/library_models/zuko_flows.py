"""zuko's normalizing flows as their users train and sample them."""

from __future__ import annotations

import torch
from torch import nn


class FlowLogProb(nn.Module):
    """The negative log-likelihood of samples under a (conditional) flow: the training loss."""

    def __init__(self, flow: nn.Module) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return -self.flow(c).log_prob(x)


class FlowSample(nn.Module):
    """Samples drawn through the flow (reparameterized), with their log-density."""

    def __init__(self, flow: nn.Module, n: int = 4) -> None:
        super().__init__()
        self.flow = flow
        self.n = n

    def forward(self, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.flow(c).rsample_and_log_prob((self.n,))
