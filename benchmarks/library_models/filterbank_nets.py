"""asteroid-filterbanks' encoders, decoders and transforms where their users put them: the
front and back ends of mask-based source separators and speech enhancers (a waveform is
encoded, masked by a small network and decoded), and the front end of audio classifiers."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from asteroid_filterbanks import (
    STFTFB,
    Decoder,
    Encoder,
    ParamSincFB,
    TorchSTFTFB,
    griffin_lim,
    make_enc_dec,
    misi,
    transforms,
)
from asteroid_filterbanks.pcen import PCEN, StatefulPCEN
from torch import nn


def neg_si_sdr(estimate: torch.Tensor, target: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """The negative scale-invariant SDR, averaged (the usual separation loss)."""
    estimate = estimate - estimate.mean(-1, keepdim=True)
    target = target - target.mean(-1, keepdim=True)
    scale = (estimate * target).sum(-1, keepdim=True) / (target.pow(2).sum(-1, keepdim=True) + eps)
    projection = scale * target
    noise = estimate - projection
    ratio = projection.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps)
    return -10 * torch.log10(ratio + eps).mean()


class MaskNet(nn.Module):
    """A small convolutional mask estimator: (batch, freq, frames) -> (batch, n_src, out, frames)."""

    def __init__(self, n_feats: int, n_src: int = 2, out: int | None = None, hidden: int = 32) -> None:
        super().__init__()
        self.n_src, self.out = n_src, out or n_feats
        self.net = nn.Sequential(
            nn.Conv1d(n_feats, hidden, 3, padding=1),
            nn.PReLU(),
            nn.Conv1d(hidden, hidden, 3, padding=2, dilation=2),
            nn.PReLU(),
            nn.Conv1d(hidden, n_src * self.out, 1),
        )

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        masks = self.net(feats)
        return masks.view(feats.shape[0], self.n_src, self.out, feats.shape[-1])


class TasNet(nn.Module):
    """Conv-TasNet's shape: a learned (or parametrized) encoder, ReLU, masks per source, a decoder
    that brings each masked representation back to a waveform of the mixture's length."""

    def __init__(
        self, fb_name: str = "free", n_src: int = 2, n_filters: int = 32, kernel_size: int = 16, **fb: object
    ) -> None:
        super().__init__()
        self.encoder, self.decoder = make_enc_dec(fb_name, n_filters, kernel_size, stride=kernel_size // 2, **fb)
        self.masker = MaskNet(self.encoder.n_feats_out, n_src)

    def forward(self, mixture: torch.Tensor) -> torch.Tensor:
        tf_rep = F.relu(self.encoder(mixture.unsqueeze(1)))  # (b, feats, frames)
        masks = torch.sigmoid(self.masker(tf_rep))
        masked = transforms.apply_real_mask(tf_rep.unsqueeze(1), masks)
        return self.decoder(masked, length=mixture.shape[-1])  # (b, n_src, time)

    def loss(self, mixture: torch.Tensor, sources: torch.Tensor) -> torch.Tensor:
        estimates = self(mixture)  # (a filterbank whose frames do not tile the mixture drops its tail)
        return neg_si_sdr(estimates, sources[..., : estimates.shape[-1]])


class ComplexMaskEnhancer(nn.Module):
    """A speech enhancer on an analytic (or STFT) representation: magnitude and real/imaginary
    features in, a complex mask out, the pseudo-inverse decoder back to the waveform."""

    def __init__(self, fb_name: str = "analytic_free", n_filters: int = 32, kernel_size: int = 16) -> None:
        super().__init__()
        self.encoder, self.decoder = make_enc_dec(
            fb_name, n_filters, kernel_size, stride=kernel_size // 2, who_is_pinv="dec"
        )
        n_feats = self.encoder.n_feats_out
        self.masker = MaskNet(n_feats // 2 * 3, n_src=1, out=n_feats)

    def forward(self, noisy: torch.Tensor) -> torch.Tensor:
        spec = self.encoder(noisy.unsqueeze(1))  # (b, 2 * bins, frames): real parts, then imaginary
        mask = self.masker(transforms.magreim(spec))[:, 0]
        return self.decoder(transforms.apply_complex_mask(spec, mask), length=noisy.shape[-1]).squeeze(1)

    def loss(self, noisy: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        return F.l1_loss(self(noisy), clean)


class MagnitudeMaskEnhancer(nn.Module):
    """STFT magnitude masking with the noisy phase kept: a torch.stft-compatible filterbank
    (centered, reflect-padded frames, the window's squared overlap-add divided out) or the
    plain STFT filterbank with a synthesis window for perfect reconstruction."""

    def __init__(self, torch_compatible: bool = True, n_fft: int = 32, hop: int = 8) -> None:
        super().__init__()
        if torch_compatible:
            window = torch.hann_window(n_fft)
            self.encoder = Encoder(TorchSTFTFB.from_torch_args(n_fft, hop, n_fft, window=window))
            self.decoder = Decoder(TorchSTFTFB.from_torch_args(n_fft, hop, n_fft, window=window))
        else:
            stft = STFTFB(n_fft, n_fft, stride=hop)
            self.encoder = Encoder(stft)
            self.decoder = Decoder.pinv_of(stft)
        self.masker = MaskNet(n_fft // 2 + 1, n_src=1)

    def forward(self, noisy: torch.Tensor) -> torch.Tensor:
        spec = self.encoder(noisy.unsqueeze(1))
        mag, phase = transforms.magphase(spec)
        mask = torch.sigmoid(self.masker(torch.log1p(mag)))[:, 0]
        enhanced = transforms.apply_mag_mask(spec, mask)
        # (the same, through the magnitude and phase: what a phase-aware variant starts from)
        enhanced = 0.5 * enhanced + 0.5 * transforms.from_magphase(mag * mask, phase)
        return self.decoder(enhanced, length=noisy.shape[-1]).squeeze(1)

    def loss(self, noisy: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(noisy), clean)


class AudioClassifier(nn.Module):
    """Keyword or speaker classification from a filterbank front end: SincNet's parametrized
    band-pass filters (their log-magnitudes), or an STFT magnitude through trainable
    per-channel energy normalization (PCEN)."""

    def __init__(self, front: str = "sinc", classes: int = 5) -> None:
        super().__init__()
        self.front = front
        if front == "sinc":
            self.encoder = Encoder(ParamSincFB(32, 65, stride=16, sample_rate=8000.0))
        else:
            self.encoder = Encoder(STFTFB(64, 64, stride=32))
            self.pcen = PCEN(n_channels=1, trainable=True)
        feats = self.encoder.n_feats_out if front != "pcen" else 33
        self.net = nn.Sequential(
            nn.Conv1d(feats, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, classes)
        )

    def features(self, wav: torch.Tensor) -> torch.Tensor:
        spec = self.encoder(wav.unsqueeze(1))
        if self.front == "sinc":
            return torch.log1p(spec.abs())
        return self.pcen(transforms.mag(spec))

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        return self.net(self.features(wav))

    def loss(self, wav: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(wav), labels)


class StreamingPCENDetector(nn.Module):
    """Frame-level voice activity on a stream: the STFT magnitude of each incoming chunk
    through stateful PCEN, its smoother's state carried from chunk to chunk."""

    def __init__(self, chunks: int = 3) -> None:
        super().__init__()
        self.chunks = chunks
        self.encoder = Encoder(STFTFB(64, 64, stride=32))
        self.pcen = StatefulPCEN(n_channels=1, trainable=True)
        self.head = nn.Conv1d(33, 1, 1)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        mag = transforms.mag(self.encoder(wav.unsqueeze(1)))
        state = None
        outs = []
        for chunk in torch.chunk(mag, self.chunks, dim=-1):
            energy, state = self.pcen(chunk, state)
            outs.append(self.head(energy))
        return torch.cat(outs, -1).squeeze(1)

    def loss(self, wav: torch.Tensor, activity: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(self(wav), activity)


class PhaseReconstructor(nn.Module):
    """Magnitude-only models whose waveform comes from iterative phase retrieval: a vocoder-like
    magnitude refiner inverted by fast Griffin-Lim, or a two-source magnitude separator whose
    phases are estimated jointly by MISI against the mixture."""

    def __init__(self, method: str = "griffin_lim", n_fft: int = 32, hop: int = 8, n_iter: int = 4) -> None:
        super().__init__()
        self.method, self.n_iter = method, n_iter
        self.stft = Encoder(STFTFB(n_fft, n_fft, stride=hop))
        self.istft = Decoder.pinv_of(self.stft.filterbank)
        self.masker = MaskNet(n_fft // 2 + 1, n_src=1 if method == "griffin_lim" else 2)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        mag = transforms.mag(self.stft(wav.unsqueeze(1)))  # (b, bins, frames)
        masks = torch.sigmoid(self.masker(mag))  # (b, n_src, bins, frames)
        angles = torch.zeros_like(masks)  # (deterministic start: the default draws random phases)
        if self.method == "griffin_lim":
            out = griffin_lim(
                mag * masks[:, 0], self.stft, angles=angles[:, 0], istft_dec=self.istft, n_iter=self.n_iter
            )
            out = out.squeeze(1)
        else:
            out = misi(
                wav, mag.unsqueeze(1) * masks, self.stft, angles=angles, istft_dec=self.istft, n_iter=self.n_iter
            )
        return out[..., : wav.shape[-1]]

    def loss(self, wav: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(wav), target)


class MultichannelBeamformer(nn.Module):
    """A mask-based multichannel enhancer: every microphone's STFT at once (the encoder's
    batched path for (batch, mics, time)), a mask from the channel-averaged magnitude, a learned
    complex weight per microphone and bin, summed over microphones, then decoded."""

    def __init__(self, mics: int = 3, n_fft: int = 32, hop: int = 8) -> None:
        super().__init__()
        stft = STFTFB(n_fft, n_fft, stride=hop)
        self.encoder = Encoder(stft)
        self.decoder = Decoder.pinv_of(stft)
        bins = n_fft // 2 + 1
        self.masker = MaskNet(bins, n_src=1)
        self.weights = nn.Parameter(torch.randn(mics, 2 * bins, 1) / mics)

    def forward(self, wavs: torch.Tensor) -> torch.Tensor:
        spec = self.encoder(wavs)  # (b, mics, 2 * bins, frames)
        mask = torch.sigmoid(self.masker(transforms.mag(spec).mean(1)))  # (b, 1, bins, frames)
        beamformed = transforms.mul_c(spec, self.weights).sum(1)  # (b, 2 * bins, frames)
        out = transforms.apply_mag_mask(beamformed, mask[:, 0])
        return self.decoder(out, length=wavs.shape[-1]).squeeze(1)

    def loss(self, wavs: torch.Tensor, clean: torch.Tensor) -> torch.Tensor:
        return neg_si_sdr(self(wavs), clean)
