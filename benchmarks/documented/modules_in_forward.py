"""Building modules and parameters inside forward."""

import torch
from torch import nn


class LinearInForward(nn.Module):
    def forward(self, x):
        layer = nn.Linear(16, 16)
        return layer(x)


class ParameterInForward(nn.Module):
    def forward(self, x):
        w = nn.Parameter(torch.ones(16))
        return x * w


class ConvInForward(nn.Module):
    def forward(self, x):
        conv = nn.Conv1d(8, 8, 3, padding=1)
        return conv(x.unsqueeze(0)).squeeze(0)


class LayerNormInForward(nn.Module):
    def forward(self, x):
        return nn.LayerNorm(16)(x)


class ReluInForward(nn.Module):
    def forward(self, x):
        return nn.ReLU()(x) * 2


class DropoutInForward(nn.Module):
    def forward(self, x):
        return nn.Dropout(0.0)(x)


class FunctionalLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 16))

    def forward(self, x):
        return torch.nn.functional.linear(x, self.w)


class SequentialBuiltInInit(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 16), nn.GELU())

    def forward(self, x):
        return self.body(x)


class RegisterBufferInForward(nn.Module):
    def forward(self, x):
        self.register_buffer("seen", x.detach().clone(), persistent=False)
        return x + self.seen
