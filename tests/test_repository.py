"""The repository's own upkeep: the version lives in one place, the project's pre-commit hooks
run the tools of the development environment, offline."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import lanes
import pytest

import torchlint

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once_and_reported_by_the_cli():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "torchlint.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", torchlint.__version__)
    assert importlib.metadata.version("torchlint") == torchlint.__version__
    got = subprocess.run([sys.executable, "-m", "torchlint", "--version"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == f"torchlint, version {torchlint.__version__}"


def test_the_projects_pre_commit_hooks_run_the_lanes_checks_offline():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text("utf-8"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local"  # nothing to download
    hooks = {h["id"]: h for h in repo["hooks"]}
    assert set(hooks) == {"ruff", "ruff-format", "mypy"}
    for hook in hooks.values():
        assert hook["language"] == "system" and hook["entry"].startswith(".venv/bin/"), hook
    tools = {h["entry"].split()[0].rsplit("/", 1)[1] + " " + " ".join(h["entry"].split()[1:2]) for h in hooks.values()}
    assert tools == {"ruff check", "ruff format", "mypy "}
    assert {" ".join(args[1:3]) for _, args in lanes.CHECKS} == {"ruff check", "ruff format", "mypy"}
    assert hooks["mypy"]["pass_filenames"] is False  # the package as configured, not one file alone
    got = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(REPO / ".pre-commit-config.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stdout + got.stderr
