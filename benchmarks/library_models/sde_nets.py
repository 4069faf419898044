"""Neural SDEs integrated with torchsde, as its users write them."""

from __future__ import annotations

import torch
import torchsde
from torch import nn


class DiagonalSDE(nn.Module):
    """dy = mu(y) dt + sigma(y) dW, with diagonal noise."""

    def __init__(self, dim: int = 3, sde_type: str = "ito") -> None:
        super().__init__()
        self.noise_type = "diagonal"
        self.sde_type = sde_type
        self.mu = nn.Linear(dim, dim)
        self.sigma = nn.Linear(dim, dim)

    def f(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.mu(y))

    def g(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.sigma(y))


class SDEIntegrate(nn.Module):
    """The SDE's path at fixed times from an initial state (one Brownian sample per call)."""

    def __init__(self, method: str, sde_type: str = "ito", adjoint: bool = False) -> None:
        super().__init__()
        self.sde = DiagonalSDE(sde_type=sde_type)
        self.method = method
        self.adjoint = adjoint
        self.register_buffer("ts", torch.linspace(0, 1, 5))

    def forward(self, y0: torch.Tensor) -> torch.Tensor:
        solve = torchsde.sdeint_adjoint if self.adjoint else torchsde.sdeint
        return solve(self.sde, y0, self.ts, method=self.method, dt=0.1)
