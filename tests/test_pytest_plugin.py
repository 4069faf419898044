"""The pytest plugin, as users run it: a real pytest in a subprocess on a sample test file,
serially and under pytest-xdist: the README snippet, one test passing, one failing with its message."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
from readme_snippets import snippet

pytestmark = pytest.mark.dynamo  # the plugin runs models through dynamo

pytest.importorskip("torch", reason="the pytest plugin runs models through dynamo: torch is not installed")

# The models the README's snippet imports: Encoder breaks once (its test must fail, with the
# break in the message), Decoder breaks once (its marker allows one: the test must pass).
MODELS = """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        peak = y.abs().max().item()
        return y / peak


class Decoder(nn.Module):
    def forward(self, x):
        print("decoding", x.shape)
        return torch.tanh(x)
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("plugin")
    (root / "mymodels.py").write_text(textwrap.dedent(MODELS).lstrip(), encoding="utf-8")
    (root / "test_models.py").write_text(snippet("pytest"), encoding="utf-8")
    return root


def run_pytest(root, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TORCH_LOGS"))}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rf",
            "--tb=short",
            "-W",
            "ignore::DeprecationWarning",
            *extra,
            "test_models.py",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def check_outcome(result):
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert re.search(r"\b1 failed, 1 passed\b", out), out
    assert re.findall(r"FAILED test_models.py::(\w+)", out) == ["test_encoder_compiles_whole"], out
    # the message: target, count and limit, then each break with file, line, reason and fix
    assert "torchlint: mymodels.py:Encoder: 1 graph-break site, 1 break hit (max_breaks=0)" in out, out
    assert re.search(r"mymodels\.py:12: TL001 Unsupported Tensor\.item\(\) call", out), out
    assert "peak = y.abs().max().item()" in out, out
    assert "fix: Keep the value as a 0-d tensor" in out, out


def test_plugin_serial(sample):
    check_outcome(run_pytest(sample))


def test_plugin_under_xdist(sample):
    pytest.importorskip("xdist", reason="pytest-xdist is not installed")
    result = run_pytest(sample, "-n", "2")
    check_outcome(result)
    assert re.search(r"\[gw[01]\] ", result.stdout), result.stdout  # ran in xdist workers
