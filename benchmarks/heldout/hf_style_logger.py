# dynamo: target=Block inputs=f32[4,8]
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        logger.warning("running block")
        return self.lin(x)
