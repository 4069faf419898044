"""Modules a region makes: dynamo runs their constructors in the graph, and where it cannot
(the constructor breaks, a method called on the made module does, or the function that
makes it breaks inside a loop, which makes dynamo give up its frame), it compiles the
constructor on its own and stops at ``super().__init__()``, the module not initialized yet;
so do the constructors of the modules such a constructor makes.

The package below makes small modules in ``forward`` the way library code builds helpers on
the fly. Every line where dynamo breaks carries `# graph break`; the static pass must find
exactly those (the `dynamo` test checks the marks against torch). ``Quiet`` and ``Calm`` are
the look-alikes: made in a region that breaks elsewhere (before the loop that makes them, not
inside it), they compile.
"""

from __future__ import annotations

from support import marked_package_tests, static_found, write_package

LAYERS = """import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, value):
        super().__init__()  # graph break
        self.value = value

    def apply_to(self, x):
        if x.sum() > 0:  # graph break
            return x * self.value
        return x


class Counted(nn.Module):
    def __init__(self, x):
        super().__init__()  # graph break
        self.n = int(x.sum().item())  # graph break

    def shift(self, x):
        return x + self.n


class Quiet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def run(self, x):
        return x * self.k


class Base(nn.Module):
    def __init__(self):
        super().__init__()  # graph break


class Derived(Base):
    def __init__(self, x):
        super().__init__()  # graph break
        self.v = x.tolist()  # graph break

    def total(self, x):
        return x + len(self.v)


class Leaf(nn.Module):
    def __init__(self):
        super().__init__()  # graph break
        self.k = 2


class Holder(nn.Module):
    def __init__(self):
        super().__init__()  # graph break
        self.leaf = Leaf()


class Calm(nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = nn.Identity()
"""

MODEL = """import torch
from torch import nn

from .layers import Calm, Counted, Derived, Gate, Holder, Quiet


def loud(x):
    print("step")  # graph break
    return x + 1


class Gated(nn.Module):
    def forward(self, x):
        gate = Gate(2.0)
        return gate.apply_to(x)  # graph break


class Shifted(nn.Module):
    def forward(self, x):
        return Counted(x).shift(x)


class Plain(nn.Module):
    def forward(self, x):
        quiet = Quiet(3.0)
        y = quiet.run(x)
        return loud(y)


class Chained(nn.Module):
    def forward(self, x):
        return Derived(x).total(x)


class Rebuilt(nn.Module):
    def forward(self, x):
        parts = []
        for _ in range(2):
            parts.append(Holder())
            print("built")  # graph break
        return x * len(parts)


class BuiltAfter(nn.Module):
    def forward(self, x):
        print("start")  # graph break
        parts = []
        for _ in range(2):
            parts.append(Calm())
        return x * len(parts)
"""

ORACLE = [
    {"path": ".", "module": "modpkg.model", "target": name, "inputs": ["f32[4]"]}
    for name in ("Gated", "Shifted", "Plain", "Chained", "Rebuilt", "BuiltAfter")
]


def make(root, model=MODEL):
    files = {"modpkg/__init__.py": "", "modpkg/layers.py": LAYERS, "modpkg/model.py": model}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)


def test_the_constructor_findings_are_tl021(tmp_path):
    got = static_found(make(tmp_path))
    assert {line for path, line, rule in got if rule == "TL021" and path == "modpkg/layers.py"} == {
        7,
        18,
        36,
        41,
        50,  # made by a constructor that runs on its own
        56,  # made in a function that breaks inside a loop: dynamo gives up that frame
    }
    assert ("modpkg/model.py", 15, "TL021") in got  # the call on the made module, as for any object


def test_without_tl021_the_breaks_inside_stay(tmp_path):
    got = static_found(make(tmp_path), "--ignore", "TL021")
    assert not {f for f in got if f[2] == "TL021"}
    assert ("modpkg/layers.py", 19, "TL001") in got  # the constructor of a made module is a region


def test_a_module_kept_on_self_is_not_followed_into_its_constructor(tmp_path):
    """`self.counter = Counted(x)` in a method the region calls (a setter that swaps a
    submodule, a lazy build): made once and kept, to run later. Its constructor is not taken
    for a region, and no `super().__init__()` finding comes of it: the static pass reports
    what runs on every call."""
    model = MODEL.replace(
        "        return Counted(x).shift(x)\n",
        "        self.keep(x)\n        return x\n\n    def keep(self, x):\n        self.counter = Counted(x)\n",
    )
    got = static_found(make(tmp_path, model=model))
    assert not {f for f in got if f[0] == "modpkg/layers.py" and f[1] in (18, 19)}
    assert ("modpkg/layers.py", 7, "TL021") in got  # a module made and used in the region still is


def test_a_break_dynamo_finds_at_a_constructor_is_named_tl021(tmp_path):
    """What `torchlint run` and `pytest --torchlint` name a break they observe after: the rule
    `check` reports on that line, TL021's included (it comes once every file is checked)."""
    from torchlint.config import Settings
    from torchlint.rules import enabled_rules
    from torchlint.static.static_pass import rules_on_lines

    folder = make(tmp_path)
    lines = {7, 18, 36, 41, 50, 56}
    flagged = rules_on_lines({"modpkg/layers.py": lines}, enabled_rules(Settings()), str(folder))
    assert {line for (_, line), codes in flagged.items() if "TL021" in codes} == lines
