"""Findings no fix handles: each stays as it is, with its suggestion in words."""
import time

import torch
import torch.nn as nn


class Untouched(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, idx: torch.Tensor):
        start = time.perf_counter()  # the value is used: guarding would leave it unset
        h = self.fc(x)
        steps = int(h.sum().item())  # needs a Python number
        for _ in range(3):
            if h.sum() > 0:  # inside a loop with a break: not a simple form
                break
            h = h * 2
        if h.mean() > 0:
            h = h + 1
        elif h.mean() < -1:
            h = h - 1
        else:
            return h  # an arm that returns: not a pick between two values
        out = torch.zeros(4)
        for i in range(4):
            out[i] = x[i, idx[i]]  # stores, not a stack
        extra = nn.Linear(idx.shape[-1], 4)  # a size from an input no layer pins
        log = lambda: print(h)  # noqa: E731 - not a statement
        return extra(h) + out, steps, time.perf_counter() - start, log
