"""torchdyn's neural differential equations where their users put them: a NeuralODE between an
augmenter and a classifier head (its own solvers, adjoints and depth-variant Galerkin
layers), a continuous normalizing flow trained by likelihood, Hamiltonian and gradient
energy-based flows fitted to trajectories, a data-controlled vector field and the
multiple-shooting layer. (torchdyn 1.0.6's NeuralSDE cannot be built: it passes its
problem's constructor arguments that constructor does not take.)"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torchdyn.core import MultipleShootingLayer, NeuralODE
from torchdyn.models import CNF, GNF, HNN, hutch_trace
from torchdyn.nn import Augmenter, DataControl, DepthCat, Fourier, GalLinear, Polynomial


def field(dim: int, hidden: int = 16, out: int | None = None) -> nn.Module:
    return nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, out or dim))


class ODEClassifier(nn.Module):
    """Features -> zero-augmented state -> NeuralODE over [0, 1] -> the final state's logits."""

    def __init__(
        self,
        features: int = 2,
        classes: int = 3,
        augment: int = 2,
        vector_field: nn.Module | None = None,
        steps: int = 2,
        **node: object,
    ) -> None:
        super().__init__()
        dim = features + augment
        self.augment = Augmenter(augment_idx=1, augment_dims=augment)
        self.node = NeuralODE(vector_field or field(dim), return_t_eval=False, **node)  # type: ignore[arg-type]
        self.head = nn.Linear(dim, classes)
        self.register_buffer("t_span", torch.linspace(0, 1, steps))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.node(self.augment(x), self.t_span)[-1])

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)


def galerkin_field(dim: int, hidden: int = 8) -> nn.Module:
    """A depth-variant field: the weights of each Galerkin layer are an expansion in the depth
    ``t``, which DepthCat appends to the state at every solver call."""
    return nn.Sequential(
        DepthCat(1),
        GalLinear(dim, hidden, expfunc=Fourier(3)),
        nn.Tanh(),
        DepthCat(1),
        GalLinear(hidden, dim, expfunc=Polynomial(2)),
    )


def controlled_field(dim: int, hidden: int = 16) -> nn.Module:
    """A data-controlled field: the initial condition is concatenated to the state at every call."""
    return nn.Sequential(DataControl(), nn.Linear(2 * dim, hidden), nn.Tanh(), nn.Linear(hidden, dim))


class ContinuousFlow(nn.Module):
    """A continuous normalizing flow (FFJORD-style): the sample with a zero log-density channel
    in front, integrated from data to the base distribution; the log-likelihood is the base
    log-density of the end state plus the integrated trace."""

    def __init__(self, dim: int = 2, hutchinson: bool = True, **node: object) -> None:
        super().__init__()
        self.dim = dim
        noise = torch.distributions.MultivariateNormal(torch.zeros(dim), torch.eye(dim)) if hutchinson else None
        cnf = CNF(field(dim, 32), trace_estimator=hutch_trace if hutchinson else None, noise_dist=noise)
        self.flow = nn.Sequential(
            Augmenter(augment_idx=1, augment_dims=1),
            NeuralODE(cnf, return_t_eval=False, **node),  # type: ignore[arg-type]
        )
        self.register_buffer("t_span", torch.linspace(1, 0, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The samples' log-likelihood."""
        augmented = self.flow[0](x)
        z = self.flow[1](augmented, self.t_span)[-1]
        log_base = -0.5 * (z[:, 1:] ** 2).sum(1) - 0.5 * self.dim * math.log(2 * math.pi)
        return log_base - z[:, 0]

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return -self(x).mean()


class EnergyFlow(nn.Module):
    """A physical system's trajectory from its initial state under a learned energy: a
    Hamiltonian network (``HNN``: dq = dH/dp, dp = -dH/dq) or a gradient flow (``GNF``);
    fitted to an observed trajectory."""

    def __init__(self, kind: str = "hnn", dim: int = 2, steps: int = 5, **node: object) -> None:
        super().__init__()
        energy = nn.Sequential(nn.Linear(2 * dim, 16), nn.Softplus(), nn.Linear(16, 1))
        vf = HNN(energy) if kind == "hnn" else GNF(energy)
        self.node = NeuralODE(vf, **{"solver": "rk4", **node})  # type: ignore[arg-type]
        self.register_buffer("t_span", torch.linspace(0, 1, steps))

    def forward(self, x0: torch.Tensor) -> torch.Tensor:
        return self.node.trajectory(x0, self.t_span)

    def loss(self, x0: torch.Tensor, observed: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x0), observed)


class ShootingFit(nn.Module):
    """A trajectory by the multiple-shooting layer (the time grid's subintervals solved in
    parallel, refined by root-finding iterations), fitted to observations."""

    def __init__(self, dim: int = 2, solver: str = "zero", steps: int = 5) -> None:
        super().__init__()
        self.layer = MultipleShootingLayer(field(dim), solver=solver, maxiter=2, fine_steps=2)
        self.register_buffer("t_span", torch.linspace(0, 1, steps))

    def forward(self, x0: torch.Tensor) -> torch.Tensor:
        _, trajectory = self.layer(x0, self.t_span)
        return trajectory

    def loss(self, x0: torch.Tensor, observed: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x0), observed)
