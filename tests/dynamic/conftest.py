import os

import pytest

MODELS = os.path.join(os.path.dirname(__file__), "models")


@pytest.fixture(scope="session")
def models_dir():
    return MODELS


@pytest.fixture(scope="session")
def worker():
    """One worker process shared by every runner test (torch imported once)."""
    pytest.importorskip("torch")
    from torchlint.dynamic.process import Worker

    w = Worker()
    w.start()
    yield w
    w.close()
