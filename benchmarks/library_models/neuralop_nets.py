"""neuraloperator (``neuralop``) where its examples put it: a neural operator (FNO, TFNO, UNO,
GINO, FNOGNO, UQNO) mapping input functions on a grid or a point cloud to output
functions, trained in the user's loop on the library's losses (relative Lp and H1 norms,
Burgers' equation residual and initial condition for physics-informed training weighed by its
ReLoBRaLo aggregator, the pointwise quantile loss of uncertainty quantification).
``forward`` returns the predicted function (what inference reads), ``loss`` the training
loss."""

from __future__ import annotations

from typing import Any

import torch
from neuralop.losses import BurgersEqnLoss, ICLoss, LpLoss, Relobralo
from neuralop.losses.data_losses import PointwiseQuantileLoss
from torch import nn


class OperatorLearner(nn.Module):
    """An operator on gridded inputs, ``model(x)``, scored by ``criterion(pred, y)`` as a
    user's training loop does."""

    def __init__(self, model: nn.Module, criterion: Any) -> None:
        super().__init__()
        self.model = model
        self.criterion = criterion

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.criterion(self.model(x), y)


class BurgersPINO(nn.Module):
    """Physics-informed training on Burgers' equation, as the library's Burgers example does:
    the space-time solution ``(B, 1, nt, nx)`` from the initial condition, scored by the
    relative L2 data loss, the equation residual (finite differences) and the initial
    condition, the three weighed by ReLoBRaLo (its first step sums them; later ones
    rebalance)."""

    def __init__(self, model: nn.Module, visc: float = 0.01) -> None:
        super().__init__()
        self.model = model
        self.data_loss = LpLoss(d=2, p=2)
        self.equation_loss = BurgersEqnLoss(visc=visc, method="fdm")
        self.ic_loss = ICLoss()
        self.aggregator = Relobralo(params=model.parameters(), num_losses=3)
        self.step = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = self.model(x)
        losses = {
            "data": self.data_loss(out, y),
            "equation": self.equation_loss(out),
            "ic": self.ic_loss(out, x),
        }
        total = self.aggregator(losses, self.step)
        self.step += 1
        return total


class PointCloudOperator(nn.Module):
    """GINO on an irregular point cloud: the input geometry and its features, a latent grid of
    queries, output query points; relative L2 against the values at the queries."""

    def __init__(self, model: nn.Module, latent_queries: torch.Tensor) -> None:
        super().__init__()
        self.model = model
        self.register_buffer("latent_queries", latent_queries)
        self.criterion = LpLoss(d=1, p=2)

    def forward(self, input_geom: torch.Tensor, output_queries: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.model(input_geom=input_geom, latent_queries=self.latent_queries, output_queries=output_queries, x=x)

    def loss(
        self, input_geom: torch.Tensor, output_queries: torch.Tensor, x: torch.Tensor, y: torch.Tensor
    ) -> torch.Tensor:
        return self.criterion(self(input_geom, output_queries, x), y)


class GridToPoints(nn.Module):
    """FNOGNO: features on a regular grid of input points to values at arbitrary output
    points (a car surface's pressure in the library's example); mean-squared error."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, in_p: torch.Tensor, out_p: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        return self.model(in_p, out_p, f)

    def loss(self, in_p: torch.Tensor, out_p: torch.Tensor, f: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(self(in_p, out_p, f), y)


class UncertaintyOperator(nn.Module):
    """UQNO around a trained operator: its forward gives the frozen base model's solution and
    the residual model's uncertainty ball; the residual model is trained on the pointwise
    quantile loss of the base model's errors."""

    def __init__(self, uqno: nn.Module, alpha: float = 0.9) -> None:
        super().__init__()
        self.uqno = uqno
        self.criterion = PointwiseQuantileLoss(alpha=alpha)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.uqno(x)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        solution, quantile = self.uqno(x)
        return self.criterion(quantile, y - solution)
