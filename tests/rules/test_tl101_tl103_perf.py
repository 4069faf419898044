"""TL101 host-sync, TL102 cpu-tensor-in-region, TL103 per-call-scalar: performance warnings.

Each snippet marks the lines the TL1xx rules must flag (``# error: TL1nn``); the static test
runs the three rules together and compares (line, code) pairs exactly. Where torch is
installed, dynamo confirms the rules' claim "not a graph break": the bad snippets compile to
one graph, and TL103's snippet recompiles when the number changes. (That CUDA graphs are then
skipped or re-recorded is proven on a GPU by tests/dynamic/test_cudagraphs_gpu.py.)
"""

from __future__ import annotations

import importlib.util
import textwrap
import warnings

import pytest

from torchlint.config import Settings
from torchlint.rules import all_rules, get_rule
from torchlint.static.lint import lint_file

PERF_RULES = [r for r in all_rules() if r.code.startswith("TL1")]
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch is not installed: dynamo not consulted"
)


def _src(snippet: str) -> str:
    return textwrap.dedent(snippet).lstrip("\n")


def _marked(snippet: str):
    out = set()
    for number, line in enumerate(_src(snippet).splitlines(), 1):
        if "# error:" in line:
            out |= {(number, c.strip()) for c in line.split("# error:")[1].split(",")}
    return out


def _found(snippet: str):
    return {(f.line, f.rule) for f in lint_file("case.py", _src(snippet), PERF_RULES).findings}


HOST_SYNC = """
    import numpy as np
    import torch
    from torch import nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(16, 8)
            self.cpu()  # __init__ is not compiled

        def forward(self, x):
            logits = self.head(x)
            probs = logits.softmax(-1).cpu()  # error: TL101
            best = logits.argmax(-1).to("cpu")  # error: TL101
            also = logits.to(device="cpu")  # error: TL101
            named = logits.to(torch.device("cpu"))  # error: TL101
            arr = logits.detach().cpu().numpy()  # error: TL101
            arr2 = logits.numpy()  # raises on CUDA; on the CPU there is nothing to sync
            same = logits.to(x.device)
            half = logits.to(torch.float16)
            self.head.cpu()
            return probs, best, also, named, arr, arr2, same, half, np.zeros(3)

    def postprocess(model, x):
        return model(x).cpu().numpy()  # not a compiled region
    """

SYNC_CALL = """
    import torch

    @torch.compile
    def step(x):
        y = x.to("cpu")  # error: TL101
        torch.cuda.synchronize()  # a graph break on CUDA builds: not this warning
        return y
    """

HOST_SYNC_HELPER_AND_GUARD = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            h = x * 2
            if not torch.compiler.is_compiling():
                print(h.cpu())
            return self.summarize(h)

        def summarize(self, h):
            return h.mean(-1).cpu()  # error: TL101
    """

CPU_TENSORS = """
    import torch
    from torch import nn

    class Noisy(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.randn(4, 16))  # __init__: fine

        def forward(self, x):
            noise = torch.randn(x.shape).to(x.device)  # error: TL102
            keep = torch.rand(x.shape[0], 1).cuda() > 0.1  # error: TL102
            ids = torch.randint(0, 16, (x.shape[0],))  # error: TL102
            order = torch.randperm(x.shape[0])  # error: TL102
            ok1 = torch.randn(x.shape, device=x.device)
            ok2 = torch.randn_like(x)
            ok3 = torch.rand(3, **self.factory)
            # constants inductor builds on the GPU itself: not flagged
            steps = torch.arange(x.shape[1]).to(x.device)
            scale = torch.tensor(0.5)
            zeros = torch.zeros(4, 16).to(x.device)
            return x * scale + noise + keep + ok1 + ok2 + ok3.sum() + steps + zeros, ids, order
    """

SCALARS = """
    import torch
    from torch import nn
    from typing import Optional

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(16, 16)

        def forward(self, x, t: float, step: int, steps: int, scale: float = 1.0, gamma: Optional[int] = None, n: int = 2):  # error: TL103
            h = self.net(x) * t
            h = h + scale * x + n
            for _ in range(steps):
                h = h + 1
            return h / step

    @torch.compile
    def shift(x, offset: int):  # error: TL103
        return x + offset

    @torch.compile
    def reassigned(x, k: int):
        k = k % 4
        return x * k

    def not_compiled(x, k: int):
        return x * k

    class Other(nn.Module):
        def forward(self, x, k: int):  # error: TL103
            return self.helper(x, k) + k

        def counted(self, x, k: int):
            return self.count(k) + k

        def helper(self, x, k: int):
            return x * k

        def count(self, k: int):
            return k * 2
    """  # noqa: E501 (the signature is the case: one line, one finding)


@pytest.mark.parametrize(
    "snippet",
    [HOST_SYNC, SYNC_CALL, HOST_SYNC_HELPER_AND_GUARD, CPU_TENSORS, SCALARS],
    ids=["host_sync", "sync_call", "helper_and_guard", "cpu_tensors", "scalars"],
)
def test_rules_flag_exactly_the_marked_lines(snippet):
    assert _found(snippet) == _marked(snippet)


def test_messages_say_not_a_graph_break_and_severity_is_warning():
    for snippet in (HOST_SYNC, CPU_TENSORS, SCALARS):
        for f in lint_file("case.py", _src(snippet), PERF_RULES).findings:
            assert f.severity == "warning"
            assert f.message.startswith("not a graph break"), f.message
            assert "(called from" not in f.message or f.rule == "TL101"


def test_scalar_finding_names_the_parameter():
    found = lint_file("case.py", _src(SCALARS), [get_rule("TL103")]).findings
    # `t: float` is left alone (a float becomes dynamic after one recompile); `steps` is a size;
    # `k` is added to the tensor a same-file helper returns
    assert sorted(f.message.split("`")[1] for f in found) == ["k: int", "offset: int", "step: int"]


def test_perf_rules_are_opt_in():
    default = Settings().enabled_rules([r.code for r in all_rules()])
    assert not [c for c in default if c.startswith("TL1")]
    assert {"TL101", "TL102", "TL103"} <= set(Settings(select=["TL1"]).enabled_rules([r.code for r in PERF_RULES]))
    assert {r.code: r.severity for r in PERF_RULES} == {"TL101": "warning", "TL102": "warning", "TL103": "warning"}


def test_cli_reports_warnings_only_when_selected(project):
    from click.testing import CliRunner

    from torchlint.cli import main

    (project / "model.py").write_text(_src(CPU_TENSORS))
    quiet = CliRunner().invoke(main, ["check", "model.py"])
    assert quiet.exit_code == 0, quiet.output
    loud = CliRunner().invoke(main, ["check", "model.py", "--select", "TL1"])
    assert loud.exit_code == 1
    assert "TL102" in loud.output and "performance warning, not a graph break" in loud.output


# --------------------------------------------------------------------------- dynamo


def _observe(snippet: str, arg_sets):
    from torchlint.dynamic.observe import observe_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, _ = observe_source(_src(snippet), input_sets=arg_sets)
    return obs


@needs_torch
@pytest.mark.dynamo
def test_dynamo_keeps_host_syncs_and_cpu_tensors_in_one_graph():
    snippet = """
        import torch
        from torch import nn

        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(16, 8)

            def forward(self, x):
                logits = self.head(x)
                probs = logits.softmax(-1).cpu()  # error: TL101
                best = logits.argmax(-1).to("cpu")  # error: TL101
                scale = logits.abs().to(device="cpu").clamp(min=1.0).to(x.device)  # error: TL101
                return probs, best, logits / scale
        """
    assert _found(snippet) == _marked(snippet)
    assert not _observe(snippet, ["f32[4,16]"]).breaks
    snippet = """
        import torch
        from torch import nn

        class Noisy(nn.Module):
            def forward(self, x):
                steps = torch.arange(x.shape[1])
                scale = torch.tensor(0.5)
                return x * scale + steps + torch.randn(x.shape)  # error: TL102
        """
    assert _found(snippet) == _marked(snippet)
    obs = _observe(snippet, ["f32[4,8]"])
    assert not obs.breaks and obs.graphs == 1


@needs_torch
@pytest.mark.dynamo
def test_dynamo_recompiles_when_a_per_call_scalar_changes():
    snippet = """
        import torch
        from torch import nn

        class Shift(nn.Module):
            def forward(self, x, step: int):  # error: TL103
                return x * step
        """
    assert _found(snippet) == _marked(snippet)
    obs = _observe(snippet, ["f32[4,16];1", "f32[4,16];2", "f32[4,16];3"])
    assert not obs.breaks
    assert obs.recompiles and "`step`" in obs.recompiles[0].words
