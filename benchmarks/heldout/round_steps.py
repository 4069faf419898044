# dynamo: target=Quant inputs=f32[4,8]
import math

import torch
from torch import nn


class Quant(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(4.0))

    def forward(self, x):
        levels = math.ceil(self.scale)
        return torch.round(x * levels) / levels
