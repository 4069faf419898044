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
    write(
        project,
        "pyproject.toml",
        """
[tool.torchlint]
per-file-ignores = { "legacy/*.py" = ["TL001", "TL004"] }
exclude = ["generated/*"]
""",
    )
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
        ("cost-calls = -1", "cost-calls: expected a non-negative integer"),
        ("[[tool.torchlint.targets]]\ntarget = 'm.py:Net'\ncost-calls = 'many'", "cost-calls: expected an integer"),
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


@pytest.mark.parametrize(
    "option, value",
    [("--select", "TL5"), ("--ignore", "TL04"), ("--extend-select", "TL2"), ("--extend-ignore", "TL099")],
)
def test_a_code_that_matches_no_rule_is_an_error_naming_the_option(project, option, value):
    write(project, "model.py", MODEL)
    result = run_cli(["check", option, f"TL001,{value}"])
    assert result.exit_code == 2
    assert (
        result.stderr.strip() == f"torchlint: error: {option}: `{value}` matches no rule (see `torchlint rules --all`)"
    )


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select", "extend-ignore"])
def test_a_config_code_that_matches_no_rule_is_an_error_naming_the_key(key):
    with pytest.raises(ConfigError, match=rf"\[tool.torchlint\] {key}: `TL5` matches no rule"):
        parse_table({key: ["TL0", "TL5"]}, "pyproject.toml")
    with pytest.raises(ConfigError, match=r"per-file-ignores.tests/\*: `TL04` matches no rule"):
        parse_table({"per-file-ignores": {"tests/*": ["TL04"]}}, "pyproject.toml")


def test_every_rule_code_is_known_without_importing_the_rules():
    from torchlint.config import rule_codes
    from torchlint.rules import rules_by_code

    assert rule_codes() == sorted(rules_by_code())


def test_the_api_validates_select_and_ignore(project):
    import torchlint

    write(project, "model.py", MODEL)
    with pytest.raises(ConfigError, match=r"select: `TL5` matches no rule"):
        torchlint.check(["model.py"], select=["TL5"])
    with pytest.raises(ConfigError, match="`FOO` is not a rule code"):
        torchlint.check(["model.py"], ignore="FOO")
    assert [f.rule for f in torchlint.check(["model.py"], ignore=["tl004"]).findings] == ["TL001"]


def test_extend_select_and_extend_ignore_add_to_the_selection(project):
    write(project, "pyproject.toml", '[tool.torchlint]\nextend-ignore = ["TL004"]\n')
    write(project, "model.py", MODEL)
    _, report = run_json(["check"])
    assert [f["rule"] for f in report["findings"]] == ["TL001"]  # default select, minus TL004
    _, report = run_json(["check", "--extend-ignore", "TL001"])
    assert report["findings"] == []
    _, report = run_json(["check", "--ignore", "", "--extend-select", "TL1"])  # --ignore '' clears ignore
    assert [f["rule"] for f in report["findings"]] == ["TL001"]  # extend-ignore still applies
    # --select replaces select and the config's extend-select, as in ruff
    write(project, "pyproject.toml", '[tool.torchlint]\nselect = ["TL001"]\nextend-select = ["TL004"]\n')
    _, report = run_json(["check"])
    assert sorted(f["rule"] for f in report["findings"]) == ["TL001", "TL004"]
    _, report = run_json(["check", "--select", "TL001"])
    assert [f["rule"] for f in report["findings"]] == ["TL001"]
    _, report = run_json(["check", "--select", "TL001", "--extend-select", "TL004"])
    assert sorted(f["rule"] for f in report["findings"]) == ["TL001", "TL004"]


def test_every_config_problem_is_reported_at_once(project):
    write(
        project,
        "pyproject.toml",
        """
[tool.torchlint]
selekt = ["TL001"]
select = ["TL5"]
ignore = "E501"
timeout = 0
per-file-ignores = { "a/*" = ["TL04"], "b/*" = ["TL001"] }

[[tool.torchlint.targets]]
inptu = ["f32[2]"]
train = "yes"
""",
    )
    write(project, "model.py", MODEL)
    result = run_cli(["check"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith("torchlint: error: ") and "pyproject.toml" in line for line in lines)
    expected = [
        "unknown key `selekt`",
        "select: `TL5` matches no rule",
        "ignore: `E501` is not a rule code",
        "timeout: expected a positive number",
        "per-file-ignores.a/*: `TL04` matches no rule",
        "targets[0]: unknown key `inptu`",
        "targets[0].train: expected true or false",
        "targets[0]: missing required key `target`",
    ]
    assert len(lines) == len(expected), lines
    for line, words in zip(lines, expected):
        assert words in line


def test_config_is_found_from_the_checked_path_not_only_the_working_directory(tmp_path, monkeypatch):
    write(
        tmp_path,
        "myproj/pyproject.toml",
        """
[tool.torchlint]
ignore = ["TL004"]

[[tool.torchlint.targets]]
target = "myproj/model.py:Net"
input = ["f32[2,4]"]
""",
    )
    write(tmp_path, "myproj/myproj/model.py", MODEL)
    monkeypatch.chdir(tmp_path)
    from torchlint.config import config_start

    settings = load_settings(start=config_start(["myproj/myproj"]))
    assert settings.source == str(tmp_path / "myproj" / "pyproject.toml")
    assert settings.targets == [{"target": "myproj/model.py:Net", "input": ["f32[2,4]"]}]
    assert settings.root == str(tmp_path / "myproj")  # targets are resolved against it
    with_baseline = parse_table({"baseline": "ci/baseline.json"}, str(tmp_path / "myproj" / "pyproject.toml"))
    assert with_baseline.baseline == str(tmp_path / "myproj" / "ci" / "baseline.json")
    _, report = run_json(["check", "myproj/myproj", "--no-dynamic"])
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [("myproj/myproj/model.py", "TL001")]
    # --config still wins over the discovered file
    write(tmp_path, "other.toml", '[tool.torchlint]\nignore = ["TL001"]\n')
    _, report = run_json(["check", "myproj/myproj", "--config", "other.toml"])
    assert [f["rule"] for f in report["findings"]] == ["TL004"]
    # from the parent folder, with no config above the working directory: the checked path's applies
    _, report = run_json(["check", "myproj/myproj/model.py", "--no-dynamic"])
    assert [f["rule"] for f in report["findings"]] == ["TL001"]


@pytest.mark.dynamo
def test_targets_of_a_config_found_from_the_checked_path_run_from_its_folder(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    write(
        tmp_path,
        "myproj/pyproject.toml",
        """
[tool.torchlint]
[[tool.torchlint.targets]]
target = "myproj/model.py:Net"
input = ["f32[2,4]"]
""",
    )
    write(tmp_path, "myproj/myproj/model.py", MODEL)
    monkeypatch.chdir(tmp_path)
    _, report = run_json(["check", "myproj/myproj"])
    assert report["errors"] == []
    assert [t["target"] for t in report["targets"]] == ["myproj/model.py:Net"]
    assert {f["source"] for f in report["findings"]} == {"both"}
