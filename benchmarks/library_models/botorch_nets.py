"""botorch where its users put it: a surrogate model fitted to a few observations of a black-box
function (``SingleTaskGP`` with input normalization and outcome standardization, a multi-task
GP, a GP over mixed continuous and categorical inputs, a list of GPs for two objectives), and an
acquisition function evaluated on a batch of candidate sets, the inner call of
``optimize_acqf``: analytic and Monte Carlo log expected improvement, upper confidence bound,
noisy expected improvement, knowledge gradient, expected hypervolume improvement. The training
step is the GP's fit, the negative marginal log likelihood ``fit_gpytorch_mll`` minimizes."""

from __future__ import annotations

from typing import Any

import torch
from botorch.models import MixedSingleTaskGP, ModelListGP, MultiTaskGP, SingleTaskGP
from botorch.models.transforms import Normalize, Standardize
from gpytorch.mlls import ExactMarginalLogLikelihood, SumMarginalLogLikelihood
from torch import nn

DTYPE = torch.float64


def observations(n: int = 12, d: int = 3, outputs: int = 1, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` points in the unit cube and a smooth function's (noisy) values there."""
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, d, generator=g, dtype=DTYPE)
    ys = [torch.sin(3 * x).sum(-1), torch.cos(2 * x).prod(-1)][:outputs]
    y = torch.stack(ys, -1) + 0.01 * torch.randn(n, outputs, generator=g, dtype=DTYPE)
    return x, y


def single_task(outputs: int = 1, d: int = 3) -> SingleTaskGP:
    x, y = observations(d=d, outputs=outputs)
    return SingleTaskGP(x, y, input_transform=Normalize(d), outcome_transform=Standardize(outputs))


def multi_task() -> MultiTaskGP:
    x, y = observations()
    task = (torch.arange(x.shape[0]) % 2).to(DTYPE).unsqueeze(-1)
    return MultiTaskGP(torch.cat([x, task], -1), y, task_feature=-1, output_tasks=[0])


def mixed() -> MixedSingleTaskGP:
    x, y = observations()
    cat = (torch.arange(x.shape[0]) % 3).to(DTYPE).unsqueeze(-1)
    return MixedSingleTaskGP(torch.cat([x, cat], -1), y, cat_dims=[3])


def model_list() -> ModelListGP:
    x, y = observations(outputs=2)
    return ModelListGP(*(SingleTaskGP(x, y[:, i : i + 1], outcome_transform=Standardize(1)) for i in range(2)))


class NegativeMLL(nn.Module):
    """The GP's training loss: minus its marginal log likelihood on its training data (summed
    over the models of a model list), as ``fit_gpytorch_mll`` computes it each step (the inputs
    passed on to the likelihood, which a multi-task GP's reads its task indices from)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model
        if isinstance(model, ModelListGP):
            self.mll = SumMarginalLogLikelihood(model.likelihood, model)
        else:
            self.mll = ExactMarginalLogLikelihood(model.likelihood, model)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if isinstance(self.model, ModelListGP):
            outputs = self.model(*([x] * len(self.model.models)))
            return -self.mll(outputs, list(y.unbind(-1)))
        return -self.mll(self.model(x), y, x).sum()


def training_data(model: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """The inputs and (transformed) targets the GP was fitted on, as ``fit_gpytorch_mll`` reads
    them: one input tensor, the targets stacked over a model list's models (read in training
    mode: in eval, botorch keeps the inputs transformed)."""
    model.train()
    if isinstance(model, ModelListGP):
        return model.models[0].train_inputs[0], torch.stack([m.train_targets for m in model.models], -1)
    return model.train_inputs[0], model.train_targets


class PosteriorSummary(nn.Module):
    """The posterior mean and variance at test points (what a user plots or reads)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        posterior = self.model.posterior(x)
        return posterior.mean, posterior.variance


class Acquisition(nn.Module):
    """An acquisition function's values on ``(batch, q, d)`` candidate sets, and the best set:
    one step of ``optimize_acqf``'s inner loop (``gen_candidates_torch`` evaluates the
    function on a batch and keeps its best)."""

    def __init__(self, acqf: nn.Module) -> None:
        super().__init__()
        self.acqf = acqf

    def forward(self, candidates: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values = self.acqf(candidates)
        return values, candidates[values.argmax()]
