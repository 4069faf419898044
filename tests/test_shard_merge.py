"""`check --shard K/N` runs every N-th declared target; `merge` combines the shards' reports."""

from __future__ import annotations

import json

import pytest
from support import run_cli, run_subprocess, write

MODELS = """
    import torch


    class Printer(torch.nn.Module):
        def forward(self, x):
            print("tracing")
            return x + 1


    class Scalar(torch.nn.Module):
        def forward(self, x):
            return x * x.sum().item()


    class Clean(torch.nn.Module):
        def forward(self, x):
            return x * 2
"""

CONFIG = """
    [[tool.torchlint.targets]]
    target = "models.py:Printer"
    input = ["f32[2,4]"]

    [[tool.torchlint.targets]]
    target = "models.py:Scalar"
    input = ["f32[2,4]"]

    [[tool.torchlint.targets]]
    target = "models.py:Clean"
    input = ["f32[2,4]"]
"""


def comparable(report):
    return (
        sorted((f["path"], f["line"], f["rule"], f["source"], f["target"]) for f in report["findings"]),
        sorted(t["target"] for t in report["targets"]),
        report["summary"],
    )


@pytest.mark.dynamo
def test_shards_merged_equal_one_run(project):
    pytest.importorskip("torch")
    write(project, "models.py", MODELS)
    write(project, "pyproject.toml", "[tool.torchlint]\n" + CONFIG.replace("\n    [[", "\n[[").replace("\n    ", "\n"))
    reports = []
    for k in (1, 2):
        out = project / f"shard-{k}.json"
        done = run_subprocess(["check", "--shard", f"{k}/2", "--format", "json", "-o", str(out), "."], cwd=project)
        assert done.returncode == 1, done.stderr
        reports.append(str(out))
    one = json.loads(run_subprocess(["check", "--format", "json", "."], cwd=project).stdout)
    first = json.loads(open(reports[0]).read())
    assert sorted(t["target"] for t in first["targets"]) == ["models.py:Clean", "models.py:Printer"]
    merged = run_cli(["merge", *reports, "--format", "json"], cwd=project)
    assert merged.exit_code == 1
    assert comparable(json.loads(merged.stdout)) == comparable(one)
    gated = run_cli(["merge", *reports, "--max-graph-breaks", "1"], cwd=project)
    assert gated.exit_code == 1 and "graph breaks: 2 > limit 1 (+1)" in gated.stdout
    assert run_cli(["merge", *reports, "--max-graph-breaks", "2"], cwd=project).exit_code == 0


def test_merge_rejects_what_is_not_a_report(project):
    write(project, "bad.json", '{"hello": 1}')
    result = run_cli(["merge", "bad.json"], cwd=project)
    assert result.exit_code == 2 and "bad.json: not a torchlint JSON report" in result.stderr
    result = run_cli(["merge", "missing.json"], cwd=project)
    assert result.exit_code == 2 and "missing.json: cannot read it" in result.stderr


@pytest.mark.parametrize("text", ["0/2", "3/2", "a/b", "1"])
def test_bad_shard_is_a_usage_error(project, text):
    write(project, "m.py", "x = 1\n")
    result = run_cli(["check", "--shard", text, "m.py"], cwd=project)
    assert result.exit_code == 2 and "--shard" in result.stderr


def test_readme_matrix_workflow_shards_cover_every_target():
    yaml = pytest.importorskip("yaml")
    from readme_snippets import snippet

    jobs = yaml.safe_load(snippet("github-matrix"))["jobs"]
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    runs = [s["run"] for s in jobs["shard"]["steps"] if "run" in s]
    assert any(r.startswith("torchlint check --shard ${{ matrix.shard }}/" + f"{len(shards)} ") for r in runs)
    (merge,) = [s["run"] for s in jobs["gate"]["steps"] if str(s.get("run", "")).startswith("torchlint merge")]
    assert merge.split()[2 : 2 + len(shards)] == [f"shard-{k}.json" for k in shards]
    from torchlint.shards import shard

    targets = list(range(10))
    assert sorted(t for k in shards for t in shard(targets, k, len(shards))) == targets
