"""The reports pasted in README.md are what a real run prints (seconds aside):
benchmarks/readme_reports.py regenerates them; this fails when the README drifts."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import readme_reports  # noqa: E402


def test_abridge_keeps_the_named_findings_then_everything_after_them():
    out = ("a.py:1:1: TL001 x\n  1 | y\n\nb.py:2:3: TL004 z\n  2 | w\n\n"
           "a.py:T: 1 graph, 0 graph breaks, 0 recompiles (1.0 s)\nFound 2 findings in 2 files.\n")
    assert readme_reports.abridge(out, ["b.py:2:"]) == (
        "b.py:2:3: TL004 z\n  2 | w\n\na.py:T: 1 graph, 0 graph breaks, 0 recompiles (1.0 s)\n"
        "Found 2 findings in 2 files.\n")
    assert readme_reports.masked("(12.5 s) (3 s)") == "(… s) (… s)"


@pytest.mark.slow
@pytest.mark.dynamo
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the report runs dynamo: torch is not installed")
def test_readme_reports_match_a_real_run(capsys):
    from torchlint.matrix import installed_torch, minor

    if minor(installed_torch()) != readme_reports.TORCH:
        pytest.skip(f"the README's reports are from torch {readme_reports.TORCH}; torch {installed_torch()} "
                    "counts graphs and names some breaks differently")
    code = readme_reports.main([])
    assert code == 0, capsys.readouterr().out
