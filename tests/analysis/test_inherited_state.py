"""What a base class in another file keeps on ``self`` reaches its subclasses' ``forward``.

snntorch's neurons: ``SpikingNeuron`` (``neurons.py``) registers a 0-d buffer in a helper its
constructor calls inside a ``try``; ``Leaky`` (``leaky.py``) branches on it, which dynamo
breaks on. neuraloperator's integral transform keeps a search function imported from another
file (``self.search_fn = native_search``) and calls it through the attribute; the function's
``nonzero()`` breaks. The look-alikes: an int the base keeps beside the buffer, and a function
the constructor keeps that is never called.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

NEURONS = """import torch
from torch import nn


class SpikingNeuron(nn.Module):
    reset_dict = {"subtract": 0, "zero": 1}

    def __init__(self, reset_mechanism="subtract"):
        super().__init__()
        self.mode = SpikingNeuron.reset_dict[reset_mechanism]
        try:
            self._reset_mechanism_buffer(reset_mechanism)
        except AttributeError:
            pass

    def _reset_mechanism_buffer(self, reset_mechanism):
        val = torch.as_tensor(SpikingNeuron.reset_dict[reset_mechanism])
        self.register_buffer("reset_mechanism_val", val)
"""

SEARCH = """import torch


def native_search(x, radius):
    d = torch.cdist(x, x)
    return (d <= radius).nonzero()  # graph break


def logged_search(x, radius):
    print("searching", radius)
    return x
"""

LEAKY = """from torch import nn

from .neurons import SpikingNeuron
from .search import logged_search, native_search


class Leaky(SpikingNeuron):
    def forward(self, x):
        if self.mode == 0:
            x = x * 0.9
        if self.reset_mechanism_val == 0:  # graph break
            return x - 1
        return x


class Neighbours(nn.Module):
    def __init__(self):
        super().__init__()
        self.search_fn = native_search
        self.debug_fn = logged_search

    def forward(self, x):
        return self.search_fn(x, 0.5).sum() + x.sum()
"""

ORACLE = [
    {"path": ".", "module": "neuronpkg.leaky", "target": "Leaky", "inputs": ["f32[4]"]},
    {"path": ".", "module": "neuronpkg.leaky", "target": "Neighbours", "inputs": ["f32[5,3]"]},
]


def make(root):
    files = {
        "neuronpkg/__init__.py": "",
        "neuronpkg/neurons.py": NEURONS,
        "neuronpkg/search.py": SEARCH,
        "neuronpkg/leaky.py": LEAKY,
    }
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
