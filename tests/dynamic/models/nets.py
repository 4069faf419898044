"""Real models for the dynamic tests: a transformer encoder, a ResNet-style CNN, small functions."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    """torch.nn.TransformerEncoder, clean: one graph expected."""

    def __init__(self, d_model=16, layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class LeakyEncoder(Encoder):
    """The same encoder with a host sync and a data-dependent branch in forward."""

    def forward(self, x):
        h = self.encoder(x)
        scale = h.abs().max().item()
        if h.mean() > 0:
            h = h * 2
        return h / scale


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class ResNetish(nn.Module):
    def __init__(self, num_classes=10, width=8):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, padding=1)
        self.blocks = nn.Sequential(Block(width), Block(width))
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        x = x.mean(dim=(2, 3))
        return self.head(x)


class DebugResNet(ResNetish):
    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        print("features", x.shape)
        x = x.mean(dim=(2, 3))
        return self.head(x)


def build(num_classes=10):
    return ResNetish(num_classes=num_classes)


def example_inputs():
    return (torch.randn(2, 3, 8, 8),)


def softmax(x):
    return x.softmax(-1)


def looped_item(x):
    total = 0.0
    for i in range(2):
        total += x[i].sum().item()
    return x * total
