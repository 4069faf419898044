"""A base class's method reads an attribute only its subclasses set: ``self`` is an instance
of one of them, so the method runs on what each subclass's constructor makes.

``Model.posterior`` calls ``self.outcome_transform.untransform(y)``; ``Model`` never sets the
attribute, its subclasses do (one through a local made in an arm of a conditional expression,
``t = Standardize() if flag else None``). ``Standardize.untransform`` branches on a buffer's
value: dynamo breaks there, reached only through that read. ``Plain`` is the look-alike: its
subclass sets a transform that compiles.
"""

from __future__ import annotations

from support import marked_package_tests, static_found, write_package

TRANSFORMS = """import torch
from torch import nn


class Standardize(nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.register_buffer("means", torch.zeros(dim))
        self.register_buffer("trained", torch.tensor(False))

    def untransform(self, y):
        if not self.trained:  # graph break
            return y
        return y + self.means


class Shift(nn.Module):
    def untransform(self, y):
        return y + 1.0
"""

MODELS = """import torch
from torch import nn

from .transforms import Shift, Standardize


class Model(nn.Module):
    def posterior(self, x):
        return self.outcome_transform.untransform(self.net(x))


class Regressor(Model):
    def __init__(self, standardize=True):
        super().__init__()
        self.net = nn.Linear(4, 1)
        transform = Standardize() if standardize else None
        self.outcome_transform = transform

    def forward(self, x):
        return self.posterior(x)


class Plain(nn.Module):
    def posterior(self, x):
        return self.outcome_transform.untransform(self.net(x))


class Shifted(Plain):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 1)
        self.outcome_transform = Shift()

    def forward(self, x):
        return self.posterior(x)
"""

ORACLE = [
    {"path": ".", "module": "subattrpkg.models", "target": name, "inputs": ["f32[3,4]"]}
    for name in ("Regressor", "Shifted")
]


def make(root):
    files = {"subattrpkg/__init__.py": "", "subattrpkg/transforms.py": TRANSFORMS, "subattrpkg/models.py": MODELS}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)


def test_a_subclass_that_sets_the_attribute_itself_is_what_is_followed(tmp_path):
    """Where the class (or a base) sets the attribute, its subclasses' settings are not read:
    the base's own maker decides, and here it makes a transform that compiles."""
    folder = make(tmp_path)
    models = folder / "subattrpkg" / "models.py"
    text = models.read_text()
    text = text.replace(
        "class Model(nn.Module):\n",
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.outcome_transform = Shift()\n\n",
    )
    models.write_text(text)
    assert static_found(folder) == set()
