"""torchlint: find what makes torch.compile slow — graph breaks, host syncs, recompilations."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
