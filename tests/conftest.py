"""Fixtures shared by the test-suite; plain helpers live in support.py; the lanes that the
whole suite runs in are in lanes.py."""

from __future__ import annotations

import pytest
from lanes import *  # noqa: F403 (the lanes' hooks and the torch guard)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
