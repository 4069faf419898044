# dynamo: target=Snapshot inputs=f32[4,8]
import copy

import torch
from torch import nn


class Snapshot(nn.Module):
    def forward(self, x):
        state = {"h": x * 2, "c": x + 1}
        saved = copy.deepcopy(state)
        return saved["h"] + saved["c"]
