"""normflows' normalizing flows as their users build, train and sample them."""

from __future__ import annotations

import math

import normflows as nf
import torch
from torch import nn


class FlowNLL(nn.Module):
    """The log-density of data under a flow (eval), and the forward KL divergence (training)."""

    def __init__(self, flow: nn.Module) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow.log_prob(x)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow.forward_kld(x)


class ConditionalFlowNLL(nn.Module):
    """The same for a flow conditioned on a context."""

    def __init__(self, flow: nn.Module) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return self.flow.log_prob(x, context)

    def loss(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return self.flow.forward_kld(x, context)


class FlowSampler(nn.Module):
    """Base samples pushed through the flow with their log-density (eval), and the reverse KL
    divergence to the flow's unnormalized target, on as many fresh samples (training)."""

    def __init__(self, flow: nn.Module) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, log_det = self.flow.forward_and_log_det(z)
        return x, self.flow.q0.log_prob(z) - log_det

    def loss(self, z: torch.Tensor) -> torch.Tensor:
        return self.flow.reverse_kld(z.shape[0])


def real_nvp(dim: int = 2, layers: int = 4, hidden: int = 16) -> nf.NormalizingFlow:
    """RealNVP: masked affine couplings with alternating masks."""
    mask = torch.tensor([1.0, 0.0] * (dim // 2))
    flows = []
    for i in range(layers):
        s = nf.nets.MLP([dim, hidden, dim], init_zeros=True)
        t = nf.nets.MLP([dim, hidden, dim], init_zeros=True)
        flows.append(nf.flows.MaskedAffineFlow(mask if i % 2 == 0 else 1 - mask, t, s))
        flows.append(nf.flows.ActNorm(dim))
    return nf.NormalizingFlow(nf.distributions.DiagGaussian(dim), flows)


def glow(channels: int = 4, size: int = 8, blocks: int = 2, hidden: int = 8) -> nf.NormalizingFlow:
    """Glow blocks (affine coupling, invertible 1x1 convolution, actnorm) on small images."""
    flows = [nf.flows.GlowBlock(channels, hidden, split_mode="channel", scale=True) for _ in range(blocks)]
    return nf.NormalizingFlow(nf.distributions.DiagGaussian((channels, size, size)), flows)


def spline(dim: int = 3, layers: int = 2, autoregressive: bool = False, context: int | None = None) -> nn.Module:
    """Neural spline flows: coupling or autoregressive rational-quadratic splines, mixed by
    LU-parametrized linear maps."""
    flows: list[nn.Module] = []
    for _ in range(layers):
        if autoregressive:
            flows.append(nf.flows.AutoregressiveRationalQuadraticSpline(dim, 1, 16, num_context_channels=context))
        else:
            flows.append(nf.flows.CoupledRationalQuadraticSpline(dim, 1, 16, num_context_channels=context))
        flows.append(nf.flows.LULinearPermute(dim))
    base = nf.distributions.DiagGaussian(dim, trainable=False)
    if context is not None:
        return nf.ConditionalNormalizingFlow(base, flows)
    return nf.NormalizingFlow(base, flows)


def maf(dim: int = 3, layers: int = 3) -> nf.NormalizingFlow:
    """Masked autoregressive flow with permutations between layers."""
    flows: list[nn.Module] = []
    for _ in range(layers):
        flows.append(nf.flows.MaskedAffineAutoregressive(dim, 16, num_blocks=1))
        flows.append(nf.flows.Permute(dim, mode="swap"))
    return nf.NormalizingFlow(nf.distributions.DiagGaussian(dim), flows)


def residual(dim: int = 2, layers: int = 2) -> nf.NormalizingFlow:
    """Residual flow: Lipschitz-constrained residual blocks with the stochastic log-det estimate."""
    flows: list[nn.Module] = []
    for _ in range(layers):
        net = nf.nets.LipschitzMLP([dim, 16, dim], init_zeros=True, lipschitz_const=0.9)
        flows.append(nf.flows.Residual(net, reduce_memory=True))
        flows.append(nf.flows.ActNorm(dim))
    return nf.NormalizingFlow(nf.distributions.DiagGaussian(dim, trainable=False), flows)


def circular(layers: int = 2) -> nf.NormalizingFlow:
    """A flow on a cylinder: one real and one circular coordinate, periodic splines."""
    bound = torch.tensor([4.0, math.pi])
    flows: list[nn.Module] = []
    for i in range(layers):
        flows.append(
            nf.flows.CircularAutoregressiveRationalQuadraticSpline(
                2, 1, 16, [1], tail_bound=bound, num_bins=6, permute_mask=i % 2 == 1
            )
        )
    base = nf.distributions.UniformGaussian(2, [1], torch.tensor([1.0, 2 * math.pi]))
    return nf.NormalizingFlow(base, flows)


def mixture_coupling(dim: int = 4, layers: int = 2) -> nf.NormalizingFlow:
    """Affine coupling blocks over a Gaussian-mixture base."""
    flows: list[nn.Module] = []
    for _ in range(layers):
        flows.append(nf.flows.AffineCouplingBlock(nf.nets.MLP([dim // 2, 16, dim], init_zeros=True)))
        flows.append(nf.flows.Permute(dim, mode="shuffle"))
    loc = torch.linspace(-2.0, 2.0, 3)[:, None].repeat(1, dim).tolist()
    return nf.NormalizingFlow(nf.distributions.GaussianMixture(3, dim, loc=loc), flows)


def planar_radial(layers: int = 4) -> nf.NormalizingFlow:
    """Planar and radial flows fit to the two-moons density by reverse KL."""
    flows: list[nn.Module] = []
    for _ in range(layers):
        flows.append(nf.flows.Planar((2,)))
        flows.append(nf.flows.Radial((2,)))
    return nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows, nf.distributions.target.TwoMoons())


def spline_sampler() -> nf.NormalizingFlow:
    """A coupling spline flow sampled (the splines' inverse) toward the two-moons density."""
    flows: list[nn.Module] = []
    for i in range(2):
        flows.append(nf.flows.CoupledRationalQuadraticSpline(2, 1, 16, reverse_mask=i % 2 == 1))
    return nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows, nf.distributions.target.TwoMoons())
