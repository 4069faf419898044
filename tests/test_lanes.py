"""The lanes of tests/lanes.py, run for real: a pytest in a subprocess on a small project that
uses them (its conftest imports the hooks), with a stand-in ``torch`` package so the guard
has something to see whether or not torch is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import lanes

TESTS = Path(__file__).resolve().parent

CONFTEST = "from lanes import *  # noqa: F403\n"  # lanes.py is found on PYTHONPATH

PYPROJECT = """
[tool.pytest.ini_options]
testpaths = ["tests"]
markers = ["dynamo: needs torch", "cuda: needs a GPU"]

[tool.ruff]
line-length = 100
lint.select = ["E", "F", "RUF100"]

[tool.mypy]
files = ["pkg"]
"""


def make(root: Path, tests: str, pkg: str = "def f(x: int) -> int:\n    return x\n") -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text(pkg)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tests" / "conftest.py").write_text(CONFTEST)
    (root / "tests" / "test_it.py").write_text(textwrap.dedent(tests).lstrip())
    fake = root / "fake" / "torch"  # a torch that imports in no time, where the lane allows it
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    return root


def pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    # the stand-in torch and lanes.py, and not the torch-free lane's blocker
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "fake"), str(TESTS)]))
    # (only pytest and the lanes: an installed plugin, such as one importing torch at load,
    # would meet the stand-in torch)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


GUARDED = """
import subprocess
import sys

import pytest


def test_plain():
    assert 1 + 1 == 2


def test_sneaks_torch_in():
    import torch  # noqa: F401


@pytest.mark.dynamo
def test_marked():
    import torch  # noqa: F401


def test_asks_for_torch():
    pytest.importorskip("torch")


def test_children_have_no_torch():
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is not None)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
"""


def test_an_unmarked_test_that_imports_torch_fails(tmp_path):
    root = make(tmp_path, GUARDED)
    names = ("test_plain", "test_sneaks_torch_in", "test_marked")
    got = pytest(root, "--lane", "none", "-rA", *(f"tests/test_it.py::{name}" for name in names))
    out = got.stdout + got.stderr
    assert got.returncode == 1, out
    assert "test_sneaks_torch_in imported torch: mark it `dynamo`" in out
    assert "ERROR tests/test_it.py::test_sneaks_torch_in" in out
    assert "PASSED tests/test_it.py::test_plain" in out and "PASSED tests/test_it.py::test_marked" in out


def test_the_torch_free_lane_blocks_torch_everywhere(tmp_path):
    root = make(tmp_path, GUARDED)
    got = pytest(root, "--lane", "torch-free", "-rA")
    out = got.stdout + got.stderr
    assert got.returncode == 1, out
    assert "PASSED tests/test_it.py::test_plain" in out
    assert "PASSED tests/test_it.py::test_children_have_no_torch" in out  # started processes too
    assert "FAILED tests/test_it.py::test_sneaks_torch_in - ModuleNotFoundError" in out
    assert "test_asks_for_torch asks for torch in the torch-free lane: mark it `dynamo`" in out
    assert "1 deselected" in out  # test_marked


def test_the_dynamo_lane_runs_the_marked_tests_only(tmp_path):
    root = make(tmp_path, GUARDED)
    got = pytest(root, "--lane", "dynamo", "-rA")
    out = got.stdout + got.stderr
    assert got.returncode == 0, out
    assert "PASSED tests/test_it.py::test_marked" in out and "4 deselected" in out


def test_the_whole_suite_runs_checks_then_both_lanes(tmp_path):
    root = make(tmp_path, "def test_plain():\n    assert True\n")
    got = pytest(root)
    out = got.stdout
    assert got.returncode == 0, out + got.stderr  # the dynamo lane has no test: that passes
    order = [out.index(f"lane: {name}") for name in ("checks", "torch-free", "dynamo")]
    assert order == sorted(order), out
    for check in ("ruff check: ok", "ruff format --check: ok", "mypy: ok"):
        assert check in out, out
    assert "lane torch-free: exit 0" in out and "lane dynamo: exit 5" in out, out


def test_a_failing_check_stops_the_run_before_the_tests(tmp_path):
    root = make(tmp_path, "def test_plain():\n    assert True\n", pkg="def f(x: int) -> str:\n    return x\n")
    got = pytest(root)
    out = got.stdout
    assert got.returncode == 1, out + got.stderr
    assert "mypy: FAILED" in out and "checks failed: mypy" in out
    assert "lane: torch-free" not in out


def test_named_paths_run_one_plain_session(tmp_path):
    root = make(tmp_path, "def test_plain():\n    assert True\n")
    got = pytest(root, "tests/test_it.py")
    assert got.returncode == 0 and "lane:" not in got.stdout, got.stdout


def test_exit_codes_of_several_lanes():
    assert lanes.combine([0, 0]) == 0
    assert lanes.combine([0, 5]) == 0
    assert lanes.combine([5, 5]) == 5
    assert lanes.combine([5, 1]) == 1
    assert lanes.combine([2, 1]) == 2
