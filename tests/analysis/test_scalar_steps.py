"""A sampler's `step(out, timestep: int, x)` handed each item of the scheduler's timesteps (a
0-d tensor the compiled code computed) breaks where it indexes a table with it: dynamo reads
the index on the host. Handed the compiled function's own input instead, passed on as it
came, the same indexing is traced: the parameter holds a graph input."""

from __future__ import annotations

from support import marked_package_tests, write_package

SCHEDULER = """import torch


class Scheduler:
    def __init__(self, steps):
        self.alphas = torch.linspace(0.9, 0.1, steps)
        self.timesteps = torch.arange(steps - 1, -1, -1)

    def step(self, out, timestep: int, x):
        alpha = self.alphas[timestep]  # graph break
        return alpha * x + (1 - alpha) * out

    def scale(self, x, timestep: int):
        return x * self.alphas[timestep]
"""

MODEL = """from torch import nn

from .scheduler import Scheduler


class Denoise(nn.Module):
    def __init__(self, scheduler):
        super().__init__()
        self.scheduler = scheduler
        self.net = nn.Linear(4, 4)

    def forward(self, x):
        for t in self.scheduler.timesteps:
            x = self.scheduler.step(self.net(x), t, x)
        return x


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.scheduler = Scheduler(4)

    def forward(self, x, t):
        return self.scheduler.scale(x, t)


def build():
    return Denoise(Scheduler(3))
"""

TARGETS = """from schedpkg.model import Scale, build

DENOISE = build()
SCALE = Scale()
"""

ORACLE = [
    {"path": ".", "module": "schedpkg.targets", "target": "DENOISE", "inputs": ["f32[3,4]"]},
    {"path": ".", "module": "schedpkg.targets", "target": "SCALE", "inputs": ["f32[3,4]", "i64[]:0..3"]},
]


def make(root):
    files = {
        "schedpkg/__init__.py": "",
        "schedpkg/scheduler.py": SCHEDULER,
        "schedpkg/model.py": MODEL,
        "schedpkg/targets.py": TARGETS,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
