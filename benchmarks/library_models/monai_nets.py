"""MONAI's networks as its users run them."""

from __future__ import annotations

import torch
from monai.inferers import sliding_window_inference
from torch import nn


class SlidingWindowSegmenter(nn.Module):
    """A segmentation network run window by window over the image, as MONAI's inference
    scripts wrap it (the windows are stitched back with a Gaussian weighting)."""

    def __init__(self, net: nn.Module, roi: tuple[int, int] = (16, 16), sw_batch_size: int = 2) -> None:
        super().__init__()
        self.net = net
        self.roi = roi
        self.sw_batch_size = sw_batch_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sliding_window_inference(x, self.roi, self.sw_batch_size, self.net, mode="gaussian")
