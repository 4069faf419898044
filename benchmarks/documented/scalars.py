"""Turning a tensor into a Python number or list."""

import math

import torch
from torch import nn


class ItemScale(nn.Module):
    def forward(self, x):
        s = x.abs().max().item()
        return x / s


class FloatOfTensor(nn.Module):
    def forward(self, x):
        return x * float(x.std())


class IntOfTensor(nn.Module):
    def forward(self, x):
        k = int(x.abs().sum()) % 4 + 1
        return x[:k]


class MathOfTensor(nn.Module):
    def forward(self, x):
        return x * math.exp(x.mean())


class RangeOfTensor(nn.Module):
    def forward(self, x):
        out = x
        for _ in range(int(x.abs().max()) % 3):
            out = out * 2
        return out


class ToListLoop(nn.Module):
    def forward(self, x):
        total = 0.0
        for v in x[0].tolist():
            total += v
        return x + total


class ArangeOfTensorEnd(nn.Module):
    def forward(self, x):
        n = (x.abs().sum() % 5 + 1).long()
        return torch.arange(n)


class ZerosOfTensorSize(nn.Module):
    def forward(self, x):
        n = x.abs().sum().long() % 3 + 1
        return torch.zeros(int(n))


class ItemInFString(nn.Module):
    def forward(self, x):
        label = f"{x.sum().item():.2f}"
        return x, label


class ShapeIsAnInt(nn.Module):
    def forward(self, x):
        return x / math.sqrt(x.shape[-1])


class SizeToFloat(nn.Module):
    def forward(self, x):
        return x * float(x.size(1))


class NumelInt(nn.Module):
    def forward(self, x):
        return x.sum() / int(x.numel())


class ArangeOfShape(nn.Module):
    def forward(self, x):
        return x + torch.arange(x.shape[1])


class ShapeListed(nn.Module):
    def forward(self, x):
        dims = list(x.shape)
        return x.reshape(dims[0] * dims[1])


class ClampWithTensor(nn.Module):
    def forward(self, x):
        return x.clamp(min=x.mean(), max=x.max())


class TensorAsDictKeyLookup(nn.Module):
    def forward(self, x):
        y = x * 2
        names = {0: "a", 1: "b"}
        return y + len(names[int(y.argmax() > 0)])


class ItemOfCount(nn.Module):
    def forward(self, x):
        y = x * 2
        n = (y > 0).sum()
        return y[: int(n)]
