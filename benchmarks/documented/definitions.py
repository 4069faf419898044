"""Defining classes, registering hooks, hashing tensors and other object-model work in forward."""

import collections
import dataclasses
import enum
import functools
import typing
import weakref

import torch
from torch import nn


class ClassInForward(nn.Module):
    def forward(self, x):
        class Box:
            def __init__(self, value):
                self.value = value

        return Box(x * 2).value


class DataclassInForward(nn.Module):
    def forward(self, x):
        @dataclasses.dataclass
        class Pair:
            a: torch.Tensor
            b: torch.Tensor

        p = Pair(x, x + 1)
        return p.a + p.b


class NamedtupleInForward(nn.Module):
    def forward(self, x):
        import collections

        Pair = collections.namedtuple("Pair", "a b")
        p = Pair(x, x * 2)
        return p.a + p.b


class HashOfTensor(nn.Module):
    def forward(self, x):
        key = hash(x)
        return x + key % 3


class IdOfTensorKept(nn.Module):
    def forward(self, x):
        key = id(x)
        cache = {key: x * 2}
        return cache[key] + (key % 2)


class TensorAsDictKey(nn.Module):
    def forward(self, x):
        table = {x: 1}
        return x * table[x]


class CustomSetattr(nn.Module):
    def __init__(self):
        super().__init__()
        object.__setattr__(self, "log", [])

    def __setattr__(self, name, value):
        if name == "last":
            print("setting", name)
        super().__setattr__(name, value)

    def forward(self, x):
        self.last = x.sum()
        return x * 2


class ClosureInForward(nn.Module):
    def forward(self, x):
        def scale(t):
            return t * x.shape[0]

        return scale(x) + 1


class LambdaInForward(nn.Module):
    def forward(self, x):
        act = lambda t: t.clamp(min=0)  # noqa: E731
        return act(x)


class DataclassFromOutside(nn.Module):
    def forward(self, x):
        p = _Pair(x, x * 3)
        return p.a - p.b


@dataclasses.dataclass
class _Pair:
    a: torch.Tensor
    b: torch.Tensor


class AttributeCache(nn.Module):
    def forward(self, x):
        self.cached = x * 2
        return self.cached + 1


class GeneratorOverRows(nn.Module):
    def forward(self, x):
        return sum(row.sum() for row in x)


class NamedtupleInForwardInline(nn.Module):
    def forward(self, x):
        y = x * 2
        Pt = collections.namedtuple("Pt", "a b")
        p = Pt(y, y + 1)
        return p.a + p.b


class TypeCallInForwardHere(nn.Module):
    def forward(self, x):
        y = x * 2
        Holder = type("Holder", (), {"scale": 2.0})
        return y * Holder.scale


class EnumInForward(nn.Module):
    def forward(self, x):
        y = x * 2

        class Kind(enum.Enum):
            A = 1

        return y * Kind.A.value


class LruCacheInForward(nn.Module):
    def forward(self, x):
        y = x * 2

        @functools.cache
        def factor(n):
            return n * 2

        return y * factor(3)


class NamedTupleTypingInForward(nn.Module):
    def forward(self, x):
        y = x * 2
        Out = typing.NamedTuple("Out", [("a", torch.Tensor)])  # noqa: UP014 (the construct under test)
        return Out(y).a + 1


class MakeDataclassInForwardAgain(nn.Module):
    def forward(self, x):
        y = x * 2
        P = dataclasses.make_dataclass("P", ["a"])
        return P(y).a + 1


class ExecInForward(nn.Module):
    def forward(self, x):
        y = x * 2
        exec("z = 1")
        return y + 1


class EvalInForward(nn.Module):
    def forward(self, x):
        y = x * 2
        k = eval("2")
        return y * k


class WeakrefInForward(nn.Module):
    def forward(self, x):
        y = x * 2
        ref = weakref.ref(self)
        return y + (1 if ref() is not None else 0)


class NonlocalCounter(nn.Module):
    def forward(self, x):
        count = 0

        def bump(t):
            nonlocal count
            count += 1
            return t + count

        return bump(bump(x))


class ClassAssignment(nn.Module):
    def forward(self, x):
        y = x * 2

        class Tagged(torch.Tensor):
            pass

        y.__class__ = Tagged
        return y + 1


class HashOfTensorUsed(nn.Module):
    def forward(self, x):
        y = x * 2
        h = hash(y)
        return y + (h % 2)
