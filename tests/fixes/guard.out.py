"""Debugging left in forward: print, warnings, logging, a stats dict and a reseed."""
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Debugged(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.stats = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        # Watch the activations while tuning.
        if not torch.compiler.is_compiling():
            print("mean activation:", h.mean())  # noisy, remove before release
        if h.shape[0] > 2:
            if not torch.compiler.is_compiling():
                warnings.warn("large batch")
        if not torch.compiler.is_compiling():
            logger.info("batch of %d", h.shape[0])
            self.stats["norm"] = str(h.norm())

        if not torch.compiler.is_compiling():
            torch.manual_seed(7)
        noise = 0.01 * torch.randn_like(h)
        return torch.relu(h + noise)


def build():
    return Debugged()


def example_inputs():
    return [(torch.randn(4, 8),), (torch.randn(2, 8),)]
