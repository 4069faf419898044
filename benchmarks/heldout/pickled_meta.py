# dynamo: target=Meta inputs=f32[4,8]
import pickle

import torch
from torch import nn


class Meta(nn.Module):
    def forward(self, x):
        blob = pickle.dumps({"rows": 4})
        return x * (len(blob) > 0)
