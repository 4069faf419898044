"""The Python API: torchlint.check(paths) and torchlint.explain(model, *args) return the
report the CLI prints, with the same Finding objects; Report.to_json() is `--format json`."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from readme_snippets import snippet
from support import run_json, write

import torchlint
from torchlint.findings import Finding, Report

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        peak = y.abs().max().item()
        print("peak", peak)
        return y / peak


class Clean(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def scale(x):
    return x * x.shape[0]
"""


def test_check_returns_the_cli_report(project):
    write(project, "model.py", MODEL)
    report = torchlint.check("model.py")
    assert isinstance(report, Report)
    assert all(isinstance(f, Finding) for f in report.findings)
    assert [(f.rule, f.line) for f in report.findings] == [("TL001", 12), ("TL004", 13)]
    _, cli = run_json(["check", "model.py"])
    assert json.loads(report.to_json()) == cli


def test_check_options(project):
    write(project, "pkg/model.py", MODEL)
    assert [f.rule for f in torchlint.check(["pkg"], select=["TL004"]).findings] == ["TL004"]
    assert [f.rule for f in torchlint.check(project / "pkg", ignore="TL004").findings] == ["TL001"]
    missing = torchlint.check(["nope.py"])
    assert missing.findings == [] and [e.path for e in missing.errors] == ["nope.py"]


def test_check_refuses_what_the_cli_refuses(project):
    from support import run_cli

    from torchlint.config import ConfigError

    write(project, "pkg/model.py", MODEL)
    with pytest.raises(ConfigError, match="`E501` is not a rule code or prefix"):
        torchlint.check(["pkg"], select=["E501"])
    with pytest.raises(ConfigError, match="`F401` is not a rule code or prefix"):
        torchlint.check(["pkg"], ignore="TL004, F401")
    cli = run_cli(["check", "pkg", "--no-dynamic", "--select", "E501"])
    assert cli.exit_code == 2 and "`E501` is not a rule code or prefix" in cli.output
    assert [f.rule for f in torchlint.check(["pkg"], select="tl004").findings] == ["TL004"]


def test_check_is_the_api_function_and_imports_no_torch(tmp_path):
    """`torchlint.check` is :func:`torchlint.api.check`, however it is reached, and the static
    pass it runs imports neither torch nor the pipeline before it is called."""
    write(tmp_path, "model.py", MODEL)
    script = (
        "import sys\n"
        "import torchlint\n"
        "assert sys.modules.get('torch') is None and 'torchlint.pipeline' not in sys.modules\n"
        "{first}\n"
        "import torchlint.api\n"
        "assert check is torchlint.check is torchlint.api.check\n"
        "print(len(check('model.py').findings), sys.modules.get('torch') is not None)\n"
    )
    for first in ("check = torchlint.check", "from torchlint import check"):
        out = subprocess.run(
            [sys.executable, "-c", script.format(first=first)], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["2", "False"]  # static: torch never imported


def _load(path):
    spec = importlib.util.spec_from_file_location(f"api_model_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def model_module(project):
    pytest.importorskip("torch", reason="torchlint.explain needs torch")
    return _load(write(project, "model.py", MODEL))


@pytest.mark.dynamo
def test_explain_reports_breaks_with_rules_and_fixes(model_module):
    import torch

    report = torchlint.explain(model_module.Net(), torch.randn(2, 8))
    assert report.dynamic_ran and report.torch_version == torch.__version__
    assert report.graph_breaks == 2
    (target,) = report.targets
    assert target.target == "model.py:Net" and target.graph_breaks == 2
    item, printed = report.findings
    assert (item.path, item.line, item.rule, item.source, item.gb_code) == ("model.py", 12, "TL001", "both", "GB0124")
    assert item.reason and item.suggestion and item.source_line.strip() == "peak = y.abs().max().item()"
    assert (printed.line, printed.rule, printed.source) == (13, "TL004", "both")
    doc = json.loads(report.to_json())
    assert doc["summary"]["graph_breaks"] == 2 and doc["targets"][0]["target"] == "model.py:Net"
    assert [f["rule"] for f in doc["findings"]] == ["TL001", "TL004"]


@pytest.mark.dynamo
def test_explain_clean_model_and_recompiles(model_module):
    import torch

    clean = torchlint.explain(model_module.Clean(), torch.randn(2, 8))
    assert clean.findings == [] and clean.graph_breaks == 0 and clean.targets[0].graphs == 1
    shapes = torchlint.explain(model_module.scale, calls=[(torch.randn(2, 8),), (torch.randn(3, 8),)])
    assert shapes.recompiles == 1 and shapes.graph_breaks == 0
    (reason,) = shapes.targets[0].recompile_reasons
    assert "changed from 2 to 3" in reason.reason
    with pytest.raises(TypeError, match="not both"):
        torchlint.explain(model_module.scale, torch.randn(2), calls=[(torch.randn(2),)])


ENCODER = """
import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        print("encoded", y.shape)
        return y
"""


@pytest.mark.dynamo
def test_readme_api_snippet(project, monkeypatch, capsys):
    pytest.importorskip("torch", reason="the README's API snippet runs torchlint.explain")
    write(project, "src/model.py", MODEL)
    write(project, "mymodels.py", ENCODER)
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.delitem(sys.modules, "mymodels", raising=False)
    exec(compile(snippet("api"), "README.md", "exec"), {"__name__": "__readme__"})
    sys.modules.pop("mymodels", None)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("src/model.py:12: TL001 `.item()` copies a tensor to Python")
    assert out[1].startswith("src/model.py:13: TL004 ")
    assert "encoded torch.Size([2, 8])" in out  # the model ran for real
    assert out[-2] == "1 [(8, 'TL004', 'both')]"
    assert out[-1] == "{"
