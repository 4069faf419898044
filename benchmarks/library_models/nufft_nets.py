"""torchkbnufft where its users put it: non-Cartesian MRI, a network whose images are compared
with measured k-space through the forward NUFFT, and reconstruction networks that grid
k-space back to an image with the adjoint NUFFT and refine it. A radial trajectory; the
forward fit of an image; a density-compensated gridding reconstruction (the weights computed
once, or per trajectory in the forward); multi-coil data through sensitivity maps; a batch of
trajectories, one per image; sparse-matrix interpolation; an unrolled gradient-descent
reconstruction through the Toeplitz normal operator; real-valued (``[..., 2]``) tensors;
table interpolation alone on a gridded spectrum. Images are complex unless said otherwise."""

from __future__ import annotations

import math

import torch
import torchkbnufft as tkbn
from torch import nn

IM_SIZE = (16, 16)


def radial(spokes: int = 8, readout: int = 24, angle: float = 0.0) -> torch.Tensor:
    """A radial trajectory, ``(2, spokes * readout)`` in radians/voxel."""
    r = torch.linspace(-math.pi, math.pi, readout)
    theta = torch.arange(spokes) * math.pi / spokes + angle
    return torch.stack(
        [(r[None] * torch.cos(theta)[:, None]).flatten(), (r[None] * torch.sin(theta)[:, None]).flatten()]
    )


def complex_image(batch: int = 2, coils: int = 1) -> torch.Tensor:
    return torch.randn(batch, coils, *IM_SIZE, dtype=torch.complex64)


def coil_maps(coils: int = 3) -> torch.Tensor:
    """Smooth sensitivity maps, normalized to unit sum of squares."""
    y, x = torch.meshgrid(torch.linspace(-1, 1, IM_SIZE[0]), torch.linspace(-1, 1, IM_SIZE[1]), indexing="ij")
    maps = []
    for c in range(coils):
        a = 2 * math.pi * c / coils
        mag = torch.exp(-((x - 0.6 * math.cos(a)) ** 2 + (y - 0.6 * math.sin(a)) ** 2))
        maps.append(mag * torch.exp(1j * (x * math.cos(a) + y * math.sin(a))))
    maps = torch.stack(maps)
    return (maps / maps.abs().pow(2).sum(0).sqrt()).unsqueeze(0).to(torch.complex64)


class ComplexCNN(nn.Module):
    """A small CNN on the real and imaginary parts as channels, residual, complex in and out
    (``(batch, 1, H, W)``)."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(2, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, 2, 3, padding=1),
        )  # fmt: skip

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        x = torch.view_as_real(image[:, 0]).permute(0, 3, 1, 2)
        out = self.net(x).permute(0, 2, 3, 1).contiguous()
        return image + torch.view_as_complex(out).unsqueeze(1)


class ForwardFit(nn.Module):
    """A network's image taken to k-space by the forward NUFFT and compared with the measured
    samples (``norm``: the orthonormal FFT)."""

    def __init__(self, omega: torch.Tensor, norm: str | None = None) -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        self.nufft = tkbn.KbNufft(im_size=IM_SIZE)
        self.register_buffer("omega", omega)
        self.norm = norm

    def forward(self, image: torch.Tensor, kdata: torch.Tensor) -> torch.Tensor:
        pred = self.nufft(self.cnn(image), self.omega, norm=self.norm)
        return (pred - kdata).abs().pow(2).mean()


class GriddingRecon(nn.Module):
    """Density-compensated adjoint NUFFT (``dcomp="init"``: the weights computed once for the
    fixed trajectory; ``"forward"``: per call, for the trajectory given) refined by a CNN;
    ``forward`` returns the image, ``loss`` its error against the reference."""

    def __init__(self, omega: torch.Tensor, dcomp: str = "init") -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
        self.register_buffer("omega", omega)
        self.dcomp = dcomp
        if dcomp == "init":
            self.register_buffer("weights", tkbn.calc_density_compensation_function(omega, IM_SIZE))

    def forward(self, kdata: torch.Tensor) -> torch.Tensor:
        if self.dcomp == "init":
            weights = self.weights
        else:
            weights = tkbn.calc_density_compensation_function(self.omega, IM_SIZE, num_iterations=4)
        return self.cnn(self.adjoint(kdata * weights, self.omega, norm="ortho"))

    def loss(self, kdata: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
        return (self.forward(kdata) - reference).abs().mean()


class SenseRecon(nn.Module):
    """Multi-coil: coil images combined by the adjoint NUFFT with sensitivity maps, refined by
    a CNN, then taken back to each coil's k-space with the maps for data consistency."""

    def __init__(self, omega: torch.Tensor, smaps: torch.Tensor) -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        self.nufft = tkbn.KbNufft(im_size=IM_SIZE)
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
        self.register_buffer("omega", omega)
        self.register_buffer("smaps", smaps)

    def forward(self, kdata: torch.Tensor) -> torch.Tensor:
        image = self.cnn(self.adjoint(kdata, self.omega, smaps=self.smaps, norm="ortho"))
        residual = self.nufft(image, self.omega, smaps=self.smaps, norm="ortho") - kdata
        return (residual.abs() ** 2).sum(-1).mean()


class BatchedTrajectories(nn.Module):
    """One trajectory per image (dynamic imaging): ``omega`` of ``(batch, 2, klength)``, the
    forward NUFFT parallelized over the batch; the adjoint of the residual back to images."""

    def __init__(self) -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        self.nufft = tkbn.KbNufft(im_size=IM_SIZE, numpoints=4)
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE, numpoints=4)

    def forward(self, image: torch.Tensor, omega: torch.Tensor, kdata: torch.Tensor) -> torch.Tensor:
        residual = self.nufft(self.cnn(image), omega) - kdata
        return self.adjoint(residual, omega).abs().mean()


class SparseMatrixFit(nn.Module):
    """The forward and adjoint NUFFT through precomputed sparse interpolation matrices
    (``calc_tensor_spmatrix``) instead of table interpolation."""

    def __init__(self, omega: torch.Tensor) -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        self.nufft = tkbn.KbNufft(im_size=IM_SIZE)
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
        self.omega = omega
        self.interp_mats = tkbn.calc_tensor_spmatrix(omega, im_size=IM_SIZE)

    def forward(self, image: torch.Tensor, kdata: torch.Tensor) -> torch.Tensor:
        pred = self.nufft(self.cnn(image), self.omega, interp_mats=self.interp_mats)
        back = self.adjoint(pred - kdata, self.omega, interp_mats=self.interp_mats)
        return back.abs().mean()


class UnrolledToeplitz(nn.Module):
    """An unrolled reconstruction: from the gridded image ``A^H y``, ``steps`` gradient steps
    ``x - eta (A^H A x - A^H y)``, the normal operator ``A^H A`` applied by Toeplitz embedding
    (a kernel computed once), each step followed by a CNN."""

    def __init__(self, omega: torch.Tensor, steps: int = 2) -> None:
        super().__init__()
        self.cnns = nn.ModuleList(ComplexCNN() for _ in range(steps))
        self.eta = nn.Parameter(torch.tensor(0.5))
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
        self.toep = tkbn.ToepNufft()
        self.register_buffer("omega", omega)
        self.register_buffer("kernel", tkbn.calc_toeplitz_kernel(omega, IM_SIZE, norm="ortho"))

    def forward(self, kdata: torch.Tensor) -> torch.Tensor:
        aty = self.adjoint(kdata, self.omega, norm="ortho")
        x = aty
        for cnn in self.cnns:
            x = cnn(x - self.eta * (self.toep(x, self.kernel, norm="ortho") - aty))
        return x

    def loss(self, kdata: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
        return (self.forward(kdata) - reference).abs().pow(2).mean()


class RealValuedFit(nn.Module):
    """Real tensors with a trailing real/imaginary dimension of 2, the layout older code keeps:
    a real CNN's two-channel output to k-space and the adjoint back."""

    def __init__(self, omega: torch.Tensor) -> None:
        super().__init__()
        self.net = nn.Conv2d(2, 2, 3, padding=1)
        self.nufft = tkbn.KbNufft(im_size=IM_SIZE)
        self.adjoint = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
        self.register_buffer("omega", omega)

    def forward(self, image: torch.Tensor, kdata: torch.Tensor) -> torch.Tensor:
        x = self.net(image.squeeze(1).permute(0, 3, 1, 2)).permute(0, 2, 3, 1).unsqueeze(1).contiguous()
        residual = self.nufft(x, self.omega) - kdata
        return self.adjoint(residual, self.omega).pow(2).mean()


class GridInterpolation(nn.Module):
    """A network's gridded (oversampled) spectrum interpolated to the trajectory with
    ``KbInterp`` and back with ``KbInterpAdjoint``: the NUFFT without its FFT, as a k-space
    network's data-consistency layer uses it."""

    def __init__(self, omega: torch.Tensor) -> None:
        super().__init__()
        self.cnn = ComplexCNN()
        grid = tuple(2 * s for s in IM_SIZE)
        self.interp = tkbn.KbInterp(im_size=IM_SIZE, grid_size=grid)
        self.interp_adjoint = tkbn.KbInterpAdjoint(im_size=IM_SIZE, grid_size=grid)
        self.register_buffer("omega", omega)

    def forward(self, grid: torch.Tensor, kdata: torch.Tensor) -> torch.Tensor:
        residual = self.interp(self.cnn(grid), self.omega) - kdata
        return self.interp_adjoint(residual, self.omega).abs().mean()
