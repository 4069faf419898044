"""nflows' normalizing flows as their users compose, train and sample them."""

from __future__ import annotations

import importlib.util
import sys
import types

import torch
from torch import nn


def _stub_matplotlib() -> None:
    """nflows' MADE module imports ``matplotlib.pyplot`` (for a plotting helper no flow calls):
    where matplotlib is not installed, an empty module stands in for it."""
    if importlib.util.find_spec("matplotlib") is None:
        mpl = types.ModuleType("matplotlib")
        mpl.pyplot = types.ModuleType("matplotlib.pyplot")  # type: ignore[attr-defined]
        sys.modules["matplotlib"] = mpl
        sys.modules["matplotlib.pyplot"] = mpl.pyplot  # type: ignore[attr-defined]


_stub_matplotlib()

from nflows import distributions, flows, transforms  # noqa: E402
from nflows.nn import nets  # noqa: E402


class FlowDensity(nn.Module):
    """The log-density of data under a flow (eval), and the negative mean log-likelihood (training)."""

    def __init__(self, flow: flows.Flow) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.flow.log_prob(inputs=x)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return -self.flow.log_prob(inputs=x).mean()


class ConditionalFlowDensity(nn.Module):
    """The same for a flow conditioned on a context."""

    def __init__(self, flow: flows.Flow) -> None:
        super().__init__()
        self.flow = flow

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return self.flow.log_prob(inputs=x, context=context)

    def loss(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return -self.flow.log_prob(inputs=x, context=context).mean()


class FlowSampler(nn.Module):
    """As many samples as the data batch has rows, drawn through the flow's inverse (with their
    log-density when ``with_log_prob``) in eval; the data's negative mean log-likelihood in training."""

    def __init__(self, flow: flows.Flow, with_log_prob: bool = True) -> None:
        super().__init__()
        self.flow = flow
        self.with_log_prob = with_log_prob

    def forward(self, x: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        if self.with_log_prob:
            return self.flow.sample_and_log_prob(x.shape[0])
        return self.flow.sample(x.shape[0])

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return -self.flow.log_prob(inputs=x).mean()


class ConditionalFlowSampler(nn.Module):
    """``n`` samples per context row (eval); the conditional negative mean log-likelihood (training)."""

    def __init__(self, flow: flows.Flow, n: int = 4) -> None:
        super().__init__()
        self.flow = flow
        self.n = n

    def forward(self, context: torch.Tensor) -> torch.Tensor:
        return self.flow.sample(self.n, context=context)

    def loss(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        return -self.flow.log_prob(inputs=x, context=context).mean()


class ConditionerMLP(nets.MLP):
    """nflows' MLP as a coupling conditioner: couplings call their net with a context too, which
    an unconditional MLP ignores."""

    def forward(self, inputs: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        return super().forward(inputs)


def _checkerboard(features: int, flip: bool) -> torch.Tensor:
    mask = torch.ones(features)
    mask[::2] = -1
    return -mask if flip else mask


def maf(features: int = 3, layers: int = 3, hidden: int = 16) -> flows.Flow:
    """A masked autoregressive flow, reversing the order of the features between layers (the
    README's example)."""
    steps: list[transforms.Transform] = []
    for _ in range(layers):
        steps.append(transforms.ReversePermutation(features=features))
        steps.append(transforms.MaskedAffineAutoregressiveTransform(features=features, hidden_features=hidden))
    return flows.Flow(transforms.CompositeTransform(steps), distributions.StandardNormal(shape=[features]))


def maf_batchnorm(features: int = 4, layers: int = 3, hidden: int = 16) -> flows.Flow:
    """nflows' own MAF class: random permutations, residual MADEs, batch norm between layers."""
    return flows.MaskedAutoregressiveFlow(
        features=features,
        hidden_features=hidden,
        num_layers=layers,
        num_blocks_per_layer=2,
        use_random_permutations=True,
        batch_norm_between_layers=True,
    )


def real_nvp(features: int = 4, layers: int = 4, hidden: int = 16) -> flows.Flow:
    """RealNVP: affine couplings on alternating checkerboard masks with residual conditioners,
    activation normalization after each."""

    def create_net(in_features: int, out_features: int) -> nn.Module:
        return nets.ResidualNet(in_features, out_features, hidden_features=hidden, num_blocks=2)

    steps: list[transforms.Transform] = []
    for i in range(layers):
        steps.append(transforms.AffineCouplingTransform(_checkerboard(features, i % 2 == 1), create_net))
        steps.append(transforms.ActNorm(features))
    return flows.Flow(transforms.CompositeTransform(steps), distributions.StandardNormal([features]))


def real_nvp_mlp(features: int = 4, layers: int = 3, hidden: int = 16) -> flows.Flow:
    """Affine couplings with MLP conditioners, mixed by LU-parametrized linear maps."""

    def create_net(in_features: int, out_features: int) -> nn.Module:
        return ConditionerMLP([in_features], [out_features], hidden_sizes=[hidden, hidden])

    steps: list[transforms.Transform] = []
    for i in range(layers):
        steps.append(transforms.AffineCouplingTransform(_checkerboard(features, i % 2 == 1), create_net))
        steps.append(transforms.LULinear(features, identity_init=True))
    return flows.Flow(transforms.CompositeTransform(steps), distributions.StandardNormal([features]))


def nsf_autoregressive(features: int = 3, layers: int = 2, hidden: int = 16, bins: int = 6) -> flows.Flow:
    """Autoregressive neural spline flow: rational-quadratic splines with linear tails, randomly
    permuted between layers."""
    steps: list[transforms.Transform] = []
    for _ in range(layers):
        steps.append(
            transforms.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(
                features=features,
                hidden_features=hidden,
                num_bins=bins,
                tails="linear",
                tail_bound=3.0,
                num_blocks=2,
            )
        )
        steps.append(transforms.RandomPermutation(features=features))
    return flows.Flow(transforms.CompositeTransform(steps), distributions.StandardNormal([features]))


def nsf_coupling(
    features: int = 4, layers: int = 2, hidden: int = 16, bins: int = 6, context: int | None = None
) -> flows.Flow:
    """Coupling neural spline flow (LU linear, then a rational-quadratic coupling, per layer),
    optionally conditioned on a context through its residual conditioners and an embedding net."""

    def create_net(in_features: int, out_features: int) -> nn.Module:
        return nets.ResidualNet(
            in_features, out_features, hidden_features=hidden, context_features=context, num_blocks=2
        )

    steps: list[transforms.Transform] = []
    for i in range(layers):
        steps.append(transforms.LULinear(features, identity_init=True))
        steps.append(
            transforms.PiecewiseRationalQuadraticCouplingTransform(
                mask=_checkerboard(features, i % 2 == 1),
                transform_net_create_fn=create_net,
                num_bins=bins,
                tails="linear",
                tail_bound=3.0,
            )
        )
    embedding = None if context is None else nn.Sequential(nn.Linear(context, context), nn.Tanh())
    return flows.Flow(transforms.CompositeTransform(steps), distributions.StandardNormal([features]), embedding)


def conditional_maf(features: int = 2, context: int = 3, layers: int = 3, hidden: int = 16) -> flows.Flow:
    """A conditional MAF over a context-dependent diagonal Gaussian base (the conditional-moons
    example)."""
    base = distributions.ConditionalDiagonalNormal(shape=[features], context_encoder=nn.Linear(context, 2 * features))
    steps: list[transforms.Transform] = []
    for _ in range(layers):
        steps.append(transforms.ReversePermutation(features=features))
        steps.append(
            transforms.MaskedAffineAutoregressiveTransform(
                features=features, hidden_features=hidden, context_features=context
            )
        )
    return flows.Flow(transforms.CompositeTransform(steps), base)
