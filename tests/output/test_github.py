"""`--format github`: one workflow command per annotation, exact lines, escaped as GitHub
Actions requires (`%`, CR, LF in data; also `:` and `,` in properties)."""

from __future__ import annotations

import io
import json
import shlex

import pytest
from readme_snippets import snippet
from support import run_cli, run_json, write

from torchlint.findings import FileError, Finding, Report, TargetResult
from torchlint.output import RenderOptions, render

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        s = x.sum().item()
        print(x)
        return x * s
"""


def github_lines(report: Report):
    buf = io.StringIO()
    render(report, "github", buf, RenderOptions())
    return buf.getvalue().splitlines()


def test_cli_github_lines(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "model.py", "--format", "github", "--select", "TL001,TL004"])
    assert result.exit_code == 1
    # the messages and fixes are the rules' own words, as the JSON report gives them
    item, prints = run_json(["check", "model.py", "--select", "TL001,TL004"])[1]["findings"]
    assert result.stdout.splitlines() == [
        "::error file=model.py,line=7,col=13,endLine=7,endColumn=27,title=TL001 tensor-item::"
        f"{item['message']}. Fix: {item['suggestion']}",
        "::error file=model.py,line=8,col=9,endLine=8,endColumn=17,title=TL004 tensor-to-string::"
        f"{prints['message']}. Fix: {prints['suggestion']}",
    ]


def test_clean_run_prints_nothing(project):
    write(
        project,
        "model.py",
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
    )
    result = run_cli(["check", "model.py", "--format", "github"])
    assert result.exit_code == 0 and result.stdout == ""


def test_escaping_warnings_errors_targets_and_gate():
    report = Report(
        files=1,
        dynamic_ran=True,
        findings=[
            Finding(
                rule=None,
                name="graph-break",
                path="a,b:c.py",
                line=3,
                column=5,
                end_line=4,
                end_column=1,
                message="graph break: 100% bad\r\nsecond line",
                suggestion="",
                source="dynamic",
                gb_code="GB0147",
            ),
            Finding(
                rule="TL199",
                name="host-sync",
                path="m.py",
                line=9,
                column=9,
                end_line=9,
                end_column=15,
                message="`.cpu()` syncs",
                suggestion="keep it on device",
                severity="warning",
            ),
        ],
        errors=[FileError("bad.py", "syntax error at line 2, column 7: invalid syntax")],
        targets=[TargetResult("m.py:Net", graphs=2, graph_breaks=1, recompiles=0)],
        gate_failures=["graph breaks: 1 > limit 0 (+1)"],
    )
    assert github_lines(report) == [
        "::error file=a%2Cb%3Ac.py,line=3,col=5,endLine=4,endColumn=1,title=GB0147 graph-break::"
        "graph break: 100%25 bad%0D%0Asecond line",
        "::warning file=m.py,line=9,col=9,endLine=9,endColumn=15,title=TL199 host-sync::"
        "`.cpu()` syncs. Fix: keep it on device",
        "::error file=bad.py,title=torchlint error::syntax error at line 2, column 7: invalid syntax",
        "::notice title=torchlint dynamo::m.py:Net: 1 graph-break site, 1 break hit, 2 graphs, 0 recompiles",
        "::error title=torchlint gate::graph breaks: 1 > limit 0 (+1)",
    ]


def _workflow_commands():
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (it comes with pre-commit)")
    workflow = yaml.safe_load(snippet("github-workflow"))
    return {
        job: [step["run"] for step in spec["steps"] if str(step.get("run", "")).startswith("torchlint ")]
        for job, spec in workflow["jobs"].items()
    }


def test_readme_workflow_static_job(project):
    commands = _workflow_commands()["static"]
    assert commands == [
        "torchlint check --no-dynamic --format github .",
        "torchlint check --no-dynamic --format sarif --exit-zero -o torchlint.sarif .",
    ]
    write(project, "model.py", MODEL)
    annotations, sarif = (run_cli(shlex.split(c)[1:]) for c in commands)
    assert annotations.exit_code == 1  # the job fails, the pull request shows the annotations
    assert [line.split("::")[1] for line in annotations.stdout.splitlines()] == [
        "error file=model.py,line=7,col=13,endLine=7,endColumn=27,title=TL001 tensor-item",
        "error file=model.py,line=8,col=9,endLine=8,endColumn=17,title=TL004 tensor-to-string",
    ]
    assert sarif.exit_code == 0  # --exit-zero: the upload step always gets its file
    results = json.loads((project / "torchlint.sarif").read_text("utf-8"))["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["TL001", "TL004"]


@pytest.mark.dynamo
def test_readme_workflow_dynamic_gate(project):
    pytest.importorskip("torch", reason="the dynamic job runs dynamo: torch is not installed")
    (command,) = _workflow_commands()["dynamic"]
    write(project, "model.py", MODEL)
    write(project, "pyproject.toml", '[[tool.torchlint.targets]]\ntarget = "model.py:Net"\ninput = ["f32[2,8]"]\n')
    result = run_cli(shlex.split(command)[1:])
    lines = result.stdout.splitlines()
    assert result.exit_code == 1, result.stdout + result.stderr
    assert (
        "::notice title=torchlint dynamo::model.py:Net: 2 graph-break sites, 2 breaks hit, 2 graphs, "
        "0 recompiles (eval, default compile mode)"
    ) in lines
    assert lines[-1] == "::error title=torchlint gate::graph breaks: 2 > limit 0 (+2)"
