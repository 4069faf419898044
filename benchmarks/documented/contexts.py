"""Context managers, exceptions and generators in forward."""

import contextlib

import torch
from torch import nn


class TryExcept(nn.Module):
    def forward(self, x):
        try:
            y = x * 2
        except RuntimeError:
            y = x
        return y


class RaiseOnValue(nn.Module):
    def forward(self, x):
        if x.shape[0] == 0:
            raise ValueError("empty batch")
        return x + 1


class UserContextManager(nn.Module):
    def forward(self, x):
        @contextlib.contextmanager
        def scope():
            yield

        with scope():
            y = x * 2
        return y


class PrintingContextManager(nn.Module):
    def forward(self, x):
        with _Announce():
            y = x * 3
        return y


class _Announce:
    def __enter__(self):
        print("enter")
        return self

    def __exit__(self, *exc):
        return False


class NullContext(nn.Module):
    def forward(self, x):
        with contextlib.nullcontext():
            return x - 1


class AutocastBlock(nn.Module):
    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            return x @ x.t()


class ProfilerRange(nn.Module):
    def forward(self, x):
        with torch.profiler.record_function("block"):
            return x.relu()


class GeneratorConsumed(nn.Module):
    def forward(self, x):
        def rows():
            for i in range(2):
                yield x[i]

        return torch.stack(list(rows()))


class BreakInsideTry(nn.Module):
    def forward(self, x):
        try:
            print("inside")
            y = x + 1
        finally:
            y = x * 2
        return y


class LoopWithBreak(nn.Module):
    def forward(self, x):
        for _ in range(4):
            x = x * 2
            if x.sum() > 100:
                break
        return x


class SuppressBlock(nn.Module):
    def forward(self, x):
        with contextlib.suppress(KeyError):
            x = x + 1
        return x
