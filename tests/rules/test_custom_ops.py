"""A ``@torch.library.custom_op`` function is one operator to dynamo: its body is never traced,
so nothing in it is reported, in the file that calls it or across files (checked against
dynamo here). An operator whose fake kernel allocates a size from the data
(``new_dynamic_size()``) breaks the graph where it is called (GB0036), whether called by its
function, through ``torch.ops`` or from a wrapper in another file: each call site is reported
(``tests/analysis/test_project_operators.py`` has the package-wide cases)."""

from __future__ import annotations

import os
import sys
import textwrap
import warnings

import pytest
from rule_cases import Case, needs_torch, static_and_dynamo_tests

import torchlint

OPS = """
import torch


@torch.library.custom_op("tlops{n}::keep_positive", mutates_args=())
def keep_positive(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0].clone()


@keep_positive.register_fake
def _(x):
    n = torch.library.get_ctx().new_dynamic_size()
    return x.new_empty(n)


def positive(x):
    return keep_positive(x)
"""

MODEL = """
import torch
from torch import nn

from tlops{n} import keep_positive, positive


class Net(nn.Module):
    def forward(self, x):
        y = torch.ops.tlops{n}.keep_positive(x)
        z = positive(x)
        if y.shape[0] > 2:
            y = y[:2]
        return y.sum() + z.sum() + keep_positive(x).sum()
"""


def _project(tmp_path, n: int):
    (tmp_path / f"tlops{n}.py").write_text(textwrap.dedent(OPS.format(n=n)).lstrip())
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL.format(n=n)).lstrip())
    (tmp_path / "torchlint.toml").write_text("")
    return tmp_path


#: the calls of the data-dependent operator, where dynamo breaks (the wrapper's `return`, the
#: model's `torch.ops` call and its last line)
CALL_SITES = {("tlops1.py", 16, "TL008"), ("model.py", 9, "TL008"), ("model.py", 13, "TL008")}


def _imported_net(tmp_path, n: int, monkeypatch):
    """The project's `Net`, imported (the oracle runs it in this process)."""
    folder = _project(tmp_path, n)
    monkeypatch.syspath_prepend(str(folder))
    for name in ("model", f"tlops{n}"):
        sys.modules.pop(name, None)
    import model  # the project written above

    net = model.Net()
    sys.modules.pop("model", None)
    return net


def test_a_custom_ops_body_is_not_a_region_across_files(tmp_path):
    folder = _project(tmp_path, 1)
    report = torchlint.check([str(folder)], select=["TL0"], config=str(folder / "torchlint.toml"))
    assert {(os.path.basename(f.path), f.line, f.rule) for f in report.findings} == CALL_SITES


def test_without_the_decorator_the_body_is_followed(tmp_path):
    """The look-alike: the same body as a plain function is traced, and flagged."""
    folder = _project(tmp_path, 2)
    ops = folder / "tlops2.py"
    ops.write_text(ops.read_text().replace('@torch.library.custom_op("tlops2::keep_positive", mutates_args=())\n', ""))
    report = torchlint.check([str(folder)], select=["TL0"], config=str(folder / "torchlint.toml"))
    # its fake kernel no longer registers an operator: the plain function's calls are not flagged
    assert {(os.path.basename(f.path), f.line, f.rule) for f in report.findings} == {("tlops2.py", 5, "TL008")}


@needs_torch
@pytest.mark.dynamo
def test_dynamo_never_breaks_inside_a_custom_ops_body(tmp_path, monkeypatch):
    import torch

    net = _imported_net(tmp_path, 3, monkeypatch)
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explained = torch._dynamo.explain(net)(torch.randn(8))
    inside = [
        (frame.filename, frame.lineno)
        for r in explained.break_reasons
        for frame in r.user_stack
        if os.path.basename(frame.filename) == "tlops3.py"
    ]
    assert explained.graph_count >= 1 and not inside, inside


@needs_torch
@pytest.mark.dynamo
def test_dynamo_breaks_at_each_call_site(tmp_path, monkeypatch):
    import torch

    from torchlint.dynamic.observe import observe

    net = _imported_net(tmp_path, 5, monkeypatch)
    found = observe(net, [[torch.randn(8)]], user_files=[str(tmp_path / "model.py"), str(tmp_path / "tlops5.py")])
    sites = {(os.path.basename(b.path or ""), b.line) for b in found.breaks}
    assert sites == {(path.replace("tlops1", "tlops5"), line) for path, line, _ in CALL_SITES}


CASES = {
    "custom_op_in_the_same_file": Case(
        """
        import torch
        from torch import nn

        @torch.library.custom_op("tlops4::scale", mutates_args=())
        def scale(x: torch.Tensor) -> torch.Tensor:
            s = x.abs().sum().item()
            return x * s

        @scale.register_fake
        def _(x):
            return torch.empty_like(x)

        class Net(nn.Module):
            def forward(self, x):
                return scale(x) * 2
        """,
        {"inputs": ["f32[8]"]},
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)
