"""pytorch-tabnet's networks as its ``TabModel`` trainers drive them: the network's output
with its sparsity regularizer in the loss, self-supervised pretraining with its
reconstruction loss, and the attention masks that explain a prediction.

(The trainers themselves, ``TabNetClassifier`` and friends, run numpy loops around the
network; what runs per batch is the network and the loss below.)"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from pytorch_tabnet import tab_network
from pytorch_tabnet.metrics import UnsupervisedLoss
from torch import nn


def group_matrix(groups: list[list[int]], input_dim: int) -> torch.Tensor:
    """The (groups, features) attention matrix ``TabModel`` builds from ``grouped_features``:
    each listed group shares one attention weight, every other feature is a group of its own."""
    grouped = {i for g in groups for i in g}
    rows = [[1.0 / len(g) if i in g else 0.0 for i in range(input_dim)] for g in groups]
    rows += [[1.0 if i == j else 0.0 for i in range(input_dim)] for j in range(input_dim) if j not in grouped]
    return torch.tensor(rows)


class TabNetModel(nn.Module):
    """A TabNet with the trainer's loss: the task loss minus ``lambda_sparse`` times the
    masks' entropy term the network returns (cross-entropy per task, or mean squared error)."""

    def __init__(
        self,
        input_dim: int = 8,
        output_dim: int | list[int] = 3,
        regression: bool = False,
        lambda_sparse: float = 1e-3,
        groups: list[list[int]] | None = None,
        **config: object,
    ) -> None:
        super().__init__()
        self.network = tab_network.TabNet(
            input_dim,
            output_dim,
            group_attention_matrix=group_matrix(groups or [], input_dim),
            **config,  # type: ignore[arg-type]
        )
        self.regression = regression
        self.lambda_sparse = lambda_sparse

    def forward(self, x: torch.Tensor) -> torch.Tensor | list[torch.Tensor]:
        out, _ = self.network(x)
        if isinstance(out, list):
            return [torch.softmax(o, dim=-1) for o in out]
        return out if self.regression else torch.softmax(out, dim=-1)

    def explain(self, x: torch.Tensor) -> tuple[torch.Tensor, dict[int, torch.Tensor]]:
        """Feature importances and each step's mask (``TabModel.explain``)."""
        return self.network.forward_masks(x)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out, m_loss = self.network(x)
        if isinstance(out, list):
            task = sum(F.cross_entropy(o, y[:, i]) for i, o in enumerate(out)) / len(out)
        elif self.regression:
            task = F.mse_loss(out, y)
        else:
            task = F.cross_entropy(out, y)
        return task - self.lambda_sparse * m_loss


class TabNetPretrainer(nn.Module):
    """Self-supervised pretraining: reconstruct randomly obfuscated features (training); the
    reconstruction of the whole input (eval)."""

    def __init__(self, input_dim: int = 8, **config: object) -> None:
        super().__init__()
        self.network = tab_network.TabNetPretraining(
            input_dim,
            group_attention_matrix=torch.eye(input_dim),
            **config,  # type: ignore[arg-type]
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.network(x)[0]

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        reconstruction, embedded_x, obfuscated = self.network(x)
        return UnsupervisedLoss(reconstruction, embedded_x, obfuscated)
