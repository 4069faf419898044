# dynamo: target=Gate inputs=f32[4,8]
import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x):
        score = x.mean()
        if score > 0:
            return x * 2
        return x
