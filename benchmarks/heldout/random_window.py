# dynamo: target=Window inputs=f32[4,16]
import random

import torch
from torch import nn


def pick_width(low, high):
    return random.randint(low, high)


class Window(nn.Module):
    def forward(self, x):
        width = pick_width(4, 12)
        return x[:, :width].sum(-1)
