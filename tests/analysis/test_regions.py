"""Compiled-region discovery: what torch.compile would trace, found without importing anything."""

import textwrap

import libcst as cst
import pytest

from torchlint.analysis.names import ImportTable
from torchlint.analysis.regions import build_index, find_regions


def regions(code: str) -> dict:
    """qualname -> the root region that reaches it."""
    module = cst.parse_module(textwrap.dedent(code))
    index = build_index(module, ImportTable.from_module(module))
    return {r.qualname: r.root for r in find_regions(index).values()}


@pytest.mark.parametrize(
    "header, base",
    [
        ("import torch", "torch.nn.Module"),
        ("import torch as T", "T.nn.Module"),
        ("from torch import nn", "nn.Module"),
        ("import torch.nn as nn", "nn.Module"),
        ("from torch.nn import Module", "Module"),
        ("from torch.nn import Module as M", "M"),
        ("from torch import nn as tnn", "tnn.Module"),
    ],
)
def test_forward_of_a_module_through_any_import_alias(header, base):
    code = (
        f"{header}\n\nclass Net({base}):\n    def __init__(self):\n        super().__init__()\n\n"
        "    def forward(self, x):\n        return x\n"
    )
    assert regions(code) == {"Net.forward": "Net.forward"}


def test_forward_through_same_file_bases_and_torch_nn_subclasses():
    code = """
        from torch import nn

        class Base(nn.Module):
            pass

        class Mid(Base):
            pass

        class Net(Mid):
            def forward(self, x):
                return x

        class Stack(nn.Sequential):
            def forward(self, x):
                return x
        """
    assert regions(code) == {"Net.forward": "Net.forward", "Stack.forward": "Stack.forward"}


def test_unknown_bases_and_plain_classes_are_not_regions():
    code = """
        from mylib import Base
        import torch

        class Net(Base):
            def forward(self, x):
                return x

        class Data:
            def forward(self, x):
                return x

        class Param(torch.nn.Parameter):
            def forward(self, x):
                return x
        """
    assert regions(code) == {}


@pytest.mark.parametrize(
    "decorator",
    [
        "@torch.compile",
        "@torch.compile()",
        "@torch.compile(mode='max-autotune', fullgraph=True)",
        "@T.compile",
        "@compile",
    ],
)
def test_compile_decorators(decorator):
    code = f"""
import torch
import torch as T
from torch import compile

{decorator}
def step(x):
    return x
"""
    assert regions(code) == {"step": "step"}


def test_functions_and_modules_handed_to_torch_compile():
    code = """
        import torch
        from torch import nn

        class A(nn.Module):
            pass

        class B:
            def forward(self, x):
                return x

        class C:
            def forward(self, x):
                return x

        class D:
            def forward(self, x):
                return x

            def predict(self, x):
                return x

        def loss(x):
            return x

        def unused(x):
            return x

        fast_loss = torch.compile(loss)
        fast_b = torch.compile(B())
        model = C()
        fast_c = torch.compile(model)
        d = D()
        fast_predict = torch.compile(d.predict)
        """
    assert regions(code) == {
        "loss": "loss",
        "B.forward": "B.forward",
        "C.forward": "C.forward",
        "D.predict": "D.predict",
    }


def test_helpers_join_transitively_and_keep_the_root():
    code = """
        from torch import nn

        def normalize(h):
            return scale(h)

        def scale(h):
            return h * 2

        def never_called(h):
            return h

        class Inner(nn.Module):
            def forward(self, x):
                return x

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def _block(self, h):
                return normalize(h)

            def forward(self, x):
                return self.inner(self._block(x))
        """
    assert regions(code) == {
        "Inner.forward": "Inner.forward",
        "Net.forward": "Net.forward",
        "Net._block": "Net.forward",
        "normalize": "Net.forward",
        "scale": "Net.forward",
    }


def test_super_forward_and_base_methods():
    code = """
        from torch import nn

        class Core:
            def encode(self, x):
                return x

        class Base(nn.Module):
            def forward(self, x):
                return x

        class Net(Base, Core):
            def forward(self, x):
                return super().forward(self.encode(x))

        class Other(Core, nn.Module):
            def forward(self, x):
                return super().encode(x)
        """
    found = regions(code)
    assert found["Net.forward"] == "Net.forward"
    assert found["Base.forward"] == "Base.forward"
    assert found["Core.encode"] in ("Net.forward", "Other.forward")


def test_disabled_functions_init_and_eager_only_code_are_not_regions():
    code = """
        import torch
        from torch import nn

        @torch.compiler.disable
        def debug(h):
            return h

        def eager_report(h):
            return h

        def compiled_branch(h):
            return h

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.setup()

            def setup(self):
                pass

            def forward(self, x):
                if not torch.compiler.is_compiling():
                    eager_report(x)
                if torch.compiler.is_compiling():
                    compiled_branch(x)
                return debug(x)

        class Off(nn.Module):
            @torch._dynamo.disable
            def forward(self, x):
                return x

        def train(model, data):
            for x in data:
                model(x).sum().backward()
        """
    assert regions(code) == {"Net.forward": "Net.forward", "compiled_branch": "Net.forward"}
