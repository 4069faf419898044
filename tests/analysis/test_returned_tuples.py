"""What a helper returns is worked out through its parameters as every call passes them:
``crop((h, w), 12 // self.patch_size, 8)`` of sizes read from a shape (and a field named as
a size, set from what no call shows) returns a pair of int pairs, so a helper in another file
handed that pair reads ints from it (``int(start[0])`` does not read data); a helper whose
callers are not all seen (``HOOKS = [cut]``) takes its ``bounds`` for a tensor only by
assumption, and so the ``h, w`` unpacked from it. The look-alike:
``box`` handed a pair of reductions returns tensors, and ``int`` of an item breaks."""

from __future__ import annotations

from support import marked_package_tests, write_package

SHAPES = """def crop(src, w, h):
    a, b = src
    top = int(round((h - a) / 2.0))
    left = int(round((w - b) / 2.0))
    return (top, left), (top + a, w - left)


def box(src):
    lo, hi = src
    return (lo, lo), (hi, hi)
"""

GRIDS = """import torch


def grid(coords, n):
    start, stop = coords
    first = int(start[0])
    return torch.arange(n) + first + stop[1]


def cut(x, bounds):
    h, w = bounds
    return x[..., :h, :w]


HOOKS = [cut]


def spread(coords, n):
    start, stop = coords
    first = int(start[0])  # graph break
    return torch.arange(n) + first + stop[1]
"""

MODEL = """from torch import nn

from .grids import cut, grid, spread
from .shapes import box, crop


class Crop(nn.Module):
    def __init__(self, patch_size=2):
        super().__init__()
        self.patch_size = patch_size

    def forward(self, x):
        n, c, h, w = x.shape
        coords = crop((h, w), 12 // self.patch_size, 8)
        return x + grid(coords, w) + cut(x, (2, 3)).sum()


class Bounds(nn.Module):
    def forward(self, x):
        coords = box((x.amin(), x.amax()))
        return x + spread(coords, x.shape[-1])


def build(options):
    return Crop(options.patch)
"""

ORACLE = [
    {"path": ".", "module": "tpkg.model", "target": name, "inputs": ["f32[1,2,3,4]"]} for name in ("Crop", "Bounds")
]


def make(root):
    files = {"tpkg/__init__.py": "", "tpkg/shapes.py": SHAPES, "tpkg/grids.py": GRIDS, "tpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
