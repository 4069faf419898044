"""Sorting and comparing tensors as Python objects, and iterating over containers of them."""

import torch
from torch import nn


class SortedTensors(nn.Module):
    def forward(self, x):
        parts = sorted([x[0].sum(), x[1].sum(), x[2].sum()])
        return torch.stack(parts)


class MaxOfTwoTensors(nn.Module):
    def forward(self, x):
        best = max(x[0].sum(), x[1].sum())
        return x * best


class MinOverList(nn.Module):
    def forward(self, x):
        return x - min([row.mean() for row in x[:3]])


class ListSortTensors(nn.Module):
    def forward(self, x):
        parts = [x[2].sum(), x[0].sum()]
        parts.sort()
        return parts[0] + x


class SetOfTensors(nn.Module):
    def forward(self, x):
        seen = {x[0], x[1]}
        return x + len(seen)


class SortedWithKey(nn.Module):
    def forward(self, x):
        parts = sorted([x[:, :4], x[:, :8]], key=lambda t: t.shape[1])
        return parts[0].sum() + parts[1].sum()


class SortedInts(nn.Module):
    def forward(self, x):
        sizes = sorted([x.shape[1], x.shape[0]])
        return x.reshape(sizes[0], sizes[1])


class TorchSort(nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=-1).values


class ZipUnpack(nn.Module):
    def forward(self, x):
        out = []
        for a, b in zip(x[:4], x[4:]):
            out.append(a * b)
        return torch.stack(out)


class DictItems(nn.Module):
    def forward(self, x):
        parts = {"a": x, "b": x * 2}
        total = 0
        for _, v in parts.items():
            total = total + v
        return total


class EnumerateRows(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i, row in enumerate(x):
            acc = acc + row * i
        return acc


class ListAppendLoop(nn.Module):
    def forward(self, x):
        outs = []
        for i in range(x.shape[0]):
            outs.append(x[i] * 2)
        return torch.stack(outs)


class IterNext(nn.Module):
    def forward(self, x):
        it = iter(x)
        first = next(it)
        return first + next(it)


class ElementLoop(nn.Module):
    def forward(self, x):
        total = x.new_zeros(())
        for i in range(x.shape[0]):
            total = total + x[i, 0]
        return total
