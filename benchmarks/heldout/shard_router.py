# dynamo: target=Router inputs=f32[4,8]
import zlib

import torch
from torch import nn


class Router(nn.Module):
    def __init__(self, shards: int = 4):
        super().__init__()
        self.shards = shards
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        shard = zlib.crc32(b"router-v1") % self.shards
        return self.proj(x) * (shard + 1)
