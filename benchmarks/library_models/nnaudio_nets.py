"""nnAudio where its users put it: a spectrogram front end computed on the fly by a layer of the
model, feeding a small classifier or a reconstruction. STFT magnitude and trainable complex STFT,
mel spectrogram and MFCC, constant-Q (1992 and 2010 versions) and variable-Q transforms,
gammatonegram, and an STFT round trip through its inverse (its Griffin-Lim calls `torch.istft` on a real
tensor, which this torch refuses, so it is left out)."""

from __future__ import annotations

import torch
from nnAudio import features
from torch import nn

SR = 8000


class Classifier(nn.Module):
    """A front end (``(batch, samples)`` -> ``(batch, bins, frames)``), its log, a small 2D
    convolution and a linear head."""

    def __init__(self, front: nn.Module, classes: int = 4, log: bool = True) -> None:
        super().__init__()
        self.front = front
        self.log = log
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.head = nn.LazyLinear(classes)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        spec = self.front(wave)
        if self.log:
            spec = torch.log1p(spec.clamp_min(0))
        h = torch.relu(self.conv(spec.unsqueeze(1)))
        return self.head(h.mean(dim=-1).flatten(1))


class ComplexFeatures(nn.Module):
    """A trainable STFT giving real and imaginary parts, its magnitude and phase read back."""

    def __init__(self) -> None:
        super().__init__()
        self.stft = features.STFT(n_fft=128, hop_length=32, output_format="Complex", trainable=True, verbose=False)
        self.head = nn.Linear(65, 4)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        spec = self.stft(wave)  # (batch, bins, frames, 2)
        mag = spec.pow(2).sum(-1).sqrt()
        phase = torch.atan2(spec[..., 1], spec[..., 0])
        return self.head((mag + phase.cos()).mean(-1))


class RoundTrip(nn.Module):
    """Denoising in the STFT domain: a mask on the complex spectrum, then the inverse STFT."""

    def __init__(self) -> None:
        super().__init__()
        self.stft = features.STFT(n_fft=128, hop_length=32, output_format="Complex", iSTFT=True, verbose=False)
        self.mask = nn.Conv1d(65, 65, 1)

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        spec = self.stft(wave)
        mag = spec.pow(2).sum(-1).sqrt()
        gate = torch.sigmoid(self.mask(mag)).unsqueeze(-1)
        return self.stft.inverse(spec * gate, onesided=True, length=wave.shape[-1])


def stft_classifier() -> nn.Module:
    return Classifier(features.STFT(n_fft=128, hop_length=32, output_format="Magnitude", verbose=False))


def mel_classifier() -> nn.Module:
    return Classifier(features.MelSpectrogram(sr=SR, n_fft=256, n_mels=32, hop_length=64, verbose=False))


def mfcc_classifier() -> nn.Module:
    front = features.MFCC(sr=SR, n_mfcc=13, n_fft=256, n_mels=32, hop_length=64, verbose=False)
    return Classifier(front, log=False)


def cqt1992_classifier() -> nn.Module:
    front = features.CQT1992v2(sr=SR, hop_length=64, fmin=220, n_bins=24, bins_per_octave=12, verbose=False)
    return Classifier(front)


def cqt2010_classifier() -> nn.Module:
    front = features.CQT2010v2(sr=SR, hop_length=64, fmin=55, n_bins=24, bins_per_octave=12, verbose=False)
    return Classifier(front)


def vqt_classifier() -> nn.Module:
    front = features.VQT(sr=SR, hop_length=64, fmin=55, n_bins=24, bins_per_octave=12, gamma=5, verbose=False)
    return Classifier(front)


def gammatone_classifier() -> nn.Module:
    front = features.Gammatonegram(sr=SR, n_fft=256, n_bins=32, hop_length=64, verbose=False)
    return Classifier(front)
