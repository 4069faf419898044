"""Objects a module keeps, reached through a local or a container: ``q = self.q``, ``for block
in self.blocks``, ``self.heads["a"].score(x)``. Dynamo traces each method called on them, so
each is a region.

The package below keeps its helpers the ways model code does: in a ``ModuleList``, a
``Sequential``, a ``ModuleDict``, a tuple of attributes, a list filled with ``append``, or one
attribute picked by a flag; and it calls methods through a local bound to one of them
(``sample = self.ddim_loop if self.ddim else self.loop; sample(x)``). Every line where dynamo
breaks carries `# graph break`; the static pass must find exactly those (the `dynamo` test
checks the marks against torch). ``Calm`` is the look-alike: kept and called the same ways, it
breaks nowhere.
"""

from __future__ import annotations

from support import marked_package_tests, static_found, write_package

PARTS = """import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, k=1.0):
        super().__init__()
        self.k = k

    def scale(self, x):
        if x.sum() > 0:  # graph break
            return x * self.k
        return x


class Counter(nn.Module):
    def count(self, x):
        return x + x.nonzero().shape[0]  # graph break


class Scorer(nn.Module):
    def score(self, x):
        print("score")  # graph break
        return x


class Picker(nn.Module):
    def pick(self, x):
        return x + x.max().item()  # graph break


class Calm(nn.Module):
    def scale(self, x):
        return x * 2


class Gauge(nn.Module):
    def __init__(self):
        super().__init__()
        self.level = torch.ones(4)

    @property
    def peak(self):
        return self.level.max().item()  # graph break


class Reader(nn.Module):
    def read(self, x):
        return x[x > 0]  # graph break


class Teller(nn.Module):
    def tell(self, x):
        print("tell")  # graph break
        return x


class Runner:
    def __call__(self, x):
        print("run")  # graph break
        return x
"""

MODEL = """from torch import nn

from .parts import Calm, Counter, Gauge, Picker, Reader, Runner, Scaler, Scorer, Teller


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Scaler(float(i)) for i in range(2)])
        self.calm = nn.ModuleList([Calm(), Calm()])

    def forward(self, x):
        for block in self.blocks:
            x = block.scale(x)
        for i, c in enumerate(self.calm):
            x = c.scale(x)
        return x


class Chain(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(Counter(), Calm())

    def forward(self, x):
        return self.seq[0].count(x)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": Scorer()})

    def forward(self, x):
        return self.heads["a"].score(x)


class Flagged(nn.Module):
    def __init__(self, fast=False):
        super().__init__()
        self.fast = fast
        self.slow_path = Picker()
        self.fast_path = Calm()

    def forward(self, x):
        path = self.fast_path if self.fast else self.slow_path
        return path.pick(x) if not self.fast else path.scale(x)


class Appended(nn.Module):
    def __init__(self):
        super().__init__()
        self.calm = Calm()
        self.parts = nn.ModuleList()
        self.parts.append(Calm())

    def forward(self, x):
        for part in (self.calm, self.calm):
            x = part.scale(x)
        for part in self.parts:
            x = part.scale(x)
        return x


class Paired(nn.Module):
    def __init__(self, first, second):
        super().__init__()
        self.first = first
        self.second = second

    def forward(self, x):
        a, b = self.first, self.second
        return a.tell(b.scale(x))


class Measured(nn.Module):
    def __init__(self):
        super().__init__()
        self.gauge = Gauge()

    def forward(self, x):
        gauge = self.gauge
        return x * gauge.peak


class Built(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = self.make_head()

    def make_head(self):
        return Reader()

    def forward(self, x):
        return self.head.read(x)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = Paired(Teller(), Calm())

    def forward(self, x):
        return self.pair(x)


class Sampling(nn.Module):
    def __init__(self, ddim=False):
        super().__init__()
        self.ddim = ddim
        self.runner = Runner()

    def loop(self, x):
        return x + x.argmax().item()  # graph break

    def ddim_loop(self, x):
        return x * 2

    def forward(self, x):
        sample = self.ddim_loop if self.ddim else self.loop
        run = self.runner
        return run(sample(x))
"""

ORACLE = [
    {"path": ".", "module": "keptpkg.model", "target": name, "inputs": ["f32[4]"]}
    for name in ("Stack", "Chain", "Heads", "Flagged", "Appended", "Outer", "Measured", "Built", "Sampling")
]


def make(root):
    files = {"keptpkg/__init__.py": "", "keptpkg/parts.py": PARTS, "keptpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)


def test_without_the_containers_nothing_is_reached(tmp_path):
    """The breaks are in methods only a kept object's call reaches: none is flagged when the
    calls go elsewhere (the check proves the marks come from these paths)."""
    folder = make(tmp_path)
    model = folder / "keptpkg" / "model.py"
    text = model.read_text()
    calls = (
        "block.scale(x)",
        "self.seq[0].count(x)",
        'self.heads["a"].score(x)',
        "path.pick(x)",
        "a.tell(b.scale(x))",
        "gauge.peak",
        "self.head.read(x)",
        "run(sample(x))",
    )
    for old in calls:
        text = text.replace(old, "x")
    model.write_text(text)
    assert not {f for f in static_found(folder) if f[0] == "keptpkg/parts.py"}
