"""The merged report's words for a static finding dynamo did not confirm: "not reached by
dynamo" when no target traced its line, "not confirmed" only when a target ran the line
without breaking there (the line is in a graph's node stack traces)."""

from __future__ import annotations

import json

import pytest
from support import run_cli, write

pytest.importorskip("torch")
pytestmark = pytest.mark.dynamo

MODELS = """
import torch
from torch import nn

torch._dynamo.config.capture_scalar_outputs = True  # .item() goes into the graph: no break


class Net(nn.Module):
    def forward(self, x):
        s = x.sum().item()
        return x * s


class Unused(nn.Module):
    def forward(self, x):
        return x * x.max().item()
"""


def test_ran_without_breaking_and_not_reached_are_told_apart(project):
    write(project, "models.py", MODELS)
    args = ["check", "models.py", "--target", "models.py:Net", "--input", "f32[2,4]"]
    out = run_cli(args).stdout
    assert "models.py:9:13: TL001 tensor-item" in out
    assert "(potential graph break, not confirmed by dynamo (ran without breaking))" in out
    assert "models.py:15:20: TL001 tensor-item" in out
    assert "(potential graph break, not reached by dynamo)" in out
    assert (
        "Found 2 findings in 1 file: 0 confirmed by dynamo, 1 not confirmed (ran without breaking), "
        "1 not reached by dynamo, 0 found by dynamo on a line a rule flags, 0 found only by dynamo; "
        "0 graph-break sites, 0 breaks hit in 1 target."
    ) in out
    report = json.loads(run_cli(args + ["--format", "json"]).stdout)
    assert [t["graph_breaks"] for t in report["targets"]] == [0]
    assert [(f["line"], f["dynamo"]) for f in report["findings"]] == [(9, "ran_without_breaking"), (15, "not_reached")]
    static_only = json.loads(run_cli(args + ["--format", "json", "--no-dynamic"]).stdout)
    assert all("dynamo" not in f for f in static_only["findings"])


HANDED_OVER = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        n = int(x.sum().item())
        return x.repeat(n, 1)
"""


def test_a_recompile_of_a_value_handed_over_at_a_break_names_the_break_and_its_rule(project):
    """`.item()` breaks the graph and hands a Python number to the code after the break; a new
    value recompiles that code. The cause names the break's line and the rule flagging it."""
    write(project, "m.py", HANDED_OVER)
    sets = ["--input-set", "f32[2,4]:0..0.1", "--input-set", "f32[2,4]:0.2..0.3", "--input-set", "f32[2,4]:0.4..0.5"]
    out = run_cli(["check", "m.py", "--target", "m.py:Net", *sets]).stdout
    assert "the value handed over at a graph break was specialised to" in out, out
    assert "; handed over at the graph break at m.py:7 (TL001)" in out, out
    report = json.loads(run_cli(["check", "m.py", "--target", "m.py:Net", *sets, "--format", "json"]).stdout)
    causes = report["targets"][0]["recompile_causes"]
    assert [c["breaks"] for c in causes] == [[{"path": "m.py", "line": 7}]], causes
