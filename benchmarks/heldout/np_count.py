# dynamo: target=Count inputs=f32[4,8]
import numpy as np
import torch
from torch import nn


class Count(nn.Module):
    def forward(self, x):
        n = np.count_nonzero(x.detach().numpy() > 0)
        return x.flatten()[:n]
