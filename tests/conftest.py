"""Fixtures shared by the test-suite; plain helpers live in support.py; the lanes that the
whole suite runs in are in lanes.py."""

from __future__ import annotations

import sys

import pytest
from lanes import pytest_addoption, pytest_cmdline_main, pytest_configure, pytest_runtest_protocol  # noqa: F401

NEEDS_TORCH = ("dynamo", "cuda")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True)
def torch_stays_out(request):
    """A test not marked dynamo (or cuda) fails if torch was imported while it ran, here or in
    its fixtures: it would fail in the torch-free lane. Once a test of this process has imported
    torch there is nothing left to see (the torch-free lane sees it everywhere)."""
    if sys.modules.get("torch") is not None or any(request.node.get_closest_marker(m) for m in NEEDS_TORCH):
        yield
        return
    yield
    if sys.modules.get("torch") is not None:
        pytest.fail(f"{request.node.nodeid} imported torch: mark it `dynamo`", pytrace=False)
