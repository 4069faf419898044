# dynamo: target=Student inputs=f32[4,8]
import copy

import torch
from torch import nn


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 8)

    def forward(self, x):
        teacher = copy.deepcopy(self.net)
        return self.net(x) - teacher(x).detach()
