# dynamo: target=Stack inputs=f32[4,8]
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))
        self.layerdrop = 0.5

    def forward(self, x):
        for layer in self.layers:
            drop = torch.rand([])
            if drop < self.layerdrop:
                continue
            x = layer(x)
        return x
