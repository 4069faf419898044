"""`torchlint run` times a real program's breaks and ranks the expensive one first."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.dynamo

PROGRAM = textwrap.dedent(
    """
    import torch

    torch.set_num_threads(1)
    LOG = open("serve.log", "w")


    @torch.compiler.disable
    def slow_postprocess(scores):
        total = 0.0
        for i in range(30000):  # Python work per call, far more than a log line
            total += (i % 7) * 0.5
        return scores + total


    def score(x):
        h = torch.relu(x @ x.T)
        print("batch", file=LOG)  # cheap break
        h = h * 2
        h = slow_postprocess(h)  # expensive break
        return h.sum()


    compiled = torch.compile(score, backend="eager")
    x = torch.randn(16, 16)
    for _ in range(60):
        compiled(x)
    """
)


def test_run_reports_cost_per_break_and_ranks_the_expensive_first(tmp_path):
    (tmp_path / "serve.py").write_text(PROGRAM)
    out = tmp_path / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchlint",
            "run",
            "--no-static",
            "--exit-zero",
            "--format",
            "json",
            "-o",
            str(out),
            "serve.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    lines = PROGRAM.splitlines()
    cheap = next(i for i, s in enumerate(lines) if "cheap break" in s) + 1
    dear = next(i for i, s in enumerate(lines) if "expensive break" in s) + 1
    by_line = {f["line"]: f for f in report["findings"] if f["name"] == "graph-break"}
    assert by_line[dear]["cost_frame"] == "score" and by_line[dear]["cost_calls"] > 10
    assert by_line[dear]["cost_ms"] > 10 * by_line[cheap]["cost_ms"]  # ~30000 loop steps vs one line
    assert by_line[dear]["cost_share"] > 0.5
    (frame,) = report["targets"][0]["costs"]
    assert frame["frame"] == "score" and frame["p95_ms"] >= frame["p50_ms"] > 0

    text = subprocess.run(
        [sys.executable, "-m", "torchlint", "run", "--no-static", "--exit-zero", "serve.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert f"fix this first: serve.py:{dear}, " in text
