# dynamo: target=SpecAugment inputs=f32[2,20,8]
import numpy as np
import torch
from torch import nn


class SpecAugment(nn.Module):
    def forward(self, feats):
        start = np.random.randint(0, 10)
        masked = feats.clone()
        masked[:, start : start + 4] = 0
        return masked
