"""A call through a module-level table of functions (`INIT_METHODS[self.init](x, k)`, the
dispatch fast-pytorch-kmeans does) runs, in the region, each function the table holds, also
through `functools.partial`. A function no table holds stays unchecked. (A table of tables,
`ROUTINES[loss][backend](...)`, picks along two settings, most pairs never taken: it is not
followed.)"""

from __future__ import annotations

from support import marked_package_tests, write_package

INIT = """import torch


def gaussian(x, k):
    spread = (x.max(0).values - x.min(0).values).norm().item()  # graph break
    return torch.randn(k, x.shape[1]) * spread


def first(x, k, shift=0.0):
    return x[:k] + shift


def unused(x, k):
    print("unused", x.tolist())
    return x[:k]
"""

KMEANS = """from functools import partial

from torch import nn

from .init import first, gaussian

INIT_METHODS = {"gaussian": gaussian, "first": partial(first, shift=0.5)}


class KMeans(nn.Module):
    def __init__(self, init="gaussian", k=2):
        super().__init__()
        self.init = init
        self.k = k

    def forward(self, x):
        centroids = INIT_METHODS[self.init](x, self.k)
        return (x[:, None] - centroids[None]).pow(2).sum(-1).argmin(-1)
"""

TARGETS = """from tablepkg.kmeans import KMeans

GAUSSIAN = KMeans("gaussian")
FIRST = KMeans("first")
"""

ORACLE = [
    {"path": ".", "module": "tablepkg.targets", "target": name, "inputs": ["f32[3,4]"]}
    for name in ("GAUSSIAN", "FIRST")
]


def make(root):
    files = {
        "tablepkg/__init__.py": "",
        "tablepkg/init.py": INIT,
        "tablepkg/kmeans.py": KMEANS,
        "tablepkg/targets.py": TARGETS,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
