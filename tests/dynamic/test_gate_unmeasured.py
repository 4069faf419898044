"""Through dynamo: a target that failed is never counted as clean, and a gate over a count the
run did not measure leaves the default criterion (no unsuppressed finding) in force."""

from __future__ import annotations

import pytest
from support import run_cli, write

pytestmark = pytest.mark.dynamo

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        scale = y.abs().max().item()
        return y / scale
"""


def test_a_target_that_fails_to_load_is_not_counted_as_clean(project):
    pytest.importorskip("torch")
    write(project, "model.py", MODEL)
    write(
        project,
        "pyproject.toml",
        """
        [[tool.torchlint.targets]]
        target = "model.py:Missing"
        input = ["f32[2,8]"]
        max-graph-breaks = 5
        """,
    )
    result = run_cli(["check", "model.py"])
    assert result.exit_code == 2
    out = result.stdout
    assert "model.py:Missing: failed:" in out
    assert "1 target failed." in out and "in 1 target" not in out
    assert "graph breaks limit for model.py:Missing not checked: the target failed" in out


def test_a_cudagraph_skip_limit_without_reduce_overhead_does_not_pass_a_break(project):
    pytest.importorskip("torch")
    write(project, "model.py", MODEL)
    args = ["check", "model.py", "--target", "model.py:Net", "--input", "f32[2,8]"]
    plain = run_cli(args)
    assert plain.exit_code == 1 and "confirmed by dynamo" in plain.stdout  # the break dynamo hit
    gated = run_cli(args + ["--max-cudagraph-skips", "0"])
    assert "CUDA-graph skip limit not checked: no target ran with --mode reduce-overhead" in gated.stdout
    assert "1 unsuppressed finding: a limit was not checked" in gated.stdout
    assert gated.exit_code == 1
    # the graph-break limit dynamo measured decides on its own
    counted = run_cli(args + ["--max-graph-breaks", "1"])
    assert counted.exit_code == 0, counted.stdout
