"""Context managers, exceptions and generators in forward."""

import contextlib
import os
import threading
import warnings

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


class CatchWarnings(nn.Module):
    def forward(self, x):
        y = x * 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = y + 1
        return y


class ThreadingLockHere(nn.Module):
    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()

    def forward(self, x):
        y = x * 2
        with self.lock:
            y = y + 1
        return y


class ProfilerProfile(nn.Module):
    def forward(self, x):
        y = x * 2
        with torch.profiler.profile():
            y = y + 1
        return y


class ForkRng(nn.Module):
    def forward(self, x):
        y = x * 2
        with torch.random.fork_rng():
            y = y + torch.rand_like(y)
        return y


class InferenceModeBlock(nn.Module):
    def forward(self, x):
        y = x * 2
        with torch.inference_mode():
            y = y + 1
        return y


class ExitStackBlockAgain(nn.Module):
    def forward(self, x):
        y = x * 2
        with contextlib.ExitStack():
            y = y + 1
        return y


class OpenDevnull(nn.Module):
    def forward(self, x):
        y = x * 2
        with open(os.devnull, "w") as sink:
            sink.write("step\n")
        return y + 1


class RedirectStdout(nn.Module):
    def forward(self, x):
        y = x * 2
        with contextlib.redirect_stdout(None):
            y = y + 1
        return y


class ContextInHelper(nn.Module):
    def forward(self, x):
        y = x * 2
        with torch.random.fork_rng():
            z = y + 1
        return z
