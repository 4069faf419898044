"""The `torchlint check` contract: output, exit codes, errors, options (static pass)."""

from __future__ import annotations

import json
import sys

from support import FIXTURES, run_cli, run_json, run_subprocess, write

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

CLEAN = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2
"""


def test_text_report_shows_location_code_source_and_fix(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "model.py"])
    assert result.exit_code == 1
    out = result.stdout
    assert "model.py:12:17: TL001 tensor-item" in out
    assert "scale = y.abs().max().item()" in out  # the source line
    assert "^" * len("y.abs().max().item()") in out  # the span marked
    assert "fix:" in out
    assert "Found 1 potential graph break in 1 file (TL001 × 1)" in out


def test_json_contract(project):
    write(project, "model.py", MODEL)
    code, report = run_json(["check", "model.py"])
    assert code == 1
    assert report["version"] == 1
    assert report["torch_version"] is None
    assert report["summary"] == {
        "files": 1,
        "findings": 1,
        "graph_breaks": None,
        "graph_break_hits": None,
        "graphs": None,
        "recompiles": None,
        "errors": 0,
        "files_with_findings": 1,
    }
    (f,) = report["findings"]
    assert {
        k: f[k]
        for k in (
            "rule",
            "name",
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "source",
            "gb_code",
            "region",
            "target",
        )
    } == {
        "rule": "TL001",
        "name": "tensor-item",
        "path": "model.py",
        "line": 12,
        "column": 17,
        "end_line": 12,
        "end_column": 37,
        "source": "static",
        "gb_code": None,
        "region": "Net.forward",
        "target": None,
    }
    assert f["message"] and f["suggestion"]
    assert report["errors"] == [] and report["targets"] == []


def test_clean_file_exits_zero(project):
    write(project, "model.py", CLEAN)
    result = run_cli(["check", "model.py"])
    assert result.exit_code == 0
    assert "All clear" in result.stdout


def test_default_path_is_cwd_and_walk_skips_venvs(project):
    write(project, "pkg/model.py", MODEL)
    write(project, ".venv/lib/site.py", MODEL)
    write(project, "build/lib/model.py", MODEL)
    write(project, "env/lib/python3.11/site-packages/x.py", MODEL)
    code, report = run_json(["check"])
    assert [f["path"] for f in report["findings"]] == ["pkg/model.py"]
    assert report["summary"]["files"] == 1


def test_syntax_error_in_one_file_does_not_stop_the_others(project):
    write(project, "a_bad.py", "import torch\n\ndef broken(:\n    pass\n")
    write(project, "b_model.py", MODEL)
    code, report = run_json(["check", "."])
    assert code == 2
    assert [f["path"] for f in report["findings"]] == ["b_model.py"]
    (err,) = report["errors"]
    assert err["path"] == "a_bad.py"
    assert err["message"].startswith("syntax error at line 3")
    assert "\n" not in err["message"]


def test_binary_and_undecodable_files_are_errors(project):
    (project / "bin.py").write_bytes(b"\x00\x01\x02torch")
    (project / "latin.py").write_bytes(b"import torch\nx = '\xe9'\n")
    write(project, "model.py", MODEL)
    code, report = run_json(["check"])
    assert code == 2
    errors = {e["path"]: e["message"] for e in report["errors"]}
    assert "binary" in errors["bin.py"]
    assert "cannot decode" in errors["latin.py"]
    assert len(report["findings"]) == 1


TARGET_CONFIG = """
[[tool.torchlint.targets]]
target = "model.py:Net"
input = ["f32[2,8]"]
"""


def test_a_missing_path_is_a_usage_error_before_any_work(project, monkeypatch):
    """One line naming it, exit 2, and neither pass starts: no declared target runs first."""
    import torchlint.dynamic.target_pass
    import torchlint.pipeline

    source = MODEL.replace("        return y / scale", "        print(y)\n        return y / scale")
    write(project, "model.py", source)  # a print: --fix would remove it
    write(project, "pyproject.toml", TARGET_CONFIG)
    ran = []
    monkeypatch.setattr(torchlint.pipeline, "run_check", lambda *a, **k: ran.append("check"))
    monkeypatch.setattr(torchlint.dynamic.target_pass, "run_dynamic", lambda *a, **k: ran.append("target"))
    for args in (
        ["check", "nope.py"],
        ["check", "model.py", "nope.py", "--format", "json"],
        ["check", "model.py", "nope.py", "--fix"],
        ["baseline", "nope.py"],
    ):
        result = run_cli(args)
        assert result.exit_code == 2, args
        assert result.stderr == "torchlint: error: nope.py: no such file or directory\n", args
        assert result.stdout == "", args
    assert ran == []
    assert "print(y)" in (project / "model.py").read_text()  # --fix wrote nothing either
    (project / "ran").unlink(missing_ok=True)
    watched = run_cli(["run", "--path", "nope.py", "--", sys.executable, "-c", "open('ran', 'w')"])
    assert watched.exit_code == 2 and "nope.py: no such file or directory" in watched.stderr
    assert not (project / "ran").exists()  # the program never started


def test_a_syntax_error_is_never_all_clear(project):
    write(project, "bad.py", "import torch\n\ndef broken(:\n    pass\n")
    result = run_cli(["check", "bad.py"])
    assert result.exit_code == 2
    assert "bad.py: error: syntax error at line 3" in result.stdout
    assert "All clear" not in result.stdout
    assert "No findings in what could be checked." in result.stdout
    assert "1 error (files or targets that could not be checked)." in result.stdout


GATE_LINE = "potential graph breaks (static pass; the dynamic pass did not run)"


def test_without_the_dynamic_pass_the_graph_break_gate_counts_static_breaks(project):
    write(project, "model.py", MODEL)
    for args in (["check", "--no-dynamic", "--max-graph-breaks", "0"], ["check", "--max-graph-breaks", "0"]):
        result = run_cli(args)
        assert result.exit_code == 1, args
        assert f"{GATE_LINE}: 1 > limit 0 (+1)" in result.stdout
    write(project, "pyproject.toml", "[tool.torchlint]\nmax-graph-breaks = 0\n")  # the README's sample
    assert run_cli(["check", "--no-dynamic"]).exit_code == 1
    passed = run_cli(["check", "--no-dynamic", "--max-graph-breaks", "1"])  # the gate decides, not findings
    assert passed.exit_code == 0 and f"{GATE_LINE}: 1 <= limit 1" in passed.stdout
    write(
        project,
        "model.py",
        MODEL.replace("y = self.fc(x)", "y = self.fc(x).cpu()").replace("scale = y.abs().max().item()", "scale = 2.0"),
    )
    warned = run_cli(["check", "--select", "ALL", "--max-graph-breaks", "0"])  # a TL101 warning: no break
    assert warned.exit_code == 0 and "TL101" in warned.stdout and f"{GATE_LINE}: 0 <= limit 0" in warned.stdout


def test_a_gate_over_a_count_not_measured_keeps_the_default_criterion(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "--max-recompiles", "5"])
    assert result.exit_code == 1
    assert "recompile limit not checked: the dynamic pass did not run" in result.stdout
    assert "1 unsuppressed finding: a limit was not checked" in result.stdout
    write(project, "pyproject.toml", TARGET_CONFIG + "max-graph-breaks = 5\n")  # a per-target limit
    hook = run_cli(["check", "--no-dynamic", "model.py"])
    assert hook.exit_code == 1
    assert "graph breaks limit for model.py:Net not checked: the dynamic pass did not run" in hook.stdout
    write(project, "model.py", CLEAN)
    assert run_cli(["check", "--no-dynamic", "model.py"]).exit_code == 0  # nothing found: passes


def test_select_ignore_and_exit_zero(project):
    write(project, "model.py", MODEL)
    assert run_cli(["check", "--ignore", "TL001"]).exit_code == 0
    assert run_cli(["check", "--select", "TL005"]).exit_code == 0
    assert run_cli(["check", "--select", "TL0"]).exit_code == 1
    assert run_cli(["check", "--exit-zero"]).exit_code == 0


def test_output_file_and_statistics(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "--statistics", "-o", "report.txt"])
    assert result.exit_code == 1
    assert result.stdout == ""
    text = (project / "report.txt").read_text()
    assert text == "    1  TL001       tensor-item\n"  # the table alone: no findings, no summary


def test_statistics_count_per_code_most_frequent_first_with_the_fixable_mark(project):
    write(
        project,
        "a.py",
        MODEL.replace("        return y / scale", "        print(y)\n        print(scale)\n        return y / scale"),
    )
    write(project, "b.py", MODEL)
    result = run_cli(["check", "--statistics"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["    2  TL001       tensor-item", "    2  TL004   [*] tensor-to-string"]
    write(project, "c.py", "import torch\nx = (\n")
    result = run_cli(["check", "--statistics"])
    assert result.exit_code == 2 and "c.py: error: syntax error" in result.stdout  # errors still shown


def test_summary_counts_the_files_with_findings_of_the_files_checked(project):
    write(project, "model.py", MODEL)
    write(project, "clean.py", CLEAN)
    write(project, "util.py", "x = 1\n")
    out = run_cli(["check"]).stdout
    assert "Found 1 potential graph break in 1 of 3 files (TL001 × 1)." in out
    _, report = run_json(["check"])
    assert report["summary"]["files"] == 3 and report["summary"]["files_with_findings"] == 1


def test_no_python_files_is_a_warning_and_exits_0_as_in_ruff(project):
    (project / "empty").mkdir()
    (project / "empty" / "notes.txt").write_text("not python\n")
    result = run_cli(["check", "empty"])
    assert result.exit_code == 0
    assert result.stderr == "torchlint: warning: No Python files found under the given path(s)\n"
    missing = run_cli(["check", "nowhere"])  # a path that does not exist stays an error
    assert missing.exit_code == 2 and "No Python files" not in missing.stderr


def test_quiet_prints_summary_only(project):
    write(project, "model.py", MODEL)
    out = run_cli(["check", "-q"]).stdout
    assert "model.py:12" not in out
    assert "Found 1 potential graph break" in out


def test_inline_suppressions(project):
    src = MODEL.replace("scale = y.abs().max().item()", "scale = y.abs().max().item()  # torchlint: ignore[TL001]")
    write(project, "a.py", src)
    write(project, "b.py", MODEL.replace(".item()", ".item()  # noqa: TL001"))
    write(project, "c.py", MODEL.replace(".item()", ".item()  # torchlint: ignore"))
    write(project, "d.py", MODEL.replace(".item()", ".item()  # torchlint: ignore[TL005]"))
    code, report = run_json(["check"])
    assert [f["path"] for f in report["findings"]] == ["d.py"]


def test_usage_errors_exit_2(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "--input", "f32[2]"])
    assert result.exit_code == 2
    assert "--input" in result.stderr
    assert run_cli(["check", "--format", "xml"]).exit_code == 2


def test_rule_and_rules_commands():
    result = run_cli(["rules"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("TL001  tensor-item")
    codes = [line.split()[0] for line in lines]
    assert codes == sorted(codes) and len(codes) >= 11
    page = run_cli(["rule", "TL001"])
    assert page.exit_code == 0
    assert "## What it does" in page.stdout and "## Use instead" in page.stdout
    unknown = run_cli(["rule", "TL999"])
    assert unknown.exit_code == 2
    by_name = run_cli(["rule", "tensor-item"])  # by name, as ruff's `ruff rule unused-import`
    assert by_name.exit_code == 0 and by_name.stdout == page.stdout
    assert run_cli(["rule", "tl001"]).stdout == page.stdout
    unknown = run_cli(["rule", "tensor-thing"])
    assert unknown.exit_code == 2 and "unknown rule `tensor-thing`" in unknown.stderr


def test_python_dash_m_works_the_same(tmp_path):
    write(tmp_path, "model.py", MODEL)
    proc = run_subprocess(["check", "model.py", "--format", "json"], cwd=tmp_path)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["findings"][0]["rule"] == "TL001"


def test_help_explains_options():
    out = run_cli(["check", "--help"]).stdout
    for option in (
        "--format",
        "--select",
        "--target",
        "--input-set",
        "--max-graph-breaks",
        "--baseline",
        "--exit-zero",
    ):
        assert option in out


def test_fixture_folder_static_report_is_stable():
    """Two runs over the fixtures give byte-identical JSON (deterministic order)."""
    a = run_cli(["check", str(FIXTURES), "--no-dynamic", "--format", "json"]).stdout
    b = run_cli(["check", str(FIXTURES), "--no-dynamic", "--format", "json"]).stdout
    assert a == b


def test_summary_counts_breaks_and_warnings_apart(project):
    write(project, "model.py", MODEL.replace("y = self.fc(x)", "y = self.fc(x).cpu()"))
    out = run_cli(["check", "--select", "ALL", "-q"]).stdout
    assert "Found 1 potential graph break and 1 performance warning in 1 file (TL001 × 1, TL101 × 1)." in out
    out = run_cli(["check", "--select", "TL1", "-q"]).stdout
    assert "Found 1 performance warning in 1 file (TL101 × 1)." in out


def test_stdin_filename_checks_stdin_under_that_name_with_its_config(project):
    write(project, "sub/pyproject.toml", '[tool.torchlint]\nignore = ["TL004"]\n')
    source = MODEL.lstrip("\n").replace("        y = self.fc(x)\n", "        y = self.fc(x)\n        print(y)\n")
    from click.testing import CliRunner

    from torchlint.cli import main

    def run(args):
        return CliRunner().invoke(main, args, input=source, catch_exceptions=False)

    result = run(["check", "--stdin-filename", "sub/pkg/model.py", "-", "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [(f["path"], f["rule"], f["line"]) for f in report["findings"]] == [("sub/pkg/model.py", "TL001", 13)]
    assert not (project / "sub" / "pkg").exists()  # nothing is read from, or written to, that path
    result = run(["check", "-"])  # no name: reported as `-`, the working directory's config
    assert result.exit_code == 1
    assert "-:12:9: TL004" in result.stdout and "-:13:17: TL001" in result.stdout
    assert run(["check", "--stdin-filename", "m.py", "model.py"]).exit_code == 2
    assert run(["check", "-", "--fix"]).exit_code == 2
    assert run(["check", "-", "--no-static"]).exit_code == 2
