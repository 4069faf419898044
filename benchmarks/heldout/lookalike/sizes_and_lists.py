# dynamo: target=Pack inputs=f32[4,8]
import math

import numpy as np
import torch
from torch import nn


class Pack(nn.Module):
    def forward(self, x):
        dims = sorted(x.shape)
        biggest = max(x.shape[0], x.shape[1])
        scale = math.sqrt(x.shape[-1])
        root = float(np.sqrt(2.0))
        parts = list(x.unbind(0))
        total = max(parts[0].sum(), parts[1].sum())
        idx = torch.arange(x.shape[0] - 1)
        picked = x[idx]
        pad = torch.zeros(biggest, dims[0])
        return picked.sum() / scale * root + total + pad.sum()
