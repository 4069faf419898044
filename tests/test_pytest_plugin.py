"""The pytest plugin, as users run it: a real pytest in a subprocess on a sample test file,
serially and under pytest-xdist; a passing check and failing ones with their messages."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch", reason="the pytest plugin runs models through dynamo: torch is not installed")

MODEL = '''
import torch
from torch import nn


class Clean(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        peak = y.abs().max().item()
        return y / peak
'''

# The README's pytest snippet, as a user would paste it (see README "## Integrations").
TESTS = '''
import pytest
import torch

from model import Clean, Scaled
from torchlint.testing import assert_graph_breaks


def test_clean_model_compiles_whole():
    assert_graph_breaks(Clean(), torch.randn(2, 8))


def test_scaled_model_has_no_graph_break():
    assert_graph_breaks(Scaled(), torch.randn(2, 8))


@pytest.mark.torchlint(max_breaks=1)
def test_one_known_break_is_accepted(torchlint_check):
    torchlint_check(Scaled(), torch.randn(2, 8))


@pytest.mark.torchlint(max_breaks=0)
def test_marker_limit_fails(torchlint_check):
    torchlint_check(Scaled(), torch.randn(2, 8))
'''


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("plugin")
    (root / "model.py").write_text(textwrap.dedent(MODEL).lstrip(), encoding="utf-8")
    (root / "test_models.py").write_text(textwrap.dedent(TESTS).lstrip(), encoding="utf-8")
    return root


def run_pytest(root, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TORCH_LOGS"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf", "--tb=short",
         "-W", "ignore::DeprecationWarning", *extra, "test_models.py"],
        cwd=root, env=env, capture_output=True, text=True, timeout=240,
    )


def check_outcome(result):
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert re.search(r"\b2 failed, 2 passed\b", out), out
    failed = set(re.findall(r"FAILED test_models.py::(\w+)", out))
    assert failed == {"test_scaled_model_has_no_graph_break", "test_marker_limit_fails"}, out
    # the message: target, count and limit, then each break with file, line, reason and fix
    assert "torchlint: model.py:Scaled: 1 graph break (max_breaks=0)" in out, out
    assert re.search(r"model\.py:21: TL001 Unsupported Tensor\.item\(\) call", out), out
    assert "peak = y.abs().max().item()" in out, out
    assert "fix: Keep the value as a 0-d tensor" in out, out


def test_plugin_serial(sample):
    check_outcome(run_pytest(sample))


def test_plugin_under_xdist(sample):
    pytest.importorskip("xdist", reason="pytest-xdist is not installed")
    result = run_pytest(sample, "-n", "2")
    check_outcome(result)
    assert re.search(r"\[gw[01]\] ", result.stdout), result.stdout  # ran in xdist workers
