"""What dynamo never runs behind a compile switch: an `is_compiling()` wrapper that picks
between torch's spellings by version (torch_geometric's), tested with `or` beside
`torch.jit.is_scripting()`, in an `and` beside a flag, and the code after `if <switch>:
return ...`, and a file's own wrapper of `torch.compiler.disable` (calling what it wraps
breaks; its body is not compiled). The eager paths (index checks that read tensor values,
timing) stay unchecked; a real break beside them is found."""

from __future__ import annotations

from support import marked_package_tests, write_package

COMPILE = """import torch

WITH_PT23 = hasattr(torch, "compiler")


def is_compiling() -> bool:
    if WITH_PT23:
        return torch.compiler.is_compiling()
    if hasattr(torch, "_dynamo"):
        return torch._dynamo.is_compiling()
    return False
"""

CONV = """import time

import torch
from torch import nn

from gpkg import is_compiling

FAST = not torch.cuda.is_available()


def eager_only(fn):
    return torch.compiler.disable(fn)


@eager_only
def report(h):
    print("mean", h.mean().item())
    return h


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def gather(self, x, index):
        if torch.jit.is_scripting() or is_compiling():
            return x.index_select(0, index)
        return self._gather_safe(x, index)

    def _gather_safe(self, x, index):
        if index.numel() > 0 and index.min() < 0:
            raise IndexError(f"negative index {index.min().item()}")
        return x.index_select(0, index)

    def scale(self, x):
        if is_compiling():
            return x * 2
        print("eager scale", x.sum().item())
        return x * 2

    def timed(self, x):
        if FAST and not is_compiling():
            self._measure(x)
        return x

    def _measure(self, x):
        start = time.perf_counter()
        x.sum().item()
        print("took", time.perf_counter() - start)

    def forward(self, x):
        index = torch.arange(x.shape[0] - 1, -1, -1)
        h = self.timed(self.scale(self.gather(self.lin(x), index)))
        if x.sum() > 0:  # graph break
            h = h + 1
        return report(h)  # graph break
"""

ORACLE = [{"path": ".", "module": "gpkg.conv", "target": "Conv", "inputs": ["f32[5,4]"]}]


def make(root):
    files = {
        "gpkg/__init__.py": "from ._compile import is_compiling\n",
        "gpkg/_compile.py": COMPILE,
        "gpkg/conv.py": CONV,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
