"""Neural ODE blocks as torchdiffeq's users write them."""

from __future__ import annotations

import torch
import torchdiffeq
from torch import nn


class Field(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))

    def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.net(y)


class Flow(nn.Module):
    """Integrates a learned field from 0 to 1 and returns the states at three times."""

    def __init__(self, method: str, adjoint: bool = False, options: dict | None = None) -> None:
        super().__init__()
        self.field = Field()
        self.method = method
        self.adjoint = adjoint
        self.options = options or {}
        self.register_buffer("times", torch.linspace(0.0, 1.0, 3))

    def forward(self, y0: torch.Tensor) -> torch.Tensor:
        solve = torchdiffeq.odeint_adjoint if self.adjoint else torchdiffeq.odeint
        return solve(self.field, y0, self.times, method=self.method, options=self.options, rtol=1e-3, atol=1e-4)


class Fall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.g = nn.Parameter(torch.tensor(9.8))

    def forward(self, t: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        return torch.stack([state[1], -self.g])


def height(t: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
    return state[0]


class Bounce(nn.Module):
    """Integrates a falling ball until it reaches the ground (an event)."""

    def __init__(self) -> None:
        super().__init__()
        self.fall = Fall()

    def forward(self, state: torch.Tensor) -> torch.Tensor:
        t0 = torch.zeros(())
        event_t, solution = torchdiffeq.odeint_event(
            self.fall, state, t0, event_fn=height, method="rk4", options=dict(step_size=0.05)
        )
        return event_t + solution[-1].sum()
