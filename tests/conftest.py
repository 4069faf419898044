"""Fixtures shared by the test-suite; plain helpers live in support.py."""
from __future__ import annotations

import pytest


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
