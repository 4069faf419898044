"""Breaks in helpers reached through a dict, so the static pass never follows them: each
break is found by dynamo alone, and is named after a rule only if that rule flags its line."""
import torch
from torch import nn


def log_it(x):
    print("stats", x.shape)  # GB0059: TL004 flags a print (TL002 declares the code too)
    return x + 1


def as_list(x):
    values = x.sum(-1).tolist()  # GB0109: TL003 (TL001 declares GB0124/GB0033 only)
    return x * len(values)


def as_int(x):
    n = int(x.sum() > 0)  # GB0124: TL002 flags int(t), not TL001
    return x + n


def same(x):
    equal = torch.equal(x, x * 1)  # GB0033: TL016 flags torch.equal (TL001 declares the code too)
    return x * equal


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.steps = {"a": log_it, "b": as_list, "c": as_int, "d": same}

    def forward(self, x):
        h = self.lin(x)
        for name in ("a", "b", "c", "d"):
            h = self.steps[name](h)
        return h
