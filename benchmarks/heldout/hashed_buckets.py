# dynamo: target=Buckets inputs=f32[4,8]
import hashlib

import torch
from torch import nn


class Buckets(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(16, 8)

    def forward(self, x):
        salt = int(hashlib.sha1(b"v2").hexdigest()[:4], 16) % 16
        return x + self.table.weight[salt]
