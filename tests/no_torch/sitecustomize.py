"""Run at start-up by every Python process of the torch-free test lane (tests/lanes.py puts this
folder first on PYTHONPATH): torch is absent there, as on a machine without it. ``import torch``
raises ModuleNotFoundError and ``importlib.util.find_spec("torch")`` is None."""

import sys

sys.modules["torch"] = None  # type: ignore[assignment]
