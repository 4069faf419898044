"""ncps (Neural Circuit Policies) where its README and examples put it: a CfC or LTC network
(``ncps.torch``), fully connected or wired by ``ncps.wirings`` (``AutoNCP``, ``NCP``), over a
batch of sequences, trained on the mean-squared error of a regression target or the cross
entropy of class labels, as the README's Lightning ``SequenceLearner`` does; its Atari
behaviour-cloning example's ``ConvCfC`` (a convolutional encoder per frame, then a CfC over
the frames); a user's loop over a ``CfCCell``. ``forward`` returns the predictions (what
inference reads), ``loss`` is the training loss."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from ncps.torch import CfCCell
from torch import nn


class SequenceLearner(nn.Module):
    """The README's learner: ``self.model(x)`` returns ``(outputs, final state)``; the
    prediction is the output sequence (or the last output), scored by MSE (``regression``) or
    cross entropy. ``hx`` and ``timespans``, when given, are passed on, as irregularly
    sampled series do."""

    def __init__(self, model: nn.Module, regression: bool = True, head: nn.Module | None = None) -> None:
        super().__init__()
        self.model = model
        self.regression = regression
        self.head = head if head is not None else nn.Identity()

    def forward(self, x: torch.Tensor, hx: Any = None, timespans: torch.Tensor | None = None) -> torch.Tensor:
        y_hat, _ = self.model.forward(x, hx, timespans)
        return self.head(y_hat)

    def loss(
        self, x: torch.Tensor, y: torch.Tensor, hx: Any = None, timespans: torch.Tensor | None = None
    ) -> torch.Tensor:
        y_hat = self(x, hx, timespans)
        if self.regression:
            return F.mse_loss(y_hat.view_as(y), y)
        return F.cross_entropy(y_hat.reshape(-1, y_hat.size(-1)), y.reshape(-1))


class ConvBlock(nn.Module):
    """The Atari example's frame encoder (smaller): strided convolutions, global mean."""

    def __init__(self, channels: int = 4, width: int = 16) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, width, 5, padding=2, stride=2)
        self.norm = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width * 2, 3, padding=1, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.norm(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return x.mean((-1, -2))


class ConvCfC(nn.Module):
    """The Atari example's policy: each frame of ``(B, T, C, H, W)`` encoded, a CfC over the
    frames projecting to action logits; trained by cross entropy on the expert's actions."""

    def __init__(self, rnn: nn.Module, channels: int = 4, width: int = 16) -> None:
        super().__init__()
        self.conv_block = ConvBlock(channels, width)
        self.rnn = rnn

    def forward(self, x: torch.Tensor, hx: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        batch_size = x.size(0)
        seq_len = x.size(1)
        x = x.view(batch_size * seq_len, *x.shape[2:])
        x = self.conv_block(x)
        x = x.view(batch_size, seq_len, *x.shape[1:])
        x, hx = self.rnn(x, hx)
        return x, hx

    def loss(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        logits, _ = self(x)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), actions.reshape(-1))


class CellLoop(nn.Module):
    """A user's own unrolling of a ``CfCCell`` (the cell API), with per-step elapsed times
    and a linear readout of the final state; classification."""

    def __init__(self, inputs: int, hidden: int, classes: int, **cell: Any) -> None:
        super().__init__()
        self.hidden = hidden
        self.cell = CfCCell(inputs, hidden, **cell)
        self.readout = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor, elapsed: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(x.size(0), self.hidden)
        for t in range(x.size(1)):
            _, h = self.cell(x[:, t], h, elapsed[:, t : t + 1])
        return self.readout(h)

    def loss(self, x: torch.Tensor, elapsed: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x, elapsed), labels)
