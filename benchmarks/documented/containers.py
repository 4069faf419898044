"""Sorting and comparing tensors as Python objects, and iterating over containers of them."""

import collections
import copy
import functools
import heapq
import itertools
import operator

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


class SortedTensorsInline(nn.Module):
    def forward(self, x):
        y = x * 2
        vals = sorted([y[0].sum(), y[1].sum()])
        return y * vals[0]


class DictKeyedByTensor(nn.Module):
    def forward(self, x):
        y = x * 2
        table = {y[0, 0]: 1.0}
        return y + len(table)


class CounterOfValuesHere(nn.Module):
    def forward(self, x):
        y = x * 2
        counts = collections.Counter(y[0].round().tolist())
        return y + len(counts)


class HeapqOfTensors(nn.Module):
    def forward(self, x):
        y = x * 2
        top = heapq.nlargest(1, [y[0].sum(), y[1].sum()])
        return y * top[0]


class DeepcopyOfTensorList(nn.Module):
    def forward(self, x):
        y = x * 2
        rows = copy.deepcopy([y[0], y[1]])
        return y + rows[0]


class DefaultdictOfTensors(nn.Module):
    def forward(self, x):
        y = x * 2
        groups = collections.defaultdict(list)
        groups["a"].append(y)
        return groups["a"][0] + 1


class OrderedDictMoveToEnd(nn.Module):
    def forward(self, x):
        y = x * 2
        d = collections.OrderedDict(a=y, b=y + 1)
        d.move_to_end("a")
        return d["b"]


class DequeOfTensors(nn.Module):
    def forward(self, x):
        y = x * 2
        q = collections.deque([y[0], y[1]], maxlen=2)
        q.append(y[2])
        return q[0] + q[-1]


class PartialOfTorchOp(nn.Module):
    def forward(self, x):
        y = x * 2
        part = functools.partial(torch.add, alpha=2)
        return part(y, y)


class MaxOfTensorsWithKey(nn.Module):
    def forward(self, x):
        y = x * 2
        best = max([y[0], y[1]], key=lambda r: r.sum())
        return best + 1


class SortedWithKeyHere(nn.Module):
    def forward(self, x):
        y = x * 2
        rows = sorted([y[0], y[1]], key=lambda r: r.sum())
        return rows[0] + 1


class GeneratorSumHere(nn.Module):
    def forward(self, x):
        return sum(row * 2 for row in x)


class SetattrOnSelf(nn.Module):
    def forward(self, x):
        y = x * 2
        self.last = y
        return self.last + 1


class ItertoolsOverRowsHere(nn.Module):
    def forward(self, x):
        pairs = list(itertools.combinations(range(3), 2))
        return sum(x[i] * x[j] for i, j in pairs)


class OperatorOnTensorsInline(nn.Module):
    def forward(self, x):
        return operator.mul(x, 2) + operator.itemgetter(0)(x)


class DictComprehensionOfRows(nn.Module):
    def forward(self, x):
        d = {i: x[i] for i in range(3)}
        return d[0] + d[2]


class SortedRowsByShape(nn.Module):
    def forward(self, x):
        parts = [x[:2], x[2:]]
        parts = sorted(parts, key=lambda t: t.shape[0])
        return torch.cat(parts)


class SortedIndexByIntKey(nn.Module):
    def forward(self, x):
        sizes = [x.shape[0], 3, 5]
        order = sorted(range(3), key=lambda i: sizes[i])
        return x * order[0]


class SortedItemsByName(nn.Module):
    def forward(self, x):
        d = {"b": x * 2, "a": x + 1}
        out = [v for _, v in sorted(d.items(), key=lambda kv: kv[0])]
        return out[0] + out[1]


class ZipPairsSum(nn.Module):
    def forward(self, x):
        outs = []
        for a, b in zip(x, x * 2):
            outs.append(a + b)
        return torch.stack(outs)


class DictItemsNoneCheck(nn.Module):
    def forward(self, x):
        d = {"a": x, "b": None}
        total = x * 0
        for _, v in d.items():
            if v is not None:
                total = total + v
        return total


class SortTensorListByLen(nn.Module):
    def forward(self, x):
        seqs = [x[:3], x[:5]]
        seqs.sort(key=len)
        return seqs[0].sum() + seqs[1].sum()


class SortedByTorchNorm(nn.Module):
    def forward(self, x):
        rows = sorted(list(x.unbind(0)), key=torch.norm)
        return rows[0] * 2
