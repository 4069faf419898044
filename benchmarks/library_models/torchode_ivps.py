"""Neural ODEs solved with torchode, as its users write them: a dynamics module, a term, a
step method, a step-size controller and a solver (or its functional ``solve_ivp``)."""

from __future__ import annotations

import torch
import torchode as to
from torch import nn


class Dynamics(nn.Module):
    """dy/dt = net(y), or net([y, c]) for a per-sample condition c passed as the term's args."""

    def __init__(self, dim: int = 3, hidden: int = 16, cond: int = 0) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + cond, hidden), nn.Tanh(), nn.Linear(hidden, dim))

    def forward(self, t: torch.Tensor, y: torch.Tensor, c: torch.Tensor | None = None) -> torch.Tensor:
        return self.net(y if c is None else torch.cat([y, c], dim=-1))


_METHODS = {"dopri5": to.Dopri5, "tsit5": to.Tsit5, "heun": to.Heun, "euler": to.Euler}


class ODESolve(nn.Module):
    """The state at fixed evaluation times from an initial state (a batch of independent IVPs)."""

    def __init__(
        self,
        method: str = "dopri5",
        controller: str = "integral",
        adjoint: str = "autodiff",
        dim: int = 3,
        dt0: float | None = None,
    ) -> None:
        super().__init__()
        self.dynamics = Dynamics(dim)
        term = to.ODETerm(self.dynamics)
        step = _METHODS[method](term=term)
        if controller == "integral":
            control = to.IntegralController(atol=1e-4, rtol=1e-3, term=term)
        elif controller == "pid":
            control = to.PIDController(atol=1e-4, rtol=1e-3, pcoeff=0.2, icoeff=0.5, dcoeff=0.0, term=term)
        else:
            control = to.FixedStepController()
        if adjoint == "backsolve":
            self.solver = to.BacksolveAdjoint(term, step, control)
        elif adjoint == "joint":
            self.solver = to.JointBacksolveAdjoint(term, step, control)
        else:
            self.solver = to.AutoDiffAdjoint(step, control, max_steps=200)
        self.dt0 = dt0
        self.register_buffer("t_eval", torch.linspace(0.0, 1.0, 5))

    def forward(self, y0: torch.Tensor) -> torch.Tensor:
        t_eval = self.t_eval.repeat(y0.shape[0], 1)
        dt0 = None if self.dt0 is None else torch.full((y0.shape[0],), self.dt0)
        sol = self.solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval), dt0=dt0)
        return sol.ys


class ODEEndpoint(nn.Module):
    """Each sample integrated over its own interval [0, t_end], only the end state kept (as a
    continuous normalizing flow or an ODE block does)."""

    def __init__(self, dim: int = 3) -> None:
        super().__init__()
        self.dynamics = Dynamics(dim)
        term = to.ODETerm(self.dynamics)
        self.solver = to.AutoDiffAdjoint(to.Tsit5(term=term), to.IntegralController(atol=1e-4, rtol=1e-3, term=term))

    def forward(self, y0: torch.Tensor, t_end: torch.Tensor) -> torch.Tensor:
        problem = to.InitialValueProblem(y0=y0, t_start=torch.zeros_like(t_end), t_end=t_end)
        return self.solver.solve(problem).ys[:, -1]


class ConditionalODE(nn.Module):
    """torchode's functional ``solve_ivp``, the dynamics conditioned on a per-sample vector."""

    def __init__(self, dim: int = 3, cond: int = 2) -> None:
        super().__init__()
        self.dynamics = Dynamics(dim, cond=cond)
        self.register_buffer("t_eval", torch.linspace(0.0, 1.0, 4))

    def forward(self, y0: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        term = to.ODETerm(self.dynamics, with_args=True)
        controller = to.PIDController(atol=1e-4, rtol=1e-3, pcoeff=0.2, icoeff=0.5, dcoeff=0.0, term=term)
        return to.solve_ivp(term, y0, self.t_eval, method="tsit5", controller=controller, args=c).ys


class ODEClassifier(nn.Module):
    """An ODE block between an encoder and a linear head, trained with cross-entropy."""

    def __init__(self, features: int = 6, dim: int = 4, classes: int = 3) -> None:
        super().__init__()
        self.encode = nn.Linear(features, dim)
        self.block = ODEEndpoint(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t_end = torch.ones(x.shape[0], device=x.device)
        return self.head(self.block(self.encode(x), t_end))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(self(x), y)
