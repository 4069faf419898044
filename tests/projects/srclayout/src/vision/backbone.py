import torch.nn as nn

import vision.layers.ops as ops
from vision.layers.conv import Block


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(8)

    def forward(self, x):
        x = self.block(x)
        n = ops.count_positive(x)
        if n > 3:  # graph break
            x = ops.clamp_to_peak(x)
        m = ops.peak(x)
        return x * m
