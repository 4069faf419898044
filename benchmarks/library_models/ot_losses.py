"""geomloss where its users put it: a loss between point clouds (``SamplesLoss``: Sinkhorn
divergences, debiased or not, balanced or unbalanced, with the library's costs or the user's;
the energy, Gaussian and Laplacian kernel norms) between what a small network makes and a
fixed target cloud kept as a buffer; the dual potentials of the transport; and the newer
``geomloss.ot.solve_sample`` solver. The tensorized backend only (pykeops is not installed):
the sinkhorn loop over a dense cost matrix."""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.nn.functional as F
from geomloss import SamplesLoss
from geomloss import ot as geomloss_ot
from torch import nn


class PointCloudFit(nn.Module):
    """A small MLP that moves each input point (``x + mlp(x)``) and the ``SamplesLoss(**loss)``
    between the moved cloud and a fixed target cloud (a buffer), uniform weights or given ones
    (``weighted``: the four-argument call, the points' weights a softmax of a learned score).
    Unbatched ``(N, D)`` clouds, or ``(B, N, D)`` batches with ``batch``. Returns the loss: the
    distance a validation loop reads (eval), the loss to train."""

    def __init__(self, dim: int = 3, n_target: int = 40, batch: int = 0, weighted: bool = False, **loss: Any) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, dim))
        self.score = nn.Linear(dim, 1) if weighted else None
        self.loss = SamplesLoss(**loss)
        shape = (batch, n_target, dim) if batch else (n_target, dim)
        self.register_buffer("target", torch.randn(shape) * 0.5 + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        moved = x + self.mlp(x)
        if self.score is None:
            value = self.loss(moved, self.target)
        else:
            alpha = F.softmax(self.score(x).squeeze(-1), dim=-1)
            beta = torch.full(self.target.shape[:-1], 1.0 / self.target.shape[-2])
            value = self.loss(alpha, moved, beta, self.target)
        return value.mean()


class MMDGenerator(nn.Module):
    """A generator trained with a kernel norm (maximum mean discrepancy): noise through an MLP
    to samples, and ``SamplesLoss(kernel, blur)`` between them and a target sample (a buffer)."""

    def __init__(self, kernel: str, blur: float = 0.5, noise: int = 4, dim: int = 2, n_target: int = 48) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(noise, 32), nn.Tanh(), nn.Linear(32, dim))
        self.loss = SamplesLoss(kernel, blur=blur, backend="tensorized")
        self.register_buffer("target", torch.randn(n_target, dim) + torch.tensor([1.0, -1.0]))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.loss(self.net(z), self.target)


def cosine_cost(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The user's cost for ``SamplesLoss(cost=...)``: ``1 - cos(x_i, y_j)``, (B, N, M)."""
    return 1 - F.normalize(x, dim=-1) @ F.normalize(y, dim=-1).transpose(1, 2)


class DomainAlignment(nn.Module):
    """Domain adaptation by optimal transport: a shared encoder over a source and a target
    batch of features (``(B, N, D)`` groups), the Sinkhorn divergence between the encodings
    under a cosine cost added to the source classifier's cross-entropy."""

    def __init__(
        self, features: int = 8, dim: int = 6, classes: int = 3, cost: Callable[..., Any] = cosine_cost
    ) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, dim))
        self.head = nn.Linear(dim, classes)
        self.align = SamplesLoss("sinkhorn", blur=0.1, scaling=0.7, diameter=2.0, cost=cost, backend="tensorized")

    def forward(self, source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.align(self.encoder(source), self.encoder(target))

    def loss(self, source: torch.Tensor, target: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        zs, zt = self.encoder(source), self.encoder(target)
        task = F.cross_entropy(self.head(zs).flatten(0, 1), labels.flatten())
        return task + 0.1 * self.align(zs, zt).mean()


class TransportPotentials(nn.Module):
    """The dual potentials of the transport between an embedded cloud and a target cloud
    (``SamplesLoss(..., potentials=True)``), and the transport cost they give,
    ``<alpha, F> + <beta, G>``."""

    def __init__(self, dim: int = 3, n_target: int = 40, **loss: Any) -> None:
        super().__init__()
        self.embed = nn.Linear(dim, dim)
        self.loss = SamplesLoss("sinkhorn", potentials=True, **loss)
        self.register_buffer("target", torch.rand(n_target, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.embed(x)
        f, g = self.loss(z, self.target)
        alpha = torch.full((z.shape[0],), 1.0 / z.shape[0])
        beta = torch.full((self.target.shape[0],), 1.0 / self.target.shape[0])
        return (alpha * f.view(-1)).sum() + (beta * g.view(-1)).sum()


class SolveSampleFit(nn.Module):
    """``geomloss.ot.solve_sample`` (the newer solver) between moved points and a target
    cloud: the debiased transport value (the result's ``value``)."""

    def __init__(self, dim: int = 3, n_target: int = 40, blur: float = 0.1, max_iter: int = 10) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.blur = blur
        self.max_iter = max_iter
        self.register_buffer("target", torch.randn(n_target, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        result = geomloss_ot.solve_sample(
            x + self.mlp(x), self.target, blur=self.blur, debias=True, max_iter=self.max_iter
        )
        return result.value
