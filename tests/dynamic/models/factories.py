"""A factory whose target names hold ", " (``factories.py:build(scale=2.0, shift=1.0)``)."""
import torch


class Scaled(torch.nn.Module):
    def __init__(self, scale: float, shift: float) -> None:
        super().__init__()
        self.scale = scale
        self.shift = shift

    def forward(self, x):
        y = x * self.scale
        print("scaled")  # a graph break, whatever the arguments
        return y + self.shift


def build(scale=1.0, shift=0.0):
    return Scaled(scale, shift)
