"""`check --target` times a target's warm calls and ranks its expensive break first."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.dynamo

MODEL = textwrap.dedent(
    """
    import torch

    LOG = open("serve.log", "w")


    @torch.compiler.disable
    def slow_postprocess(scores):
        total = 0.0
        for i in range(30000):  # Python work per call, far more than a log line
            total += (i % 7) * 0.5
        return scores + total


    class Scorer(torch.nn.Module):
        def announce(self, x):
            print("batch", x.shape[0], file=LOG)  # cheap break

        def forward(self, x):
            h = torch.relu(x @ x.T)
            self.announce(x)  # no graph between the two breaks: each still gets its own time
            h = slow_postprocess(h)  # expensive break
            return h.sum()
    """
)


def _check(tmp_path, *more):
    done = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "--no-static", "--exit-zero", "--format", "json"]
        + ["--target", "scorer.py:Scorer", "--input", "f32[16,16]", *more, "scorer.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_check_target_reports_cost_per_break_and_cost_calls_turns_it_off(tmp_path):
    (tmp_path / "scorer.py").write_text(MODEL)
    lines = MODEL.splitlines()
    cheap = next(i for i, s in enumerate(lines) if "cheap break" in s) + 1
    dear = next(i for i, s in enumerate(lines) if "expensive break" in s) + 1

    report = _check(tmp_path, "--cost-calls", "12")
    by_line = {f["line"]: f for f in report["findings"] if f["name"] == "graph-break"}
    assert by_line[dear]["cost_frame"] == "forward" and by_line[dear]["cost_calls"] == 12
    # the print is in a helper: its time, taken at forward's call line, lands on its finding
    assert by_line[cheap]["cost_frame"] == "forward" and by_line[cheap]["cost_ms"] > 0
    assert by_line[dear]["cost_ms"] > 10 * by_line[cheap]["cost_ms"]  # ~30000 loop steps vs one line
    assert by_line[dear]["cost_share"] > 0.5
    (frame,) = report["targets"][0]["costs"]
    assert frame["frame"] == "forward" and frame["timed_calls"] == 12 and frame["p95_ms"] >= frame["p50_ms"] > 0

    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\ncost-calls = 0\n")
    report = _check(tmp_path)
    assert report["summary"]["graph_breaks"] == 2
    assert not any("cost_ms" in f for f in report["findings"]) and "costs" not in report["targets"][0]


def test_a_target_that_fails_on_a_later_call_keeps_its_observation_and_what_was_timed():
    import torch

    from torchlint.dynamic.observe import observe

    calls = []

    @torch.compiler.disable
    def count():
        calls.append(1)
        if len(calls) > 6:  # the observation's call, two warm-up calls, three timed, then it fails
            raise RuntimeError("only six calls")

    def step(x):
        x = x + 1
        count()
        return x * 2

    obs = observe(step, [[torch.ones(3)]], user_files={__file__}, cost_calls=20)
    assert len(obs.breaks) == 1 and len(calls) == 7
    (record,) = obs.costs
    assert record["frame"] == "step" and record["timed"] == 3
