"""pytorch-msssim where its users put it: the structural-similarity loss between images (or
volumes) and a small convolutional autoencoder's reconstruction, ``1 - SSIM`` or ``1 -
MS-SSIM``, through the ``SSIM`` and ``MS_SSIM`` modules or the ``ssim`` and ``ms_ssim``
functions: per-image scores, non-negative SSIM, other constants, small windows and fewer
scales, MS-SSIM mixed with an L1 term, 3D volumes, images thinner than the window. The module
returns the loss: what a validation loop reads (eval), what training minimizes."""

from __future__ import annotations

from typing import Any, Callable

import torch
import torch.nn.functional as F
from pytorch_msssim import MS_SSIM, ms_ssim, ssim
from torch import nn


class ConvAutoencoder(nn.Module):
    """Two strided convolutions down, two transposed convolutions up, a sigmoid to [0, 1]
    (``volumes``: the 3D versions)."""

    def __init__(self, channels: int = 3, width: int = 8, volumes: bool = False) -> None:
        super().__init__()
        conv, up = (nn.Conv3d, nn.ConvTranspose3d) if volumes else (nn.Conv2d, nn.ConvTranspose2d)
        self.net = nn.Sequential(
            conv(channels, width, 3, stride=2, padding=1),
            nn.ReLU(),
            conv(width, 2 * width, 3, stride=2, padding=1),
            nn.ReLU(),
            up(2 * width, width, 4, stride=2, padding=1),
            nn.ReLU(),
            up(width, channels, 4, stride=2, padding=1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net(x))


class SSIMReconstruction(nn.Module):
    """An autoencoder and a similarity criterion ``criterion(recon, x)`` (an ``SSIM`` or
    ``MS_SSIM`` module, or a function over two images); the loss ``1 - score``, averaged when
    the criterion scores each image."""

    def __init__(self, criterion: nn.Module | Callable[..., Any], channels: int = 3, volumes: bool = False) -> None:
        super().__init__()
        self.autoencoder = ConvAutoencoder(channels, volumes=volumes)
        self.criterion = criterion

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (1 - self.criterion(self.autoencoder(x), x)).mean()


def ssim_loss(recon: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The functional SSIM over images in [0, 1]."""
    return ssim(recon, x, data_range=1.0, size_average=True)


def small_window_ms_ssim(recon: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """MS-SSIM with a 3-pixel window over three scales (their weights renormalized), per
    image, for images too small for the default 11-pixel window's five scales."""
    return ms_ssim(recon, x, data_range=1.0, size_average=False, win_size=3, weights=[0.3, 0.4, 0.3])


class MixedLoss(nn.Module):
    """The MS-SSIM + L1 mixture of Zhao et al.: ``alpha (1 - MS-SSIM) + (1 - alpha) L1``."""

    def __init__(self, alpha: float = 0.84, **ms_ssim: Any) -> None:
        super().__init__()
        self.alpha = alpha
        self.ms_ssim = MS_SSIM(**ms_ssim)

    def forward(self, recon: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.alpha * (1 - self.ms_ssim(recon, x)) + (1 - self.alpha) * F.l1_loss(recon, x)


class MixedReconstruction(nn.Module):
    """An autoencoder trained on :class:`MixedLoss`."""

    def __init__(self, channels: int = 3, **loss: Any) -> None:
        super().__init__()
        self.autoencoder = ConvAutoencoder(channels)
        self.criterion = MixedLoss(channel=channels, **loss)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.criterion(self.autoencoder(x), x)
