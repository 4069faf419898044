# dynamo: target=Encoder inputs=f32[2,8]
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Config:
    hidden: int = 8
    use_bias: bool = True
    dropout: float = 0.1


class Encoder(nn.Module):
    def __init__(self, config: Config = Config()):
        super().__init__()
        self.config = config
        self.lin = nn.Linear(config.hidden, config.hidden, bias=config.use_bias)

    def forward(self, x, mask=None, output_hidden=False):
        h = self.lin(x)
        if self.training and self.config.dropout > 0:
            h = nn.functional.dropout(h, self.config.dropout)
        if mask is not None:
            h = h * mask
        if output_hidden:
            return h, x
        steps = len(h.shape)
        for _ in range(steps):
            h = h + 0
        return h
