# dynamo: target=EnergyNorm inputs=f32[4,8]
import numpy as np
import torch
from torch import nn


class EnergyNorm(nn.Module):
    def forward(self, h):
        energy = float(np.mean(h.detach().numpy() ** 2))
        return h / (energy + 1e-6)
