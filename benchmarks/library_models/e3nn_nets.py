"""Small equivariant networks as e3nn's users write them."""

from __future__ import annotations

import torch
from e3nn import o3
from e3nn.math import soft_one_hot_linspace
from e3nn.nn import FullyConnectedNet
from torch import nn


class Product(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tp = o3.FullyConnectedTensorProduct("2x0e + 1x1o", "0e + 1o", "2x0e + 2x1o")

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.tp(x, y)


class PointConv(nn.Module):
    """One equivariant convolution over a fully connected point cloud."""

    def __init__(self, points: int = 8) -> None:
        super().__init__()
        self.irreps_sh = o3.Irreps.spherical_harmonics(2)
        self.tp = o3.FullyConnectedTensorProduct("4x0e", self.irreps_sh, "4x0e + 2x1o", shared_weights=False)
        self.radial = FullyConnectedNet([8, 16, self.tp.weight_numel], torch.relu)
        self.register_buffer("src", torch.arange(points).repeat(points))
        self.register_buffer("dst", torch.arange(points).repeat_interleave(points))

    def forward(self, pos: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        vec = pos[self.dst] - pos[self.src]
        sh = o3.spherical_harmonics(self.irreps_sh, vec, normalize=True, normalization="component")
        emb = soft_one_hot_linspace(vec.norm(dim=1), 0.0, 2.0, 8, basis="smooth_finite", cutoff=True)
        edge = self.tp(feats[self.src], sh, self.radial(emb))
        return torch.zeros(pos.shape[0], edge.shape[1]).index_add(0, self.dst, edge)
