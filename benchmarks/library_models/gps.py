"""Gaussian process models, their predictions and their losses as gpytorch's users write them."""

from __future__ import annotations

import gpytorch
import torch
from torch import nn


def make_kernel(kind: str) -> gpytorch.kernels.Kernel:
    if kind == "spectral_mixture":
        return gpytorch.kernels.SpectralMixtureKernel(num_mixtures=2)
    base = {
        "rbf": gpytorch.kernels.RBFKernel,
        "matern": lambda: gpytorch.kernels.MaternKernel(nu=2.5),
        "periodic": gpytorch.kernels.PeriodicKernel,
        "rq": gpytorch.kernels.RQKernel,
        "linear_plus_rbf": lambda: gpytorch.kernels.LinearKernel() + gpytorch.kernels.RBFKernel(),
    }[kind]()
    return gpytorch.kernels.ScaleKernel(base)


class ExactModel(gpytorch.models.ExactGP):
    def __init__(self, train_x: torch.Tensor, train_y: torch.Tensor, likelihood, kernel: str) -> None:
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = make_kernel(kernel)

    def forward(self, x: torch.Tensor) -> gpytorch.distributions.MultivariateNormal:
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class ApproximateModel(gpytorch.models.ApproximateGP):
    def __init__(self, inducing: torch.Tensor) -> None:
        dist = gpytorch.variational.CholeskyVariationalDistribution(inducing.shape[0])
        strategy = gpytorch.variational.VariationalStrategy(self, inducing, dist, learn_inducing_locations=True)
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x: torch.Tensor) -> gpytorch.distributions.MultivariateNormal:
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class MultitaskModel(gpytorch.models.ExactGP):
    def __init__(self, train_x: torch.Tensor, train_y: torch.Tensor, likelihood, tasks: int) -> None:
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.MultitaskMean(gpytorch.means.ConstantMean(), num_tasks=tasks)
        self.covar_module = gpytorch.kernels.MultitaskKernel(gpytorch.kernels.RBFKernel(), num_tasks=tasks, rank=1)

    def forward(self, x: torch.Tensor) -> gpytorch.distributions.MultitaskMultivariateNormal:
        return gpytorch.distributions.MultitaskMultivariateNormal(self.mean_module(x), self.covar_module(x))


class Predict(nn.Module):
    """The posterior predictive mean and variance at test points."""

    def __init__(self, gp: gpytorch.models.GP, likelihood: gpytorch.likelihoods.Likelihood) -> None:
        super().__init__()
        self.gp = gp
        self.likelihood = likelihood

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.likelihood(self.gp(x))
        return out.mean, out.variance


class NegativeObjective(nn.Module):
    """The training loss: minus the marginal log likelihood (or the ELBO)."""

    def __init__(self, gp: gpytorch.models.GP, objective: gpytorch.mlls.MarginalLogLikelihood) -> None:
        super().__init__()
        self.gp = gp
        self.objective = objective

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -self.objective(self.gp(x), y)
