"""auraloss where its users put it: the loss between a small waveform network's output and the
clean (or target) audio, as in speech enhancement, vocoders and amplifier modelling. The
multi-resolution STFT loss, one STFT loss with its linear, phase and scale-invariant terms
read back in full, the stereo sum-and-difference loss, the random-resolution STFT loss,
A-weighted STFT, the time-domain ESR + DC loss behind a pre-emphasis filter, SI-SDR with SNR,
log-cosh with SD-SDR. The module returns the loss: what a validation loop reads (eval), what
training minimizes."""

from __future__ import annotations

from typing import Any

import auraloss
import torch
from torch import nn


class WaveNet(nn.Module):
    """A few dilated 1D convolutions with a residual connection: ``(batch, channels, time)``
    in and out."""

    def __init__(self, channels: int = 1, width: int = 8) -> None:
        super().__init__()
        self.inp = nn.Conv1d(channels, width, 3, padding=1)
        self.layers = nn.ModuleList(nn.Conv1d(width, width, 3, padding=d, dilation=d) for d in (1, 2, 4))
        self.out = nn.Conv1d(width, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.inp(x)
        for layer in self.layers:
            h = h + torch.tanh(layer(h))
        return x + self.out(h)


class Enhancer(nn.Module):
    """``criterion(net(noisy), clean)``, where the clean signal is the noisy one less a noise
    the network should learn to remove; ``full``: the criterion returns the loss and its terms
    (auraloss's ``output="full"``), which are summed."""

    def __init__(self, criterion: nn.Module, channels: int = 1, full: bool = False) -> None:
        super().__init__()
        self.net = WaveNet(channels)
        self.criterion = criterion
        self.full = full

    def forward(self, noisy: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        out = self.criterion(self.net(noisy), clean)
        if not self.full:
            return out
        total = out[0]
        for term in out[1:]:
            if isinstance(term, list):
                term = sum(term)
            total = total + term
        return total


class AmpModel(nn.Module):
    """Amplifier modelling as in Wright & Välimäki: a network's output and the target both
    pre-emphasized by a first-order high-pass FIR, then ESR + DC loss."""

    def __init__(self, coef: float = 0.85) -> None:
        super().__init__()
        self.net = WaveNet()
        self.pre = auraloss.perceptual.FIRFilter(filter_type="hp", coef=coef, fs=16000)
        self.esr = auraloss.time.ESRLoss()
        self.dc = auraloss.time.DCLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        y, t = self.pre(self.net(x), target)
        return self.esr(y, t) + self.dc(y, t)


class SourceSeparation(nn.Module):
    """Two sources from a mixture (a network per source), scored by two time-domain
    criteria summed over the sources."""

    def __init__(self, first: nn.Module, second: nn.Module) -> None:
        super().__init__()
        self.nets = nn.ModuleList([WaveNet(), WaveNet()])
        self.first = first
        self.second = second

    def forward(self, mixture: torch.Tensor, sources: torch.Tensor) -> torch.Tensor:
        loss = torch.zeros((), device=mixture.device)
        for i, net in enumerate(self.nets):
            est, ref = net(mixture), sources[:, i : i + 1]
            loss = loss + self.first(est, ref) + self.second(est, ref)
        return loss


def make(name: str, **config: Any) -> nn.Module:
    """An auraloss criterion by its class name, in ``auraloss.freq`` or ``auraloss.time``."""
    for module in (auraloss.freq, auraloss.time):
        if hasattr(module, name):
            return getattr(module, name)(**config)
    raise KeyError(name)
