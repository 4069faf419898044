# dynamo: target=Budget inputs=f32[4,8]
import time

import torch
from torch import nn


class Budget(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        t0 = time.monotonic()
        y = self.lin(x)
        self.last_ms = (time.monotonic() - t0) * 1000
        return y
