"""Calls into functions dynamo does not trace (standard library, torch's own skip lists)."""

import copy
import datetime
import inspect
import io
import json
import os
import random
import sys
import time
import traceback
import warnings

import torch
from torch import nn


class TimeTime(nn.Module):
    def forward(self, x):
        start = time.time()
        y = x * 2
        return y, start


class PerfCounter(nn.Module):
    def forward(self, x):
        y = x.relu()
        t = time.perf_counter()
        return y + 1, t


class RandomRandom(nn.Module):
    def forward(self, x):
        if random.random() < 0.5:
            return x
        return x * 2


class RandomChoice(nn.Module):
    def forward(self, x):
        k = random.choice([1, 2, 3])
        return x * k


class InspectGetsource(nn.Module):
    def forward(self, x):
        code = inspect.getsource(type(self))
        return x + len(code)


class InspectStack(nn.Module):
    def forward(self, x):
        depth = len(inspect.stack())
        return x + depth


class TracebackStack(nn.Module):
    def forward(self, x):
        where = traceback.format_stack()
        return x, len(where)


class OsGetpid(nn.Module):
    def forward(self, x):
        pid = os.getpid()
        return x + pid % 2


class OsEnvironSet(nn.Module):
    def forward(self, x):
        os.environ["TORCHLINT_CASE"] = "1"
        return x * 2


class SysGetsizeof(nn.Module):
    def forward(self, x):
        size = sys.getsizeof(x)
        return x + size


class JsonDumps(nn.Module):
    def forward(self, x):
        meta = json.dumps({"rows": 8})
        return x, meta


class TorchSaveToBuffer(nn.Module):
    def forward(self, x):
        buffer = io.BytesIO()
        torch.save(x, buffer)
        return x + 1


class CatchWarnings(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.log()
        return y


class DeepcopyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(16, 16)

    def forward(self, x):
        twin = copy.deepcopy(self.layer)
        return twin(x)


class ManualSeed(nn.Module):
    def forward(self, x):
        torch.manual_seed(0)
        return x + torch.randn_like(x)


class DatetimeNow(nn.Module):
    def forward(self, x):
        stamp = datetime.datetime.now()
        return x, stamp


class OpenFile(nn.Module):
    def forward(self, x):
        with open(os.devnull, "w") as sink:
            sink.write("x")
        return x * 2


class MathConstant(nn.Module):
    def forward(self, x):
        import math

        return x * math.pi


class OsPathJoin(nn.Module):
    def forward(self, x):
        name = os.path.join("a", "b")
        return x, name


class CopyOfList(nn.Module):
    def forward(self, x):
        parts = copy.copy([x, x])
        return parts[0] + parts[1]


class IsinstanceCheck(nn.Module):
    def forward(self, x):
        if isinstance(x, torch.Tensor):
            return x + 1
        return x


class RandnLike(nn.Module):
    def forward(self, x):
        return x + torch.randn_like(x)


class ScriptedSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.jit.script(nn.LayerNorm(16))

    def forward(self, x):
        return self.norm(x) * 2


class TracedSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.jit.trace(nn.Linear(16, 16), torch.randn(2, 16))

    def forward(self, x):
        return self.proj(x) + 1


class TracedFunctionKept(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.jit.trace(torch.nn.functional.gelu, torch.randn(2, 16))

    def forward(self, x):
        return self.act(x) * 2
