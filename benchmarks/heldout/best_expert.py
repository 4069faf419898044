# dynamo: target=Pick inputs=f32[4,8]
import torch
from torch import nn


class Pick(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        outs = [e(x) for e in self.experts]
        best = min(outs, key=lambda o: o.pow(2).mean())
        return best
