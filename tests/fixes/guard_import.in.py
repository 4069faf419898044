"""A module that never imports torch itself: the guard adds the import."""
from torch import nn


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        y = self.fc(x)
        print("logits", y)
        return y


def build():
    return Head()


def example_inputs():
    import torch

    return [(torch.randn(3, 4),)]
