"""What a module keeps from its constructor's defaults, read where every construction is seen.

snntorch's neurons keep ``self.reset_delay = reset_delay`` (default ``True``) and branch on
the membrane under ``if not self.reset_delay:``, which dynamo breaks on; a model that builds
them with the default never runs that branch. The look-alikes: a subclass that passes the
flag to ``super().__init__``, and a parent module that sets the flag on its child after
building it (any ``obj.<attr> = v`` in the project undecides that name); both run the branch,
and dynamo breaks there. An optional object left ``None`` is decided the same way.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

NEURONS = """import torch
from torch import nn


class Leaky(nn.Module):
    def __init__(self, beta=0.9, reset_delay=True):
        super().__init__()
        self.beta = beta
        self.reset_delay = reset_delay

    def forward(self, x):
        mem = x * self.beta
        if not self.reset_delay:
            if mem.max() > 1:
                mem = mem - 1
        return mem


class Synaptic(nn.Module):
    def __init__(self, reset_after=True):
        super().__init__()
        self.reset_after = reset_after

    def forward(self, x):
        if not self.reset_after:
            if x.sum() > 0:  # graph break
                x = x - 1
        return x


class Alpha(nn.Module):
    def __init__(self, reset_delay=True):
        super().__init__()
        self.reset_delay = reset_delay

    def forward(self, x):
        if not self.reset_delay:
            if x.mean() > 0:  # graph break
                x = x * 0.5
        return x


class FastAlpha(Alpha):
    def __init__(self):
        super().__init__(reset_delay=False)


class Gated(nn.Module):
    def __init__(self, gate=None):
        super().__init__()
        self.gate = gate

    def forward(self, x):
        if self.gate is not None:
            print("gated")
        return x
"""

MODEL = """from torch import nn

from .neurons import FastAlpha, Gated, Leaky, Synaptic


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.lif = Leaky(beta=0.5)
        self.syn = Synaptic()
        self.syn.reset_after = False
        self.alpha = FastAlpha()
        self.gated = Gated()

    def forward(self, x):
        return self.gated(self.alpha(self.syn(self.lif(self.fc(x)))))
"""


def make(root):
    files = {"spiking/__init__.py": "", "spiking/neurons.py": NEURONS, "spiking/model.py": MODEL}
    oracle = [{"path": ".", "module": "spiking.model", "target": "Net", "inputs": ["f32[2,4]"]}]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
