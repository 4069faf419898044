"""Helpers shared by the test modules (import them as `from support import ...`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from torchlint.cli import main

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"


def run_cli(args, cwd=None):
    """Run `torchlint ARGS` in-process; returns click's Result (exit_code, stdout, stderr)."""
    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def run_json(args, cwd=None):
    result = run_cli(list(args) + ["--format", "json"], cwd=cwd)
    return result.exit_code, json.loads(result.stdout)


def run_subprocess(args, cwd=None, env=None, timeout=120):
    """Run `python -m torchlint ARGS` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "torchlint", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path
