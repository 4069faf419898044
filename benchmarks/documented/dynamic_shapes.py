"""Operators whose output size depends on the data."""

import torch
from torch import nn


class NonzeroIndices(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        return idx.float().sum()


class BooleanMaskIndex(nn.Module):
    def forward(self, x):
        return x[x > 0].sum()


class UniqueValues(nn.Module):
    def forward(self, x):
        return torch.unique(x.round()).sum()


class MaskedSelect(nn.Module):
    def forward(self, x):
        return torch.masked_select(x, x > 0.5).mean()


class RepeatByTensor(nn.Module):
    def forward(self, x):
        counts = (x[:, 0].abs() * 3).long()
        return torch.repeat_interleave(x, counts, dim=0).sum()


class BincountLabels(nn.Module):
    def forward(self, x):
        labels = (x.abs() * 4).long().flatten()
        return torch.bincount(labels).float()


class WhereOneArgument(nn.Module):
    def forward(self, x):
        rows, cols = torch.where(x > 0)
        return rows.sum() + cols.sum()


class ArgwhereSum(nn.Module):
    def forward(self, x):
        return torch.argwhere(x < 0).sum()


class UniqueConsecutive(nn.Module):
    def forward(self, x):
        return torch.unique_consecutive(x.round().flatten()).sum()


class NonzeroMethod(nn.Module):
    def forward(self, x):
        return (x > 1).nonzero().shape[0] + x


class WhereThreeArguments(nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, torch.zeros_like(x))


class MaskedFill(nn.Module):
    def forward(self, x):
        return x.masked_fill(x < 0, 0.0)


class RepeatByInt(nn.Module):
    def forward(self, x):
        return torch.repeat_interleave(x, 2, dim=0)


class MaskMultiply(nn.Module):
    def forward(self, x):
        return (x * (x > 0)).sum()


class TopKFixed(nn.Module):
    def forward(self, x):
        return torch.topk(x, 3, dim=-1).values


class SliceFixed(nn.Module):
    def forward(self, x):
        return x[:, :4] + x[:, 4:8]


class NonzeroTupleHere(nn.Module):
    def forward(self, x):
        y = x * 2
        rows, cols = torch.nonzero(y > 0, as_tuple=True)
        return rows + cols


class BoolMaskIndexHere(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[y > 0].sum()
