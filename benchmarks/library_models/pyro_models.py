"""Pyro's flows, distributions and networks as its users put them in a model."""

from __future__ import annotations

import pyro.distributions as dist
import pyro.distributions.transforms as T
import torch
from pyro.nn import AutoRegressiveNN, DenseNN
from torch import nn


class FlowDensity(nn.Module):
    """The log-density of a normalizing flow: a standard normal pushed through ``transforms``."""

    def __init__(self, transforms: list, dim: int) -> None:
        super().__init__()
        self.transforms = nn.ModuleList([t for t in transforms if isinstance(t, nn.Module)])
        self.steps = transforms
        self.register_buffer("loc", torch.zeros(dim))
        self.register_buffer("scale", torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        base = dist.Normal(self.loc, self.scale).to_event(1)
        flow = dist.TransformedDistribution(base, self.steps)
        return flow.log_prob(x)


class FlowSample(FlowDensity):
    """Samples drawn through the flow, with their log-density."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        base = dist.Normal(self.loc, self.scale).to_event(1)
        flow = dist.TransformedDistribution(base, self.steps)
        y = flow.rsample(x.shape[:1])
        return flow.log_prob(y) + y.sum(-1)


class Likelihood(nn.Module):
    """The negative log-likelihood of data under a learned distribution ``kind``."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.raw = nn.Parameter(torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.raw[0], self.raw[1].exp()
        if self.kind == "zip":
            d = dist.ZeroInflatedPoisson(rate=b + 1.0, gate=torch.sigmoid(a))
            return -d.log_prob(x.abs().round()).sum()
        if self.kind == "von_mises":
            d = dist.VonMises(a, b + 1.0)
            return -d.log_prob(x.clamp(-3.0, 3.0)).sum()
        if self.kind == "asym_laplace":
            d = dist.AsymmetricLaplace(a, b + 1.0, self.raw[2].exp())
            return -d.log_prob(x).sum()
        if self.kind == "mixture":
            logits = self.raw[:2]
            comps = dist.Normal(torch.stack([a, a + 1.0]), torch.stack([b + 1.0, b + 2.0]))
            d = dist.MixtureSameFamily(dist.Categorical(logits=logits), comps)
            return -d.log_prob(x).sum()
        if self.kind == "lkj":
            d = dist.LKJCholesky(3, b + 1.0)
            eye = torch.eye(3) + 0.0 * x.sum()
            return -d.log_prob(eye)
        d = dist.SoftLaplace(a, b + 1.0)
        return -d.log_prob(x).sum()


class Autoregressive(nn.Module):
    """An autoregressive network's outputs (the conditioner of IAF / MAF flows)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.net = AutoRegressiveNN(dim, [16, 16], param_dims=[1, 1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean, scale = self.net(x)
        return mean + scale


class Dense(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.net = DenseNN(dim, [16], param_dims=[dim, dim])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean, scale = self.net(x)
        return mean * scale.sigmoid()


def flow(kind: str, dim: int) -> list:
    """The transforms of a flow of ``kind`` over ``dim`` features."""
    if kind == "spline":
        return [T.spline(dim, count_bins=4)]
    if kind == "spline_coupling":
        return [T.spline_coupling(dim, count_bins=4)]
    if kind == "iaf":
        return [T.affine_autoregressive(dim, hidden_dims=[16])]
    if kind == "coupling":
        return [T.affine_coupling(dim, hidden_dims=[16])]
    if kind == "planar":
        return [T.planar(dim), T.radial(dim)]
    if kind == "sylvester":
        return [T.sylvester(dim, count_transforms=2)]
    if kind == "batchnorm":
        return [T.batchnorm(dim), T.householder(dim, count_transforms=2)]
    if kind == "nas":
        return [T.neural_autoregressive(dim, hidden_dims=[16])]
    raise ValueError(kind)
