# dynamo: target=Bins inputs=f32[4,8]
import numpy as np
import torch
from torch import nn


class Bins(nn.Module):
    def forward(self, x):
        edges = np.linspace(-1.0, 1.0, 5)
        idx = np.digitize(x.detach().numpy(), edges)
        return torch.from_numpy(idx).float()
