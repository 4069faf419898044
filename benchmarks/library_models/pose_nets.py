"""roma where its users put it: pose-regression networks whose raw outputs roma maps onto
rotations (6D vectors by Gram-Schmidt, 9D matrices by special Procrustes through an SVD or
Horn's closed form, 10D symmetric matrices to unit quaternions, rotation vectors, normalized
quaternions read back as rotation vectors and Euler angles), trained with geodesic distances
to target rotations kept as buffers; point-set registration (``rigid_points_registration``,
Kabsch/Umeyama with learned weights) and a rigid transform's keyframes interpolated by
quaternion slerp and applied to points (``Rigid``, ``RigidUnitQuat``)."""

from __future__ import annotations

from typing import Any

import roma
import torch
import torch.nn.functional as F
from torch import nn

#: representation -> the size of the network's raw output
SIZES = {"6d": 6, "9d": 9, "10d": 10, "rotvec": 3}


class RotationRegressor(nn.Module):
    """An MLP over features whose output is mapped onto a rotation matrix by roma
    (``representation``: ``6d`` Gram-Schmidt, ``9d`` special Procrustes with ``**mapping``,
    ``10d`` symmetric matrix to unit quaternion, ``rotvec`` composed with a learned offset):
    the rotations (eval); the mean geodesic distance to the target rotations (training)."""

    def __init__(self, representation: str, features: int = 16, batch: int = 4, **mapping: Any) -> None:
        super().__init__()
        self.representation = representation
        self.mapping = mapping
        self.net = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, SIZES[representation]))
        self.offset = nn.Parameter(torch.zeros(3))
        self.register_buffer("target", roma.random_rotmat(batch))

    def rotation(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        if self.representation == "6d":
            return roma.special_gramschmidt(out.view(-1, 3, 2), **self.mapping)
        if self.representation == "9d":
            return roma.special_procrustes(out.view(-1, 3, 3), **self.mapping)
        if self.representation == "10d":
            return roma.unitquat_to_rotmat(roma.symmatrixvec_to_unitquat(out, **self.mapping))
        rotvec = roma.rotvec_composition([self.offset.expand_as(out), out])
        return roma.rotvec_to_rotmat(rotvec)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rotation(x)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return roma.rotmat_geodesic_distance(self.rotation(x), self.target).mean()


class QuaternionPose(nn.Module):
    """A head predicting unit quaternions (``quat_normalize``) and translations, compared to
    target rotations through their quaternions (``rotmat_to_unitquat``,
    ``unitquat_geodesic_distance``); eval returns the predicted poses as rotation vectors and
    Euler angles (``unitquat_to_rotvec``, ``unitquat_to_euler``)."""

    def __init__(self, features: int = 16, batch: int = 4) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, 7))
        self.register_buffer("target", roma.random_rotmat(batch))
        self.register_buffer("target_t", torch.randn(batch, 3))

    def pose(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return roma.quat_normalize(out[:, :4]), out[:, 4:]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        q, t = self.pose(x)
        return roma.unitquat_to_rotvec(q), roma.unitquat_to_euler("xyz", q, degrees=True), t

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        q, t = self.pose(x)
        target = roma.rotmat_to_unitquat(self.target)
        return roma.unitquat_geodesic_distance(q, target).mean() + F.mse_loss(t, self.target_t)


class PointRegistration(nn.Module):
    """Learned point-set registration: a per-point network scores each correspondence
    (softmax weights) and corrects the target points, roma's weighted Kabsch/Umeyama solve
    (``rigid_points_registration``, with scaling) gives the similarity transform, applied to
    the source points (``Rigid``); the transform (eval), the points' and rotation's errors (training)."""

    def __init__(self, hidden: int = 16) -> None:
        super().__init__()
        self.score = nn.Sequential(nn.Linear(6, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.correct = nn.Linear(6, 3)

    def register(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        pairs = torch.cat([x, y], dim=-1)
        weights = torch.softmax(self.score(pairs).squeeze(-1), dim=-1)
        y = y + 0.1 * self.correct(pairs)
        return roma.rigid_points_registration(x, y, weights=weights, compute_scaling=True)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        R, t, s = self.register(x, y)
        return roma.Rigid(R, t).to_homogeneous() * s[:, None, None]

    def loss(self, x: torch.Tensor, y: torch.Tensor, R_gt: torch.Tensor) -> torch.Tensor:
        R, t, s = self.register(x, y)
        aligned = roma.Rigid(s[:, None, None] * R, t)[:, None].apply(x)
        return F.mse_loss(aligned, y) + roma.rotmat_geodesic_distance(R, R_gt).mean()


class KeyframeInterpolator(nn.Module):
    """Two keyframe poses predicted from features (unit quaternions and translations), the
    in-between poses by quaternion slerp at fixed steps (``unitquat_slerp``) and linear
    translation, each a ``RigidUnitQuat`` composed with the inverse of a fixed camera pose and
    applied to an object's points; the moved points (eval), their error to targets (training)."""

    def __init__(self, features: int = 16, points: int = 10, steps: int = 5) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, 14))
        self.register_buffer("steps", torch.linspace(0, 1, steps))
        self.register_buffer("points", torch.randn(points, 3))
        self.register_buffer("camera_q", roma.random_unitquat())
        self.register_buffer("camera_t", torch.randn(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)  # (b, 14)
        q0, q1 = roma.quat_normalize(out[:, :4]), roma.quat_normalize(out[:, 4:8])
        t0, t1 = out[:, 8:11], out[:, 11:14]
        q = roma.unitquat_slerp(q0, q1, self.steps)  # (steps, b, 4)
        s = self.steps[:, None, None]
        t = (1 - s) * t0 + s * t1
        camera = roma.RigidUnitQuat(self.camera_q, self.camera_t).inverse()
        poses = camera[None, None].compose(roma.RigidUnitQuat(q, t))
        return poses[:, :, None].apply(self.points)  # (steps, b, points, 3)

    def loss(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x), target)
