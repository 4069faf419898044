"""A loop over a tensor hands its items on as tensors: `for t in self.scheduler.timesteps`,
where the object kept in `self.scheduler` sets `timesteps` to a tensor, passes 0-d tensors to
`step`, whose `timestep: int` annotation does not make them ints. A tensor passed is evidence,
so it holds although other calls of `step` are not seen, and through a helper of the same
class that the tensor is handed to (`self.previous(timestep)`). The look-alike keeps its
timesteps in a list of ints: the same method body holds Python ints and does not break. It
has a sampler class of its own on purpose: the kind of `self.scheduler.timesteps` is joined over
every class handed to one attribute, so a sampler handed both would read both as tensors."""

from __future__ import annotations

from support import marked_package_tests, write_package

SCHEDULERS = """import torch


class Stepper:
    def __init__(self, n):
        self.timesteps = torch.arange(n - 1, -1, -1)
        self.alphas = torch.linspace(0.9, 0.1, n)
        self.one = torch.tensor(1.0)

    def previous(self, timestep: int):
        return timestep - 1

    def step(self, out, timestep: int, x):
        prev = self.previous(timestep)
        alpha = self.alphas[prev] if prev >= 0 else self.one  # graph break
        return x - alpha * out


class Counted:
    def __init__(self, n):
        self.timesteps = list(range(n - 1, -1, -1))
        self.alphas = torch.linspace(0.9, 0.1, n)
        self.one = torch.tensor(1.0)

    def previous(self, timestep: int):
        return timestep - 1

    def step(self, out, timestep: int, x):
        prev = self.previous(timestep)
        alpha = self.alphas[prev] if prev >= 0 else self.one
        return x - alpha * out
"""

MODEL = """from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class Sampler(nn.Module):
    def __init__(self, net, scheduler):
        super().__init__()
        self.net = net
        self.scheduler = scheduler

    def forward(self, x):
        for t in self.scheduler.timesteps:
            x = self.scheduler.step(self.net(x), t, x)
        return x


class CountedSampler(nn.Module):
    def __init__(self, net, scheduler):
        super().__init__()
        self.net = net
        self.scheduler = scheduler

    def forward(self, x):
        for t in self.scheduler.timesteps:
            x = self.scheduler.step(self.net(x), t, x)
        return x
"""

TARGETS = """from lpkg.model import CountedSampler, Denoiser, Sampler
from lpkg.schedulers import Counted, Stepper

STEPPED = Sampler(Denoiser(), Stepper(3))
COUNTED = CountedSampler(Denoiser(), Counted(3))
"""

ORACLE = [
    {"path": ".", "module": "lpkg.targets", "target": name, "inputs": ["f32[3,4]"]} for name in ("STEPPED", "COUNTED")
]


def make(root):
    files = {
        "lpkg/__init__.py": "",
        "lpkg/schedulers.py": SCHEDULERS,
        "lpkg/model.py": MODEL,
        "lpkg/targets.py": TARGETS,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
