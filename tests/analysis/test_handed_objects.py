"""An object handed to a module's constructor and kept (`self.stepper = stepper`) has its
methods traced by dynamo when the module's region calls them: they are followed into each class
the project's calls of that constructor pass an instance of, whether made at the call
(`Loop(Denoiser(), Euler(0.5))`), in a local of a builder that imports the class itself, as an
item of the tuple a helper returns (`net, stepper = pair()`), or in a parameter passed on from a
subclass's constructor; so are its buffers (`self.net.perm`) and, when each is a module, its
outputs (a dict of tensors where its forward says so, in an annotation or a TorchScript
comment). The calls of its methods are call sites like any: `n` is a tensor at every call. A
class with the same method that no call hands in, a handed class's method the region does not
call, and a handed object's list stay unchecked."""

from __future__ import annotations

from support import marked_package_tests, static_found, write_package

STEPPERS = """import torch


class Euler:
    def __init__(self, scale):
        self.scale = scale

    def step(self, out, x, n):
        if out.abs().max() > 10:  # graph break
            out = out.clamp(-10, 10)
        return x - self.scale * out

    def describe(self, x):
        print("euler", x.tolist())
        return x


class Heun:
    def step(self, out, x, n):
        print("heun", out.shape)  # graph break
        if n > 2:  # graph break
            x = x * 0.5
        return x - out


class Midpoint:
    def step(self, out, x, n):
        return x - out[out > 0].sum()  # graph break


class Ralston:
    def step(self, out, x, n):
        return x - torch.unique(out).sum()  # graph break


class Unused:
    def step(self, out, x):
        print("never handed", out.tolist())
        return x
"""

MODEL = """from typing import Dict

import torch
from torch import Tensor, nn

from .steppers import Midpoint


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class Loop(nn.Module):
    def __init__(self, net, stepper):
        super().__init__()
        self.net = net
        self.stepper = stepper

    def forward(self, x):
        out = self.net(x)
        return self.stepper.step(out, x, out.sum())


class Guided(Loop):
    def __init__(self, stepper):
        super().__init__(Denoiser(), stepper)


class Order(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("perm", torch.randperm(n))
        self.lin = nn.Linear(n, n)

    def forward(self, x):
        return self.lin(x), x * 2


class Listed:
    def __init__(self):
        self.perm = [2, 0, 1]

    def __call__(self, x):
        return x, x * 2


class Permuted(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        out = []
        for idx in self.net.perm:
            a, b = self.net(x)
            out.append(a[..., idx] + b[..., 0])  # graph break
        return torch.stack(out)


class Reordered(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        out = []
        for idx in self.net.perm:
            a, b = self.net(x)
            out.append(a[..., idx] + b[..., 0])
        return torch.stack(out)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Linear(4, 4)

    def forward(self, x):
        # type: (Tensor) -> Dict[str, Tensor]
        return {"cls": self.cls(x), "box": x * 2}


class Split(nn.Module):
    def __init__(self, head=None):
        super().__init__()
        if head is None:
            head = Heads()
        self.head = head

    def forward(self, x):
        out = self.head(x)
        parts = {}
        for k in out:
            parts[k] = list(out[k].split(2, dim=1))
        return parts["cls"][0] + parts["box"][1]


def loop(kind):
    from hpkg.steppers import Euler, Heun

    stepper = Euler(0.5) if kind == "euler" else Heun()
    return Loop(Denoiser(), stepper)


def pair():
    from hpkg.steppers import Ralston

    return Denoiser(), Ralston()


def ralston():
    net, stepper = pair()
    return Loop(net, stepper)


def guided():
    return Guided(Midpoint())
"""

TARGETS = """from hpkg.model import Heads, Listed, Order, Permuted, Reordered, Split, guided, loop, ralston

EULER = loop("euler")
HEUN = loop("heun")
GUIDED = guided()
RALSTON = ralston()
PERMUTED = Permuted(Order(4))
REORDERED = Reordered(Listed())
SPLIT = Split(Heads())
"""

ORACLE = [
    {"path": ".", "module": "hpkg.targets", "target": name, "inputs": ["f32[3,4]"]}
    for name in ("EULER", "HEUN", "GUIDED", "RALSTON", "PERMUTED", "REORDERED", "SPLIT")
]


def make(root):
    files = {"hpkg/__init__.py": "", "hpkg/steppers.py": STEPPERS, "hpkg/model.py": MODEL, "hpkg/targets.py": TARGETS}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)


def test_a_break_dynamo_finds_is_named_after_the_rule_check_reports_there(tmp_path):
    """`torchlint run` and `pytest --torchlint` name each break after the rule that flags its
    line: with the project's facts, as `check` has them (`n` a tensor by its callers, the
    buffer of the object handed in), not from the file alone."""
    from torchlint.config import Settings
    from torchlint.rules import enabled_rules
    from torchlint.static.static_pass import rules_on_lines

    folder = make(tmp_path)
    found = static_found(folder)
    wanted: dict[str, set[int]] = {}
    for path, line, _ in found:
        wanted.setdefault(path, set()).add(line)
    flagged = rules_on_lines(wanted, enabled_rules(Settings()), str(folder))
    assert {(path, line, rule) for (path, line), rules in flagged.items() for rule in rules} == found
