"""peft where its users put it on models of their own: a plain torch MLP and a small CNN whose
layers get adapters (``get_peft_model(model, LoraConfig(target_modules=[...]))``), the adapted
model called as the original was. ``Classifier`` is the user's module around it: ``forward``
returns the logits (inference), ``loss`` the cross-entropy training minimizes."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    """A tabular classifier: three linear layers and a head."""

    def __init__(self, features: int = 16, hidden: int = 32, classes: int = 4) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, hidden)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = self.drop(F.relu(self.fc2(x)))
        x = F.relu(self.fc3(x))
        return self.head(x)


class ConvNet(nn.Module):
    """A small image classifier: two convolution blocks, pooled, a linear head."""

    def __init__(self, classes: int = 4) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 32)
        self.head = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.bn(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(F.relu(self.fc(x)))


class Classifier(nn.Module):
    """The adapted model's logits; cross-entropy of them to train."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.model(x), y)
