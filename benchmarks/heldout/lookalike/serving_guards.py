# dynamo: target=Server inputs=f32[4,8]
import contextlib
import random

import numpy as np
import torch
from torch import nn


class Server(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.max_batch = 16

    def forward(self, x, temperature=None):
        with contextlib.nullcontext():
            h = self.lin(x)
        if temperature is not None:
            h = h / temperature
        if x.shape[0] > self.max_batch:
            h = h[: self.max_batch]
        crop = random.randint(1, 3)
        scale = float(np.log(2.0))
        width = x.size(-1)
        pos = torch.arange(width, device=x.device, dtype=x.dtype)
        order = sorted(range(len(self.lin.weight.shape)))
        return h * crop * scale + pos[order[0]]
