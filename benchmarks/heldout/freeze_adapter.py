# dynamo: target=Adapter inputs=f32[4,8]
import torch
from torch import nn


class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(8, 8)
        self.delta = nn.Linear(8, 8)

    def forward(self, x):
        self.base.weight.requires_grad = False
        return self.base(x) + self.delta(x)
