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


# -- packages written with their breaks marked ---------------------------------------------
# A test package marks each line where dynamo breaks with `# graph break` and names its
# compiled target in `oracle.json`; benchmarks/project.py reads both (the truth benchmark).
def write_package(root: Path, files: dict[str, str], oracle: list[dict]) -> Path:
    for name, text in files.items():
        write(root, name, text)
    write(root, "oracle.json", json.dumps(oracle))
    return root


def static_found(folder: Path, *extra: str) -> set[tuple[str, int, str]]:
    """(path, line, rule) of each finding of ``torchlint check .`` (static pass) in ``folder``."""
    result = run_cli(["check", ".", "--no-dynamic", "--format", "json", "--exit-zero", *extra], cwd=folder)
    assert result.exit_code == 0, result.output
    return {(f["path"].replace(os.sep, "/"), f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]}


def _bench():
    sys.path.insert(0, str(REPO / "benchmarks"))
    import project as bench

    return bench


def marked(folder: Path) -> set[tuple[str, int]]:
    """The lines marked `# graph break` in the package."""
    return {(p.replace(os.sep, "/"), line) for p, line in _bench().marked_lines(str(folder))}


def dynamo_lines(folder: Path) -> set[tuple[str, int]]:
    """Where dynamo breaks running the package's `oracle.json` targets."""
    return {(p.replace(os.sep, "/"), line) for p, line in _bench().dynamo_lines(str(folder))}


def marked_package_tests(make):
    """The two tests every marked package gets, for ``make(root) -> folder``: the static pass
    finds exactly the marked lines, and dynamo breaks exactly there (a ``dynamo`` test)."""
    import pytest

    def test_the_static_pass_finds_the_marked_breaks(tmp_path):
        folder = make(tmp_path)
        assert {(p, line) for p, line, _ in static_found(folder)} == marked(folder)

    @pytest.mark.dynamo
    def test_the_marks_are_where_dynamo_breaks(tmp_path):
        folder = make(tmp_path)
        assert dynamo_lines(folder) == marked(folder)

    return test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks


#: a project whose model a function builds (`model = build()`, then compiled) with a loss
#: handed to its constructor: the loss's `print` (model.py:6) breaks in eval and in training
BUILT = {
    "model.py": """\
        from torch import nn


        class EdgeLoss(nn.Module):
            def forward(self, a, b):
                print("edge loss")
                return (a - b).abs().mean()


        class Enhancer(nn.Module):
            def __init__(self, criterion):
                super().__init__()
                self.net = nn.Linear(4, 4)
                self.criterion = criterion

            def forward(self, x, y):
                return self.criterion(self.net(x), y)


        def build():
            return Enhancer(EdgeLoss())
        """,
    "train.py": """\
        import torch

        from model import build

        model = build()
        step = torch.compile(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = step(torch.randn(2, 4), torch.randn(2, 4))
        loss.backward()
        opt.step()
        """,
}
