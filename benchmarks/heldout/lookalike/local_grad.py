# dynamo: target=Probe inputs=f32[4,8]
import importlib.util
import random

import torch
from torch import nn


class Probe(nn.Module):
    def forward(self, x):
        y = x.detach().clone()
        if x.requires_grad:
            y = y * 1.0
        jitter = random.uniform(0.9, 1.1)
        if importlib.util.find_spec("numpy") is not None:
            y = y + 1
        return y * jitter
