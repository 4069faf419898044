"""Neural controlled differential equations with torchcde, as its README and examples write them."""

from __future__ import annotations

import math
from typing import Any

import torch
import torchcde
from torch import nn
from torch.nn import functional as F


def spirals(batch: int = 8, length: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    """The classification example's data: noisy spirals, time as the first channel, labelled by
    their direction (half of them clockwise)."""
    t = torch.linspace(0.0, 4 * math.pi, length)
    start = torch.rand(batch, 1) * 2 * math.pi
    x_pos = torch.cos(start + t) / (1 + 0.5 * t)
    y_pos = torch.sin(start + t) / (1 + 0.5 * t)
    y = (torch.arange(batch) % 2).float()
    x_pos[y == 1] *= -1
    x_pos += 0.01 * torch.randn_like(x_pos)
    y_pos += 0.01 * torch.randn_like(y_pos)
    return torch.stack([t.unsqueeze(0).repeat(batch, 1), x_pos, y_pos], dim=2), y


def irregular(x: torch.Tensor, drop: float = 0.3, counts: bool = True) -> torch.Tensor:
    """The irregular-data example's preprocessing: drop observations at random as NaN (the time
    channel and the first observation kept), then append each value channel's cumulative count of
    observations."""
    x = x.clone()
    dropped = torch.rand_like(x[..., 1:]) < drop
    dropped[..., 0, :] = False
    x[..., 1:][dropped] = float("nan")
    if counts:
        x = torch.cat([x, (~dropped).cumsum(dim=-2).float()], dim=-1)
    return x


class CDEFunc(nn.Module):
    """The vector field f(z): an MLP whose output is a (hidden, input) matrix."""

    def __init__(self, input_channels: int, hidden_channels: int, width: int = 32) -> None:
        super().__init__()
        self.input_channels = input_channels
        self.hidden_channels = hidden_channels
        self.linear1 = nn.Linear(hidden_channels, width)
        self.linear2 = nn.Linear(width, input_channels * hidden_channels)

    def forward(self, t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        z = self.linear1(z).relu()
        z = self.linear2(z).tanh()
        return z.view(z.size(0), self.hidden_channels, self.input_channels)


class ProdCDEFunc(CDEFunc):
    """The same field with a ``prod`` method: cdeint then asks for f(z) dX/dt directly."""

    def prod(self, t: torch.Tensor, z: torch.Tensor, dxdt: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhi,bi->bh", self(t, z), dxdt)


class NeuralCDE(nn.Module):
    """z0 from the path's first value, z integrated along the control, a linear readout of z at
    the end. ``forward(coeffs)`` returns the prediction, ``loss(coeffs, y)`` the task's loss.

    ``solver`` holds cdeint's keyword arguments (method, options, adjoint, backend...);
    ``grid_step`` takes the fixed step from the knots (the README's smallest gap), ``jumps`` tells
    an adaptive solver about the kinks of a linear interpolation."""

    def __init__(
        self,
        input_channels: int,
        hidden_channels: int = 8,
        output_channels: int = 1,
        interpolation: str = "cubic",
        task: str = "binary",
        grid_step: bool = False,
        jumps: bool = False,
        func: CDEFunc | None = None,
        **solver: Any,
    ) -> None:
        super().__init__()
        self.func = func or CDEFunc(input_channels, hidden_channels)
        self.initial = nn.Linear(input_channels, hidden_channels)
        self.readout = nn.Linear(hidden_channels, output_channels)
        self.interpolation = interpolation
        self.task = task
        self.grid_step = grid_step
        self.jumps = jumps
        self.solver = {"adjoint": False, **solver}

    def control(self, coeffs: torch.Tensor) -> torchcde.InterpolationBase:
        if self.interpolation == "cubic":
            return torchcde.CubicSpline(coeffs)
        if self.interpolation == "linear":
            return torchcde.LinearInterpolation(coeffs)
        raise ValueError("Only 'linear' and 'cubic' interpolation methods are implemented.")

    def solve(self, X: torchcde.InterpolationBase, t: torch.Tensor) -> torch.Tensor:
        kwargs = dict(self.solver)
        if self.grid_step:
            kwargs["options"] = dict(step_size=(X.grid_points[1:] - X.grid_points[:-1]).min())
        if self.jumps:
            kwargs["options"] = dict(jump_t=X.grid_points)
        z0 = self.initial(X.evaluate(X.interval[0]))
        return torchcde.cdeint(X=X, z0=z0, func=self.func, t=t, **kwargs)

    def forward(self, coeffs: torch.Tensor) -> torch.Tensor:
        X = self.control(coeffs)
        z_T = self.solve(X, X.interval)[:, 1]
        return self.readout(z_T)

    def loss(self, coeffs: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        pred = self(coeffs)
        if self.task == "binary":
            return F.binary_cross_entropy_with_logits(pred.squeeze(-1), y)
        if self.task == "classes":
            return F.cross_entropy(pred, y)
        return F.mse_loss(pred, y)


class PathCDE(NeuralCDE):
    """Sequence-to-sequence: z returned at every knot (a ``t`` grid), read out at each, regressed."""

    def forward(self, coeffs: torch.Tensor) -> torch.Tensor:
        X = self.control(coeffs)
        return self.readout(self.solve(X, X.grid_points))


class RawSeriesCDE(NeuralCDE):
    """Takes the raw (possibly irregular) series and interpolates it inside the forward pass:
    Hermite cubic coefficients, or rectilinear ones (time as channel ``rectilinear``)."""

    def __init__(self, input_channels: int, rectilinear: int | None = None, **config: Any) -> None:
        interpolation = "cubic" if rectilinear is None else "linear"
        super().__init__(input_channels, interpolation=interpolation, **config)
        self.rectilinear = rectilinear

    def coefficients(self, x: torch.Tensor) -> torch.Tensor:
        if self.rectilinear is None:
            return torchcde.hermite_cubic_coefficients_with_backward_differences(x)
        return torchcde.linear_interpolation_coeffs(x, rectilinear=self.rectilinear)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(self.coefficients(x))


class StackedCDE(nn.Module):
    """Two CDE layers: the first's hidden path, reinterpolated, controls the second (the README's
    stacking, like a two-layer RNN)."""

    def __init__(self, input_channels: int, hidden_channels: int = 8, output_channels: int = 1) -> None:
        super().__init__()
        self.lower = PathCDE(
            input_channels, hidden_channels, hidden_channels, interpolation="linear", method="rk4", grid_step=True
        )
        self.upper = NeuralCDE(hidden_channels, hidden_channels, output_channels, method="rk4", grid_step=True)

    def forward(self, coeffs: torch.Tensor) -> torch.Tensor:
        path = self.lower(coeffs)
        return self.upper(torchcde.hermite_cubic_coefficients_with_backward_differences(path))

    def loss(self, coeffs: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(self(coeffs).squeeze(-1), y)
