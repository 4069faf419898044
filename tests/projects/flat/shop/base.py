import torch.nn as nn


class Base(nn.Module):
    def normalize(self, x):
        if x.sum() > 0:  # graph break
            return x / x.sum()
        return x

    @property
    def width(self):
        return 8

    def describe(self):
        # not reached from forward
        return float(self.lin.weight.sum())
