"""[tool.torchlint] discovery, validation and command-line overrides."""
from __future__ import annotations

import pytest

from support import run_cli, run_json, write
from torchlint.config import ConfigError, load_settings, parse_table

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        print(x.shape)
        return x * x.sum().item()
"""


def test_config_found_from_working_directory_upward(project):
    write(project, "pyproject.toml", '[tool.torchlint]\nignore = ["TL004"]\n')
    write(project, "src/pkg/model.py", MODEL)
    code, report = run_json(["check", "."], cwd=project / "src")
    assert [f["rule"] for f in report["findings"]] == ["TL001"]


def test_cli_overrides_config(project):
    write(project, "pyproject.toml", '[tool.torchlint]\nselect = ["TL004"]\n')
    write(project, "model.py", MODEL)
    _, report = run_json(["check"])
    assert [f["rule"] for f in report["findings"]] == ["TL004"]
    _, report = run_json(["check", "--select", "TL001"])
    assert [f["rule"] for f in report["findings"]] == ["TL001"]


def test_per_file_ignores_and_exclude(project):
    write(project, "pyproject.toml", """
[tool.torchlint]
per-file-ignores = { "legacy/*.py" = ["TL001", "TL004"] }
exclude = ["generated/*"]
""")
    write(project, "legacy/old.py", MODEL)
    write(project, "generated/gen.py", MODEL)
    write(project, "model.py", MODEL)
    _, report = run_json(["check"])
    assert sorted({f["path"] for f in report["findings"]}) == ["model.py"]
    assert report["summary"]["files"] == 2


def test_explicit_config_file(project):
    write(project, "ci.toml", '[tool.torchlint]\nignore = ["TL0"]\n')
    write(project, "model.py", MODEL)
    assert run_cli(["check", "--config", "ci.toml"]).exit_code == 0
    result = run_cli(["check", "--config", "missing.toml"])
    assert result.exit_code == 2
    assert "missing.toml: config file not found" in result.stderr


@pytest.mark.parametrize(
    "body, words",
    [
        ('selekt = ["TL001"]', "unknown key `selekt`"),
        ('select = "TL001x"', "`TL001x` is not a rule code"),
        ("select = 3", "expected a list of strings"),
        ("max-graph-breaks = -1", "max-graph-breaks: expected a non-negative integer"),
        ('max-graph-breaks = "2"', "max-graph-breaks: expected a non-negative integer"),
        ("per-file-ignores = 1", "per-file-ignores: expected a table"),
        ("timeout = 0", "timeout: expected a positive number"),
        ("[[tool.torchlint.targets]]\ninput = ['f32[2]']", "missing required key `target`"),
        ("[[tool.torchlint.targets]]\ntarget = 'm.py:Net'\ninptu = ['f32[2]']", "unknown key `inptu`"),
        ("[[tool.torchlint.targets]]\ntarget = 'm.py:Net'\ntrain = 'yes'", "train: expected true or false"),
    ],
)
def test_bad_config_is_an_error_naming_the_key(project, body, words):
    write(project, "pyproject.toml", "[tool.torchlint]\n" + body + "\n")
    write(project, "model.py", MODEL)
    result = run_cli(["check"])
    assert result.exit_code == 2
    assert words in result.stderr
    assert "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr


def test_broken_toml_is_an_error_not_a_default(project):
    write(project, "pyproject.toml", "[tool.torchlint\nselect = [\n")
    write(project, "model.py", MODEL)
    result = run_cli(["check"])
    assert result.exit_code == 2
    assert "pyproject.toml" in result.stderr and "TOML" in result.stderr


def test_pyproject_without_torchlint_table_is_skipped_upward(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.torchlint]\nignore = ["TL001"]\n')
    write(tmp_path, "sub/pyproject.toml", '[project]\nname = "x"\n')
    settings = load_settings(start=str(tmp_path / "sub"))
    assert settings.ignore == ["TL001"]


def test_rule_selection_by_prefix_and_all():
    s = parse_table({"select": ["ALL"], "ignore": ["TL00"]}, "pyproject.toml")
    assert s.enabled_rules(["TL001", "TL011", "TL101"]) == ["TL011", "TL101"]
    with pytest.raises(ConfigError):
        parse_table({"select": ["E501"]}, "pyproject.toml")


def test_bad_code_on_the_command_line(project):
    write(project, "model.py", MODEL)
    result = run_cli(["check", "--select", "TL001,E501"])
    assert result.exit_code == 2
    assert "--select: `E501` is not a rule code" in result.stderr
