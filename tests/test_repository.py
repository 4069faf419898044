"""The repository's own upkeep: the version lives in one place, the project's pre-commit hooks
run the tools of the development environment, offline."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

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
    got = subprocess.run([sys.executable, "-m", "torchlint", "--version"], capture_output=True, text=True,
                         timeout=60)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == f"torchlint, version {torchlint.__version__}"
